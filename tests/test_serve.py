"""``harness serve``: real clients over real sockets on loopback, no mock of the server."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import httpx
import pytest

from harness._errors import ScenarioError, UsageError, WireError
from harness.adapters.libs._offline import http_module
from harness.adapters.registry import AdapterInfo
from harness.cli import main as harness_main
from harness.codecs import dialects
from harness.model.driver import turn_facts
from harness.replay import replay
from harness.scenario.cases import select_cases
from harness.standin import Cut, Drop, Split, Stall, parse_fault, serving
from harness.wire import parse_json_array_stream, read_cassette
from tests.scenarios_for_tests import LIBRARY, ROOT, library_driver

PARALLEL = library_driver("parallel-calls")
PARALLEL_PATH = str(LIBRARY / "driver" / "parallel-calls.yaml")
CASSETTES = ROOT / "cassettes" / "real-traffic"


def wire_chunks(dialect: str, quirks: tuple[str, ...] = ()) -> list[bytes]:
    """The scenario's turn as the dialect's codec writes it."""
    codec = dialects()[dialect]
    return [c.data.encode() for c in codec.encode(PARALLEL.turn, (*PARALLEL.quirks, *quirks))]


@dataclass
class Raw:
    """One exchange read off the socket, HTTP chunk by HTTP chunk."""

    status: int
    headers: dict[str, str]
    chunks: list[bytes]
    arrived: list[float]  # when each chunk was read (time.monotonic)
    terminated: bool  # the zero-length chunk came


def raw_post(url: str, path: str = "/v1/messages", body: bytes = b"{}") -> Raw:
    """POST and read the chunked body by hand: each HTTP chunk as the server framed it."""
    address = urlsplit(url)
    assert address.hostname is not None and address.port is not None
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {address.netloc}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with sock.makefile("rb") as reader:
            status = int(reader.readline().split()[1])
            headers = {}
            while line := reader.readline().strip():
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            chunks: list[bytes] = []
            arrived: list[float] = []
            while size_line := reader.readline():
                size = int(size_line.strip(), 16)
                if size == 0:
                    reader.readline()
                    return Raw(status, headers, chunks, arrived, True)
                chunks.append(reader.read(size))
                arrived.append(time.monotonic())
                assert reader.readline() == b"\r\n"
            return Raw(status, headers, chunks, arrived, False)


# -- real clients ---------------------------------------------------------------------------------


def expected_calls() -> list[tuple[str, str, object]]:
    return [(c.id, c.name, json.loads(c.arguments)) for c in turn_facts(PARALLEL.turn).calls]


def expected_text() -> str:
    return "".join(text for _, text in turn_facts(PARALLEL.turn).texts)


def test_the_anthropic_sdk_streams_a_served_scenario() -> None:
    anthropic = pytest.importorskip("anthropic")
    with (
        serving(PARALLEL_PATH, dialect="anthropic") as stand,
        anthropic.Anthropic(base_url=stand.url, api_key="unused", max_retries=0) as client,
    ):
        with client.messages.stream(
            model="any", max_tokens=100, messages=[{"role": "user", "content": "go"}]
        ) as stream:
            texts = [event.text for event in stream if event.type == "text"]
            message = stream.get_final_message()
        received = stand.requests
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert calls == expected_calls() and len(calls) == 2
    assert "".join(texts) == expected_text()
    assert message.stop_reason == "tool_use"
    assert [(r.method, r.path) for r in received] == [("POST", "/v1/messages")]
    assert received[0].json()["stream"] is True
    assert received[0].header("content-type") == "application/json"


def test_the_openai_sdk_streams_a_served_chat_completion() -> None:
    openai = pytest.importorskip("openai")
    with (
        serving(PARALLEL_PATH, dialect="openai-chat") as stand,
        openai.OpenAI(base_url=f"{stand.url}/v1", api_key="unused", max_retries=0) as client,
    ):
        with client.chat.completions.stream(
            model="any", messages=[{"role": "user", "content": "go"}]
        ) as stream:
            completion = stream.get_final_completion()
        assert [r.path for r in stand.requests] == ["/v1/chat/completions"]
    message = completion.choices[0].message
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    assert calls == expected_calls()
    assert message.content == expected_text()


def test_the_openai_sdk_streams_a_served_response() -> None:
    openai = pytest.importorskip("openai")
    with (
        serving(PARALLEL_PATH, dialect="openai-responses") as stand,
        openai.OpenAI(base_url=f"{stand.url}/v1", api_key="unused", max_retries=0) as client,
    ):
        with client.responses.stream(model="any", input="go") as stream:
            response = stream.get_final_response()
        assert [r.path for r in stand.requests] == ["/v1/responses"]
    calls = [
        (item.call_id, item.name, json.loads(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]
    assert calls == expected_calls()
    assert response.output_text == expected_text()


def test_plain_httpx_reads_the_body_chunk_by_chunk() -> None:
    with (
        serving(PARALLEL_PATH, dialect="openai-chat") as stand,
        httpx.Client() as client,
        client.stream("POST", f"{stand.url}/anything?x=1", json={"q": 1}) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream"
        assert response.headers["transfer-encoding"] == "chunked"
        body = b"".join(response.iter_raw())
        (request,) = stand.requests
    assert body == b"".join(wire_chunks("openai-chat"))
    assert (request.method, request.path, request.query) == ("POST", "/anything", "x=1")
    assert request.json() == {"q": 1}


def test_the_content_type_is_the_codecs() -> None:
    with serving(PARALLEL_PATH, dialect="gemini-json-array") as stand:
        raw = raw_post(stand.url, "/v1beta/models/m:streamGenerateContent")
    assert raw.headers["content-type"] == "application/json"
    assert raw.chunks == wire_chunks("gemini-json-array")
    assert json.loads(b"".join(raw.chunks))  # the chunks make one JSON array


def test_keep_alive_serves_one_request_after_another() -> None:
    with serving(PARALLEL_PATH) as stand, httpx.Client() as client:
        first = client.post(f"{stand.url}/v1/messages", json={})
        second = client.post(f"{stand.url}/v1/messages", json={})
    assert first.content == second.content == b"".join(wire_chunks("anthropic"))
    assert len(stand.requests) == 2


def test_only_posts_are_answered_with_the_stream() -> None:
    with serving(PARALLEL_PATH) as stand, httpx.Client() as client:
        response = client.get(f"{stand.url}/v1/messages")
    assert response.status_code == 404
    assert response.json()["error"]["served"] == ["POST (any path)"]


# -- chunk boundaries and faults ------------------------------------------------------------------


def test_one_http_chunk_per_wire_chunk() -> None:
    with serving(PARALLEL_PATH, dialect="anthropic") as stand:
        raw = raw_post(stand.url)
    assert raw.status == 200 and raw.terminated
    assert raw.chunks == wire_chunks("anthropic")
    assert len(raw.chunks) == 16


def test_split_sends_one_chunk_as_two_cut_inside_the_event() -> None:
    chunks = wire_chunks("anthropic")
    with serving(PARALLEL_PATH, faults=["split:4"]) as stand:
        raw = raw_post(stand.url)
    assert raw.chunks[:3] == chunks[:3] and raw.chunks[5:] == chunks[4:]
    first, second = raw.chunks[3:5]
    assert first + second == chunks[3] and first and second
    assert not first.endswith(b"\n\n")  # the boundary falls inside the event


def test_a_split_event_still_reaches_the_sdk_whole() -> None:
    anthropic = pytest.importorskip("anthropic")
    faults = [Split(n) for n in range(1, 17)]  # every event across two HTTP chunks
    with (
        serving(PARALLEL, dialect="anthropic", faults=faults) as stand,
        anthropic.Anthropic(base_url=stand.url, api_key="unused", max_retries=0) as client,
        client.messages.stream(
            model="any", max_tokens=100, messages=[{"role": "user", "content": "go"}]
        ) as stream,
    ):
        message = stream.get_final_message()
    assert [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"] == (
        expected_calls()
    )


def test_drop_never_sends_the_chunk() -> None:
    chunks = wire_chunks("openai-chat")
    with serving(PARALLEL_PATH, dialect="openai-chat", faults=["drop:2"]) as stand:
        raw = raw_post(stand.url)
    assert raw.terminated
    assert raw.chunks == [chunks[0], *chunks[2:]]


def test_cut_closes_the_connection_without_the_last_chunk() -> None:
    chunks = wire_chunks("anthropic")
    with serving(PARALLEL_PATH, faults=["cut:5"]) as stand:
        raw = raw_post(stand.url)
    assert raw.chunks == chunks[:5]
    assert not raw.terminated


def test_a_cut_stream_is_an_error_in_the_sdk() -> None:
    anthropic = pytest.importorskip("anthropic")
    transport = http_module(anthropic.DefaultHttpxClient)
    with (
        serving(PARALLEL_PATH, faults=[Cut(5)]) as stand,
        anthropic.Anthropic(base_url=stand.url, api_key="unused", max_retries=0) as client,
        pytest.raises(transport.RemoteProtocolError, match="incomplete chunked read"),
        client.messages.stream(
            model="any", max_tokens=100, messages=[{"role": "user", "content": "go"}]
        ) as stream,
    ):
        stream.get_final_message()


def test_stall_pauses_before_the_chunk() -> None:
    with serving(PARALLEL_PATH, faults=["stall:3:0.6"]) as stand:
        raw = raw_post(stand.url)
    assert raw.chunks == wire_chunks("anthropic")
    gaps = [b - a for a, b in zip(raw.arrived, raw.arrived[1:], strict=False)]
    assert gaps[1] >= 0.5  # between chunk 2 and chunk 3
    assert max(gaps[:1] + gaps[2:]) < gaps[1]


def test_closing_the_stand_in_ends_a_stalled_response() -> None:
    with contextlib.ExitStack() as sockets:
        with serving(PARALLEL_PATH, faults=[Stall(2, 60)]) as stand:
            sock = sockets.enter_context(socket.create_connection((stand.host, stand.port), 30))
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            received = sock.recv(65536)
            closing = time.monotonic()
        assert time.monotonic() - closing < 4  # not the 60 s the stall asked for
        while data := sock.recv(65536):
            received += data
    assert received.startswith(b"HTTP/1.1 200") and not received.endswith(b"0\r\n\r\n")
    with pytest.raises(OSError), socket.create_connection((stand.host, stand.port), timeout=5):
        pass


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("stall:3:0.5", Stall(3, 0.5)),
        ("cut:0", Cut(0)),
        ("drop:2", Drop(2)),
        ("split:1", Split(1)),
    ],
)
def test_faults_parse_and_print_back(text: str, fault: object) -> None:
    assert parse_fault(text) == fault
    assert str(fault) == text


@pytest.mark.parametrize(
    "text", ["stall:3", "cut", "drop:x", "split:0", "stall:1:-2", "stall:1:nan", "pause:1", ""]
)
def test_bad_fault_syntax_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError):
        parse_fault(text)


def test_a_fault_past_the_stream_is_a_usage_error() -> None:
    with (
        pytest.raises(UsageError, match="only 16 chunks"),
        serving(PARALLEL_PATH, faults=["drop:17"]),
    ):
        pass


# -- recordings -----------------------------------------------------------------------------------


def test_a_cassette_is_served_back_as_recorded_in_order() -> None:
    path = CASSETTES / "llm" / "test_tool_use_basic.yaml"
    recorded = read_cassette(path)
    with serving(path) as stand, httpx.Client() as client:
        bodies = [client.post(f"{stand.url}/v1/chat/completions", json={}) for _ in range(2)]
        missing = client.post(f"{stand.url}/v1/embeddings", json={})
    assert [b.content for b in bodies] == [
        recorded[0].response_body.encode(),
        recorded[1].response_body.encode(),
    ]
    assert bodies[0].headers["content-type"] == "text/event-stream; charset=utf-8"
    assert bodies[0].headers["x-request-id"] == recorded[0].header("x-request-id")[0]
    assert missing.status_code == 404
    assert missing.json()["error"]["served"] == ["POST /v1/chat/completions"]


def test_a_request_past_the_recorded_ones_is_a_404_that_says_so() -> None:
    # an agent loop's second request, or a client's retry, must not get the first answer again
    path = CASSETTES / "openllmetry" / "test_anthropic_tools_streaming_legacy.yaml"
    (recorded,) = read_cassette(path)
    with serving(path) as stand, httpx.Client() as client:
        first = client.post(f"{stand.url}/v1/messages", json={})
        second = client.post(f"{stand.url}/v1/messages", json={})
    assert (first.status_code, first.content) == (200, recorded.response_body.encode())
    assert second.status_code == 404
    error = second.json()["error"]
    assert error["message"] == (
        "the recording has 1 response for POST /v1/messages, and this is request 2 for them: "
        "there is no response 2 to serve"
    )
    assert error["served"] == ["POST /v1/messages"]


def test_the_anthropic_sdk_learns_that_the_recording_has_no_second_response() -> None:
    anthropic = pytest.importorskip("anthropic")
    path = CASSETTES / "openllmetry" / "test_anthropic_tools_streaming_legacy.yaml"
    with serving(path) as stand:
        with anthropic.Anthropic(base_url=stand.url, api_key="unused", max_retries=2) as client:
            ask = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}
            with client.messages.stream(**ask) as stream:
                stream.get_final_message()
            with pytest.raises(anthropic.NotFoundError, match="there is no response 2 to serve"):
                client.messages.create(**ask)
        assert len(stand.requests) == 2  # a 404 is not retried


def test_a_gzip_cassette_is_served_decompressed_in_events() -> None:
    path = CASSETTES / "llm-anthropic" / "test_tools.yaml"
    recorded = read_cassette(path)[0]
    with serving(path) as stand:
        raw = raw_post(stand.url)
    assert b"".join(raw.chunks) == recorded.response_body.encode()
    assert "content-encoding" not in raw.headers and "content-length" not in raw.headers
    assert all(chunk.endswith(b"\n\n") for chunk in raw.chunks[:-1])
    assert len(raw.chunks) == recorded.response_body.count("\n\n")


def test_a_streamed_json_array_is_cut_at_its_elements() -> None:
    path = CASSETTES / "llm-gemini" / "test_tools.yaml"
    recorded = read_cassette(path)[0]
    with serving(path) as stand:
        raw = raw_post(stand.url, urlsplit(recorded.request_uri).path)
    assert b"".join(raw.chunks) == recorded.response_body.encode()
    # the first element with the "[", each other from its comma, the last with the "]"
    elements = parse_json_array_stream(recorded.response_body, recorded.response_source)
    assert len(raw.chunks) == len(elements) > 1 and raw.chunks[0].startswith(b"[{")
    assert all(c.startswith(b",") for c in raw.chunks[1:]) and raw.chunks[-1].rstrip().endswith(
        b"]"
    )
    assert all(json.loads(c.strip().lstrip(b"[,").rstrip(b"]")) for c in raw.chunks)


def test_a_raw_recorded_body_is_served_as_recorded() -> None:
    path = CASSETTES / "anthropic-sdk-python" / "tool_use_response.txt"
    with serving(path) as stand:
        raw = raw_post(stand.url)
    assert b"".join(raw.chunks) == path.read_bytes()
    assert raw.headers["content-type"] == "text/event-stream"


def test_a_recorded_scenario_is_served_as_its_recording() -> None:
    scenario = library_driver("recorded-anthropic-tool-use")
    with serving(scenario) as stand:
        raw = raw_post(stand.url)
    assert [c.decode() for c in raw.chunks] == [text for text, _ in scenario.raw_wire]


# -- quirks and dialects --------------------------------------------------------------------------


class Recorder:
    """A driver that reads its whole stream and keeps what it was fed."""

    layers = ("driver",)
    fed: ClassVar[list[str]] = []
    #: fed every shape, those sent only on request too
    asks_for = ("stream_function_call_arguments",)

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    def drive(self, chunks: Iterator[str]) -> Iterator[object]:
        Recorder.fed = list(chunks)
        yield from ()


@pytest.mark.parametrize(
    ("dialect", "quirks"),
    [
        ("openai-chat", ("no_index",)),
        ("openai-chat", ("same_index", "keep_alive")),
        ("anthropic", ("crlf",)),
        ("gemini-sse", ("streamed_args",)),
    ],
)
def test_a_quirk_serves_what_the_harness_feeds_a_driver_in_that_case(
    dialect: str, quirks: tuple[str, ...]
) -> None:
    (case,) = select_cases(PARALLEL, dialects()[dialect], quirks)
    result = replay(case, AdapterInfo("recorder", "driver", "reference", lambda: Recorder(dialect)))
    assert result.status != "error", result.error
    with serving(PARALLEL_PATH, dialect=dialect, quirks=quirks) as stand:
        raw = raw_post(stand.url)
        assert "quirks " + "+".join(quirks) in stand.summary
    assert raw.chunks == [text.encode() for text in Recorder.fed]
    assert raw.chunks != wire_chunks(dialect)


def test_the_default_dialect_is_the_first_that_carries_the_scenario() -> None:
    with serving(PARALLEL_PATH, quirks=["no_index"]) as stand:
        assert "dialect openai-chat" in stand.summary


def test_a_dialect_that_cannot_carry_the_scenario_is_a_usage_error() -> None:
    scenario = library_driver("recorded-anthropic-tool-use")
    with (
        pytest.raises(UsageError, match="runs in anthropic, not openai-chat"),
        serving(scenario, dialect="openai-chat"),
    ):
        pass
    with (
        pytest.raises(UsageError, match="no dialect 'klingon'"),
        serving(PARALLEL, dialect="klingon"),
    ):
        pass


# -- the command line -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_command_serves_until_terminated() -> None:
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "harness", "serve", PARALLEL_PATH, "--port", "0"),
            *("--header", "openai-organization: org-served"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:")
        assert line.rstrip().endswith(f"({PARALLEL_PATH}, dialect anthropic, 16 chunks)")
        url = line.split()[1]
        response = httpx.post(f"{url}/v1/messages", json={}, timeout=30)
        assert response.content == b"".join(wire_chunks("anthropic"))
        assert response.headers["openai-organization"] == "org-served"
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert errors == ""


@pytest.mark.slow
def test_the_command_serves_a_library_scenario_by_its_library_name(tmp_path: Path) -> None:
    # as `harness run` and `harness show` take it, from a folder that has no scenarios/ of its own
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "serve", "harness-library/driver/parallel-calls.yaml"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:"), process.communicate(timeout=30)
        response = httpx.post(f"{line.split()[1]}/v1/messages", json={}, timeout=30)
        assert response.content == b"".join(wire_chunks("anthropic"))
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert (process.returncode, errors) == (0, "")


def bomb(tmp_path: Path) -> Path:
    path = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    path.write_text("\n".join(lines) + "\n")
    return path


def cassette_bomb(tmp_path: Path) -> Path:
    path = bomb(tmp_path)
    path.write_text(path.read_text() + "interactions: []\nversion: 1\n")
    return path


def no_stream(tmp_path: Path) -> Path:
    path = tmp_path / "plain.yaml"
    path.write_text(
        "interactions:\n- request: {method: POST, uri: 'https://x/v1', body: '{}', headers: {}}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        "    headers: {Content-Type: [application/json]}\n"
        "    body: {string: '{\"ok\": true}'}\n"
        "version: 1\n"
    )
    return path


def junk(tmp_path: Path) -> Path:
    path = tmp_path / "junk.bin"
    path.write_bytes(bytes(range(256)) * 4)
    return path


def truncated_sse(tmp_path: Path) -> Path:
    path = tmp_path / "cut.txt"
    whole = (CASSETTES / "anthropic-sdk-python" / "tool_use_response.txt").read_text()
    path.write_text(whole[: len(whole) // 2])
    return path


def truncated_array(tmp_path: Path) -> Path:
    path = tmp_path / "cut.json"
    path.write_text('[{"candidates": []}\n,\r\n{"candid')
    return path


def missing(tmp_path: Path) -> Path:
    return tmp_path / "nowhere.yaml"


def session_scenario(tmp_path: Path) -> Path:
    return LIBRARY / "session" / "tool-first-turn.yaml"


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (missing, ScenarioError),
        (bomb, ScenarioError),
        (cassette_bomb, WireError),
        (no_stream, WireError),
        (junk, WireError),
        (truncated_sse, WireError),
        (truncated_array, WireError),
        (session_scenario, UsageError),
    ],
)
def test_bad_input_is_a_located_error(make, error, tmp_path: Path, capsys) -> None:
    path = make(tmp_path)
    with pytest.raises(error, match=str(path.name)), serving(path):
        pass
    assert harness_main(["serve", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err


def test_a_header_without_its_colon_is_exit_2(capsys) -> None:
    assert harness_main(["serve", PARALLEL_PATH, "--header", "x-served"]) == 2
    assert "--header 'x-served': give it as 'NAME: VALUE'" in capsys.readouterr().err


def test_a_bad_fault_on_the_command_line_is_exit_2(capsys) -> None:
    assert harness_main(["serve", PARALLEL_PATH, "--fault", "cut:many"]) == 2
    assert "cut:N" in capsys.readouterr().err
