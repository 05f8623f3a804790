"""A recorded response replayed through vcrpy and the provider's SDK gives what the direct replay
into a driver adapter gives, and what the recording says; where they differ, the recording is
listed here with why."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import UsageError
from harness.cli import main
from harness.codecs import dialects
from harness.model.driver import UNKNOWN_REASON, turn_facts
from harness.wire import WireError
from harness.wire.recordings import RecordedResponse
from harness.wirereplay import (
    SDKS,
    Replayed,
    ReplayedCall,
    SdkReplay,
    Unparsed,
    recorded_stream,
    replay_direct,
    replay_through_sdk,
)
from tests.heap import frozen
from tests.scenarios_for_tests import streams_of

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "cassettes" / "real-traffic"
TOOLS = REAL / "llm-anthropic" / "test_tools.yaml"


def sdk_streams() -> list[RecordedResponse]:
    """Every anthropic / openai-chat / openai-responses stream of the real traffic."""
    found: list[RecordedResponse] = []
    for path in sorted(REAL.rglob("*")):
        if path.suffix in (".yaml", ".bin", ".txt"):
            found.extend(s for s in streams_of(path) if s.dialect in SDKS)
    return found


STREAMS = sdk_streams()


def key(stream: RecordedResponse) -> str:
    name = Path(stream.path).relative_to(REAL).as_posix()
    return name if stream.interaction is None else f"{name}[{stream.interaction}]"


def as_cassette(stream: RecordedResponse, folder: Path) -> Path:
    """A raw body wrapped into a stock vcrpy cassette, requested at its dialect's URL."""
    path = folder / "wrapped.yaml"
    interaction = {
        "request": {
            "method": "POST",
            "uri": SDKS[stream.dialect or ""].default_url,
            "body": None,
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["text/event-stream"]},
            "body": {"string": stream.body},
        },
    }
    path.write_text(yaml.safe_dump({"version": 1, "interactions": [interaction]}), "utf-8")
    return path


def recording_says(stream: RecordedResponse) -> Replayed:
    """What the recording holds, as the dialect's codec reads it: every text block's text, every
    tool call, and the stop reason the turn ends with."""
    facts = turn_facts(dialects()[stream.dialect or ""].decode(stream.body, source=stream.source))
    calls = tuple(ReplayedCall(call.id, call.name, parsed(call.arguments)) for call in facts.calls)
    return Replayed("".join(text for _, text in facts.texts), calls, facts.final_reason)


