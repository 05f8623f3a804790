"""``harness convert``: a recording's stream as an editable ``wire:`` scenario.

Every stream of every real recording converts, loads back to exactly the recorded body, validates,
and passes its dialect's reference drivers; bad input is exit 2 with a located message."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import UsageError, WireError
from harness.cli import main
from harness.convert import _body_field, convert, convert_recording
from harness.scenario import DriverScenario, parse_scenario
from harness.wire.recordings import RecordedResponse, recorded_streams
from tests.scenarios_for_tests import streams_of

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "cassettes" / "real-traffic"

#: streams that do not go through, with what was found (see each reason)
FINDINGS: dict[tuple[str, int | None], pytest.MarkDecorator] = {}
#: converted fine, but the reference drivers fail a rule on them (see the reason)
REFERENCE_FINDINGS: dict[tuple[str, int | None], pytest.MarkDecorator] = {}


def _streams() -> list[RecordedResponse]:
    return [
        stream
        for path in sorted(REAL.rglob("*"))
        if path.is_file() and path.name not in ("MANIFEST.md", "NOTICE")
        for stream in streams_of(path)
    ]


STREAMS = _streams()


def _key(stream: RecordedResponse) -> tuple[str, int | None]:
    return Path(stream.path).relative_to(REAL).as_posix(), stream.interaction


def _cases(marks: dict[tuple[str, int | None], pytest.MarkDecorator]) -> list[object]:
    return [
        pytest.param(s, id=f"{_key(s)[0]}#{s.interaction or 0}", marks=marks.get(_key(s), ()))
        for s in STREAMS
    ]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_real_recording_is_covered() -> None:
    assert len(STREAMS) == 48  # the openai-python n=3 stream is several turns: not one to replay
    assert {s.dialect for s in STREAMS} == {
        "anthropic",
        "openai-chat",
        "openai-responses",
        "gemini-sse",
        "gemini-json-array",
    }


@pytest.mark.parametrize("stream", _cases(FINDINGS))
def test_every_stream_round_trips_byte_for_byte(stream: RecordedResponse) -> None:
    text = convert_recording(stream.path, interaction=stream.interaction)
    document = yaml.safe_load(text)
    assert document["wire"]["body"] == stream.body  # JSON lines: the SSE-framed body
    assert document["wire"]["dialect"] == stream.dialect
    scenario = parse_scenario(text, "converted.yaml")
    assert isinstance(scenario, DriverScenario)
    assert (scenario.layer, scenario.tags, scenario.dialects) == (
        "driver",
        ("recorded",),
        (stream.dialect,),
    )
    assert "".join(piece for piece, _ in scenario.raw_wire) == stream.body


@pytest.mark.parametrize("stream", _cases({**FINDINGS, **REFERENCE_FINDINGS}))
def test_every_stream_validates_and_passes_its_reference_drivers(
    stream: RecordedResponse, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "converted.yaml"
    picked = [] if stream.interaction is None else ["--interaction", str(stream.interaction)]
    code, _, err = run_cli(capsys, "convert", stream.path, "-o", str(scenario), *picked)
    if code == 2:
        raise WireError(stream.path, 1, err)  # what the finding expects
    assert code == 0, err
    assert run_cli(capsys, "validate", str(scenario))[0] == 0
    for adapter in (
        f"driver-{stream.dialect}-reference",
        f"driver-{stream.dialect}-bytes-reference",
    ):
        code, out, _ = run_cli(capsys, "run", str(scenario), "--adapter", adapter)
        assert code == 0, out


def test_the_header_says_what_the_stream_holds() -> None:
    path = REAL / "openllmetry/test_open_ai_function_calls_tools_streaming_parallel.yaml"
    document = yaml.safe_load(convert_recording(path, interaction=1))
    assert document["id"] == "test_open_ai_function_calls_tools_streaming_parallel-1"
    assert "2 tool calls (get_current_weather, get_current_weather)" in document["description"]
    assert document["source"].startswith(f"recorded: {path}, interaction 1 (https://")
    assert "/chat/completions" in document["source"]
    assert (document["layer"], document["tags"]) == ("driver", ["recorded"])


def test_the_canonical_view_follows_the_body_as_comments() -> None:
    path = REAL / "anthropic-sdk-python/tool_use_response.txt"
    text = convert_recording(path, id="weather")
    body_at = text.index("  body: |-\n")
    view = text[text.index("# The canonical turn") :]
    assert body_at < text.index("# The canonical turn")
    assert all(line.startswith("#") for line in view.splitlines())
    assert "message_start" in view and "arguments_delta" in view
    assert "#   tool call get_weather" in view and "(valid)" in view
    assert "#   turn end: tool_use" in view
    document = yaml.safe_load(text)
    assert document["id"] == "weather"
    assert "no line end after the last event" in document["description"]


def test_awkward_bodies_keep_every_byte(tmp_path: Path) -> None:
    # CRLF, trailing spaces, a leading space, a tab, no final newline: never a literal block
    # that loses them
    body = ' data: {"type":"ping"} \r\n\r\n\tdata: {"type":"ping"}\\"x\u2028'
    field = _body_field(body)
    assert yaml.safe_load("wire:\n" + field + "\n# after\n")["wire"]["body"] == body
    crlf = REAL / "pydantic-ai/test_google_model_iter_stream.yaml"
    text = convert_recording(crlf, interaction=2)
    assert '  body: "data: ' in text and "\\r\\n\\\n" in text  # one body line a file line
    assert yaml.safe_load(text)["wire"]["body"] == recorded_streams(crlf)[2].body


@given(
    st.text(alphabet=st.sampled_from('da :{}"\\\n\r\t x\u00e9\u2028\x00\x85\ufeff'), max_size=40)
)
def test_any_body_loads_back_exactly(body: str) -> None:
    field = _body_field(body)
    assert yaml.safe_load("wire:\n" + field + "\n# after\n")["wire"]["body"] == body


def test_the_default_is_the_first_stream_and_stderr_names_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = REAL / "openllmetry/test_music_composer_handoff_hierarchy.yaml"
    out = tmp_path / "s.yaml"
    code, _, err = run_cli(capsys, "convert", str(path), "-o", str(out))
    assert code == 0
    assert yaml.safe_load(out.read_text())["source"].startswith(f"recorded: {path}, interaction 1")
    assert f"converted {path} interactions[1] (openai-responses)" in err
    assert "interaction 0: the body is empty" in err
    assert "interaction 2: openai-responses stream (--interaction 2)" in err
    assert f"written to {out}" in err


def test_stdout_and_refusing_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(REAL / "vercel-ai/groq-tool-call.chunks.txt")
    code, text, _ = run_cli(capsys, "convert", path, "-o", "-")
    assert code == 0 and text == convert_recording(path)
    out = tmp_path / "s.yaml"
    out.write_text("mine\n")
    code, _, err = run_cli(capsys, "convert", path, "-o", str(out))
    assert code == 2 and "exists; pass --force" in err and out.read_text() == "mine\n"
    assert run_cli(capsys, "convert", path, "-o", str(out), "--force")[0] == 0
    assert out.read_text() == text
    nested = tmp_path / "scenarios" / "recorded" / "s.yaml"  # its folder is made, as record's
    assert run_cli(capsys, "convert", path, "-o", str(nested))[0] == 0
    assert nested.read_text() == text


def _cassette(tmp_path: Path, body: str, content_type: str = "text/event-stream") -> Path:
    path = tmp_path / "c.yaml"
    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.example/v1/chat/completions",
            "body": None,
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": [content_type]},
            "body": {"string": body},
        },
    }
    path.write_text(yaml.safe_dump({"version": 1, "interactions": [interaction]}))
    return path


CHUNK = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "hi"}}]}


def test_bad_input_is_exit_2_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases: dict[str, tuple[Path, str]] = {}
    truncated = tmp_path / "truncated.txt"
    # cut inside an event that its blank line still ends (an event the body ends before its
    # blank line is discarded, as the SSE rules say, and is no error)
    truncated.write_text(
        f'data: {json.dumps(CHUNK)}\n\ndata: {{"object": "chat.completion.chunk", "choi\n\n'
    )
    cases["truncated"] = (truncated, f"{truncated}:3: error:")
    cases["not streamed"] = (
        _cassette(tmp_path, json.dumps(CHUNK), "application/json"),
        "not a stream that can replay: not a streamed response (content type 'application/json')",
    )
    junk = tmp_path / "junk.bin"
    junk.write_bytes(gzip.compress(b"data: x\n\n" * 10))
    cases["binary junk"] = (junk, f"{junk}:1: error: the recording is not UTF-8 text")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
            for p, n in zip("abcdef", "bcdefg", strict=True)
        )
    )
    cases["YAML bomb"] = (bomb, "aliases expanded")
    unknown = tmp_path / "unknown.txt"
    unknown.write_text('data: {"hello": "world"}\n\n')
    cases["unknown dialect"] = (
        unknown,
        "looks like no dialect the harness knows; give one with --dialect",
    )
    misshapen = tmp_path / "misshapen.txt"
    misshapen.write_text(f'data: {json.dumps(CHUNK)}\n\ndata: {{"choices": "none"}}\n\n')
    cases["rejected by the decoder"] = (misshapen, f"{misshapen}:3: error: choices should be list")
    empty = tmp_path / "empty.yaml"
    empty.write_text("version: 1\ninteractions: []\n")
    cases["no interaction"] = (empty, f"{empty}:1: error: the cassette holds no interaction")
    for name, (path, expected) in cases.items():
        code, out, err = run_cli(capsys, "convert", str(path), "-o", "-")
        assert (code, out) == (2, ""), name
        assert expected in err, (name, err)
        assert "Traceback" not in err and err.startswith(str(path)), (name, err)


def test_asking_for_what_is_not_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(REAL / "openllmetry/test_music_composer_handoff_hierarchy.yaml")
    code, _, err = run_cli(capsys, "convert", path, "-o", "-", "--interaction", "3")
    assert code == 2
    assert err.strip().endswith("interaction 3 is not a stream that can replay: the body is empty")
    assert err.startswith(f"{path}:")
    code, _, err = run_cli(capsys, "convert", path, "-o", "-", "--interaction", "7")
    assert code == 2 and "has 5 interactions (0 to 4); there is no interaction 7" in err


def test_a_stream_that_ends_in_the_servers_error_converts_to_a_turn_without_an_end() -> None:
    # Groq's `event: error` (tool_use_failed) after 100 chunks of reasoning
    path = REAL / "pydantic-ai/test_tool_use_failed_error_streaming.yaml"
    text = convert(path).text
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert any(
        line.endswith(
            'error error_type="invalid_request_error" message="Tool call validation '
            "failed: tool call validation failed: parameters for tool get_something_by_name did "
            "not match schema: errors: [missing properties: 'name', additionalProperties "
            "'nonexistent' not allowed]\""
        )
        for line in comments
    ), comments[-5:]
    assert comments[-1] == "#   the error (raised or reported), and no turn end"
    assert "turn end:" not in text
    assert "the server reports an error mid-stream (invalid_request_error)" in " ".join(
        yaml.safe_load(text)["description"].split()
    )


def test_a_dialect_given_reads_an_unrecognised_body(tmp_path: Path) -> None:
    body = f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': 'hi'}}]})}\n\n"
    path = tmp_path / "gateway.sse"
    path.write_text(body)
    with pytest.raises(WireError, match="give one with --dialect"):
        convert_recording(path)
    text = convert_recording(path, dialect="openai-chat")
    assert yaml.safe_load(text)["wire"] == {"dialect": "openai-chat", "body": body}
    with pytest.raises(UsageError, match="unknown dialect 'nope'"):
        convert_recording(path, dialect="nope")
    with pytest.raises(UsageError, match="--id 'Not An Id'"):
        convert_recording(path, dialect="openai-chat", id="Not An Id")
    anthropic = REAL / "anthropic-sdk-python/tool_use_response.txt"
    with pytest.raises(WireError, match="read as openai-chat the body holds nothing of a turn"):
        convert_recording(anthropic, dialect="openai-chat")