def parsed(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return Unparsed(arguments)


# Where the SDK's user sees something else than the recording says, and why. Each maps what the
# recording says (and the stream) to what the SDK hands over.
SDK_DIFFERS: dict[str, tuple[str, Callable[[Replayed, RecordedResponse], Replayed]]] = {
    "anthropic-sdk-python/incomplete_partial_json_response.txt": (
        "the body ends without the blank line after its last event (message_stop), so the SDK's "
        "SSE decoder never dispatches it: no turn end; and the call cut by max_tokens has no "
        "content_block_stop, where the SDK hands a tool use over",
        lambda says, _: dataclasses.replace(says, tool_calls=(), stop_reason=None),
    ),
    "anthropic-sdk-python/tool_use_response.txt": (
        "the body ends without the blank line after message_stop, so the SDK never dispatches "
        "it: no turn end",
        lambda says, _: dataclasses.replace(says, stop_reason=None),
    ),
    "llm/test_tools_streaming_variant_a.yaml[0]": (
        "the gateway (Novita via OpenRouter) never sends a finish_reason: the SDK hands a call "
        "over when its choice finishes, so never, and its choice never has a finish_reason to "
        "end the turn with",
        lambda says, _: dataclasses.replace(says, tool_calls=(), stop_reason=None),
    ),
}

#: recordings whose stream reports an error: the SDK raises APIError, and the reference reports
#: the error (test_a_stream_reporting_an_error_replays_as_that_error_both_ways)
SDK_RAISES = {"pydantic-ai/test_tool_use_failed_error_streaming.yaml[0]": "APIError"}

#: recordings the SDK cannot request at all
SDK_CANNOT = {
    "openllmetry/test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml[0]": (
        "Writer's /v1/chat is Chat Completions shaped, but not at a path the openai SDK requests"
    ),
}


def direct_expected(says: Replayed, stream: RecordedResponse) -> Replayed:
    """What the reference driver of the stream's dialect emits: what the recording says (the
    Anthropic reference reports the end of a body whose message stopped for tool_use too)."""
    return says


@pytest.mark.slow
@pytest.mark.parametrize("stream", STREAMS, ids=key)
def test_sdk_and_direct_replays_agree(stream: RecordedResponse, tmp_path: Path) -> None:
    name = key(stream)
    path = stream.path if stream.interaction is not None else as_cassette(stream, tmp_path)
    interaction = stream.interaction or 0
    if name in SDK_CANNOT:
        with pytest.raises(Exception, match="cannot ask for"):
            replay_through_sdk(path, interaction)
        return
    if name in SDK_RAISES:
        sdk = replay_through_sdk(path, interaction)
        assert sdk.error_kind == SDK_RAISES[name] and not sdk.tool_calls
        return
    says = recording_says(stream)
    sdk = replay_through_sdk(path, interaction)
    direct = replay_direct(path, interaction)
    through_lib = replay_direct(
        path, interaction, adapter=f"{SDKS[stream.dialect or ''].module}:make_adapter"
    )
    # the same SDK code over vcrpy, or fed the body cut anywhere by the harness
    assert sdk == through_lib
    assert direct == direct_expected(says, stream)
    explained = SDK_DIFFERS.get(name)
    expected = says if explained is None else explained[1](says, stream)
    if stream.dialect == "openai-responses" and expected.stop_reason in ("end_turn", "tool_use"):
        # a completed Response says no stop reason: the SDK's user sees none (the reason the
        # recording says is what its output items imply)
        expected = dataclasses.replace(expected, stop_reason=UNKNOWN_REASON)
    assert sdk == expected
    assert (sdk.dialect, sdk.via, direct.via) == (
        stream.dialect,
        "sdk",
        f"driver-{stream.dialect}-reference",
    )


def test_every_explained_recording_exists() -> None:
    names = {key(s) for s in STREAMS}
    assert set(SDK_DIFFERS) | set(SDK_CANNOT) | set(SDK_RAISES) <= names
    assert len(STREAMS) >= 25


def test_a_stream_reporting_an_error_replays_as_that_error_both_ways() -> None:
    # Groq's `event: error` (tool_use_failed) after the reasoning: no call, no turn end
    path = REAL / "pydantic-ai" / "test_tool_use_failed_error_streaming.yaml"
    direct, sdk = replay_direct(path, 0), replay_through_sdk(path, 0)
    for replayed, raised in ((direct, "ErrorReport: invalid_request_error: "), (sdk, "APIError: ")):
        assert (replayed.text, replayed.tool_calls, replayed.stop_reason) == ("", (), None)
        assert replayed.error is not None
        assert replayed.error.startswith(raised + "Tool call validation failed"), replayed.error


def test_a_raw_body_is_served_at_its_dialects_url() -> None:
    body = "2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin"
    path = REAL / "openai-python" / body  # no cassette, no URL: the SDK asks api.openai.com
    sdk = replay_through_sdk(path)
    assert [call.name for call in sdk.tool_calls] == ["get_weather"]
    assert sdk.stop_reason == "tool_use" and sdk.label == str(path)
    assert sdk == replay_direct(path)


def test_a_pydantic_ai_cassette_reaches_vcrpy_through_our_reader() -> None:
    path = REAL / "pydantic-ai" / "test_complex_agent_run.yaml"
    assert "parsed_body:" in path.read_text("utf-8")
    third = replay_through_sdk(path, 2)
    assert [call.name for call in third.tool_calls] == ["final_result"]
    assert third == replay_direct(path, 2)


def test_the_interaction_meant_is_the_one_answered() -> None:
    first, second = replay_through_sdk(TOOLS, 0), replay_through_sdk(TOOLS, 1)
    assert [c.name for c in first.tool_calls] == ["pelican_name_generator"] * 2
    assert not second.tool_calls and "pelican" in second.text
    assert replay_through_sdk(TOOLS) == first  # by default the first streamed one


def test_choosing_a_response_explains_what_cannot_replay(tmp_path: Path) -> None:
    with pytest.raises(
        Exception, match=r"has 2 interactions \(0 to 1\); there is no interaction 2"
    ):
        recorded_stream(TOOLS, 2)
    with pytest.raises(Exception, match="the body is empty"):
        recorded_stream(REAL / "openllmetry" / "test_music_composer_handoff_hierarchy.yaml", 0)
    notes = tmp_path / "notes.txt"
    notes.write_text("just some words\n", "utf-8")
    with pytest.raises(WireError, match="not a stream that can replay"):
        recorded_stream(notes)
    gemini = REAL / "llm-gemini" / "test_tools.yaml"
    with pytest.raises(Exception, match="anthropic, openai-chat, openai-responses only"):
        replay_through_sdk(gemini, 0)
    assert replay_direct(gemini, 0).tool_calls  # directly, every dialect replays


def test_a_request_vcrpy_cannot_answer_is_not_taken_for_the_sdks_error() -> None:
    replay = SdkReplay(recorded_stream(TOOLS, 0))
    replay.base_url += "/elsewhere"  # the SDK wraps vcrpy's refusal in APIConnectionError
    with pytest.raises(UsageError, match="vcrpy has no answer for the anthropic SDK's request"):
        replay.run()


def test_an_sdk_that_is_not_installed_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = dataclasses.replace(SDKS["anthropic"], package="no_such_sdk_installed")
    monkeypatch.setitem(SDKS, "anthropic", missing)
    with pytest.raises(Exception, match="'no_such_sdk_installed' SDK, which is not installed"):
        replay_through_sdk(TOOLS, 0)


@pytest.mark.slow
def test_bench_wire_prints_both_figures_and_the_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    small = REAL / "llm" / "test_tool_use_basic.yaml"
    with frozen():  # the bench collects before each timed run: not the whole worker's heap
        assert main(["bench", "--wire", str(small), "--interaction", "1", "--rounds", "2"]) == 0
    figures = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines())
    assert set(figures) == {
        "recording",
        "dialect",
        "interaction",
        "direct_adapter",
        "rounds",
        "sdk_seconds",
        "direct_seconds",
        "vcr_ratio",
    }
    assert (figures["dialect"], figures["interaction"], figures["rounds"]) == (
        "openai-chat",
        "1",
        "2",
    )
    assert figures["recording"].endswith("test_tool_use_basic.yaml interactions[1]")
    assert float(figures["vcr_ratio"]) > 0
    assert float(figures["sdk_seconds"]) > 0 and float(figures["direct_seconds"]) > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--wire", "README.md"], "not a stream that can replay"),
        (["--wire", "cassettes/real-traffic/llm-gemini/test_tools.yaml"], "openai-responses only"),
        (["--wire", str(TOOLS), "--interaction", "7"], "there is no interaction 7"),
        (["--wire", str(TOOLS), "--rounds", "0"], "--rounds must be at least 1"),
        (["--wire", str(TOOLS), "--events", "1000"], "does not go with --wire"),
        (["--interaction", "1"], "--interaction goes with --wire"),
        (["--wire", "no-such-cassette.yaml"], "cannot read the cassette"),
    ],
)
def test_bench_wire_refuses_bad_input(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["bench", *argv]) == 2
    assert message in capsys.readouterr().err
