"""The wire layer: reading recordings and framing streamed bodies.

Every expected value about a real recording below was read from the recording file itself
(with grep, or with ``yaml.safe_load`` and ``gzip`` for cassette bodies), never copied from
this layer's output. Lines in the synthetic inputs are counted by hand: a ``# L<n>`` comment
names the line of a cassette, ``\\n`` boundaries are counted for bodies.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]
from vcr.serializers import yamlserializer  # type: ignore[import-untyped]

from harness._errors import HarnessError
from harness.wire import (
    DONE,
    Interaction,
    SSEEvent,
    WireError,
    json_data,
    parse_json_array_stream,
    parse_jsonl,
    parse_sse,
    read_cassette,
)
from harness.wire import cassette as cassette_module

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "cassettes" / "real-traffic"

OPENAI_PARALLEL = (
    "openai-python/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"
)

#: Every recording copied from the shared collection (all but the Bedrock eventstream one).
RECORDINGS = [
    "anthropic-sdk-python/incomplete_partial_json_response.txt",
    "anthropic-sdk-python/tool_use_response.txt",
    "llm-anthropic/test_fixed_version_tool_chain_with_thinking_display_regression.yaml",
    "llm-anthropic/test_tools.yaml",
    "llm-anthropic/test_web_search.yaml",
    "llm-gemini/test_tools.yaml",
    "llm-gemini/test_tools_with_gemini_3_thought_signatures.yaml",
    "llm-gemini/test_tools_with_nested_pydantic_models.yaml",
    "llm/test_responses_tool_use_streaming.yaml",
    "llm/test_tool_use_basic.yaml",
    "llm/test_tools_streaming_variant_a.yaml",
    "llm/test_tools_streaming_variant_c.yaml",
    "openai-python/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin",
    "openai-python/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin",
    OPENAI_PARALLEL,
    "openllmetry/test_anthropic_tools_streaming_legacy.yaml",
    "openllmetry/test_music_composer_handoff_hierarchy.yaml",
    "openllmetry/test_open_ai_function_calls_tools_streaming_parallel.yaml",
    "openllmetry/test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml",
    "opentelemetry-python-contrib/test_chat_completion_multiple_tools_streaming_with_content.yaml",
    "pydantic-ai/test_complex_agent_run.yaml",
    "pydantic-ai/test_google_model_iter_stream.yaml",
    "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml",
    "pydantic-ai/test_openai_responses_streaming_usage.yaml",
    "pydantic-ai/test_tool_use_failed_error_streaming.yaml",
    "vercel-ai/deepseek-tool-call.chunks.txt",
    "vercel-ai/google-stream-tool-call-arguments.chunks.txt",
    "vercel-ai/groq-tool-call.chunks.txt",
    "vercel-ai/xai-tool-call.chunks.txt",
]
PYDANTIC_AI = [name for name in RECORDINGS if name.startswith("pydantic-ai/")]
STOCK_CASSETTES = [
    name for name in RECORDINGS if name.endswith(".yaml") and name not in PYDANTIC_AI
]


# -- helpers -------------------------------------------------------------------------------------


def frame_interaction(interaction: Interaction) -> list[Any]:
    """Frame a streamed response body by its content type, as a driver would."""
    content_type = ",".join(interaction.header("content-type"))
    if "text/event-stream" in content_type:
        events = parse_sse(interaction.response_body, source=interaction.response_source)
        return [json_data(event) for event in events]
    if "application/json" in content_type and "streamGenerateContent" in interaction.request_uri:
        chunks = parse_json_array_stream(interaction.response_body, interaction.response_source)
        return [chunk.value for chunk in chunks]
    assert interaction.response_status == 204 and interaction.response_body == ""
    return []


def frame_file(name: str) -> list[Any]:
    path = REAL / name
    if name.endswith(".yaml"):
        return [frame_interaction(i) for i in read_cassette(path)]
    if name.endswith(".chunks.txt"):
        return [chunk.value for chunk in parse_jsonl(path.read_bytes(), name)]
    return [json_data(event) for event in parse_sse(path.read_bytes(), source=name)]


def sse_file(name: str) -> tuple[SSEEvent, ...]:
    return parse_sse((REAL / name).read_bytes(), source=name)


def write(directory: Path, text: str, name: str = "cassette.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def wire_error(path: Path) -> WireError:
    with pytest.raises(WireError) as info:
        read_cassette(path)
    return info.value


# -- every recording reads and frames -----------------------------------------------------------


def test_the_folder_holds_exactly_the_in_scope_recordings_with_their_attribution() -> None:
    found = {p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file()}
    assert found == {*RECORDINGS, "NOTICE", "MANIFEST.md"}
    notice = (REAL / "NOTICE").read_text(encoding="utf-8")
    for name in RECORDINGS:
        assert name in notice, f"{name} has no attribution in NOTICE"
    assert "Copyright 2023 Anthropic, PBC." in notice
    assert "Copyright (c) Pydantic Services Inc." in notice
    assert "The above copyright notice and this permission notice shall be included" in notice
    assert "Apache License\n                           Version 2.0, January 2004" in notice
    manifest = (REAL / "MANIFEST.md").read_text(encoding="utf-8")
    rows = [line for line in manifest.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(RECORDINGS)  # the header row, then one row a recording


@pytest.mark.parametrize("name", RECORDINGS)
def test_every_recording_reads_and_frames_without_error(name: str) -> None:
    framed = frame_file(name)
    assert framed
    if name.endswith(".yaml"):
        streams = [units for units in framed if units]
        assert streams, "a cassette with no streamed response"
        units = [unit for stream in streams for unit in stream]
    else:
        units = framed
    assert all(unit is DONE or isinstance(unit, dict) for unit in units)


@pytest.mark.parametrize("name", STOCK_CASSETTES)
def test_stock_cassettes_read_as_vcrpy_itself_replays_them(name: str) -> None:
    requests, responses = FilesystemPersister.load_cassette(REAL / name, yamlserializer)[:2]
    interactions = read_cassette(REAL / name)
    assert len(interactions) == len(responses) == len(requests)
    for ours, request, response in zip(interactions, requests, responses, strict=True):
        body = response["body"]["string"]
        if "gzip" in ours.header("content-encoding"):
            body = gzip.decompress(body)
        assert ours.response_body == body.decode("utf-8")
        assert ours.response_status == response["status"]["code"]
        assert (ours.request_method, ours.request_uri) == (request.method, request.uri)
        assert ours.request_body == (request.body.decode() if request.body is not None else None)


@pytest.mark.parametrize("name", PYDANTIC_AI)
def test_pydantic_ai_cassettes_need_the_parsed_body_step(name: str) -> None:
    with pytest.raises(TypeError, match="parsed_body"):
        FilesystemPersister.load_cassette(REAL / name, yamlserializer)
    raw = yaml.safe_load((REAL / name).read_text(encoding="utf-8"))
    for ours, entry in zip(read_cassette(REAL / name), raw["interactions"], strict=True):
        assert ours.request_body is not None
        assert json.loads(ours.request_body) == entry["request"]["parsed_body"]


# -- what the recordings say (values read from the files) ---------------------------------------


def test_openai_two_parallel_tool_calls_then_a_usage_chunk_then_done() -> None:
    events = sse_file(OPENAI_PARALLEL)
    # 26 `data:` lines, one every other line: 1, 3, ..., 51 (grep -n '^data: ')
    assert [e.line for e in events] == list(range(1, 52, 2))
    assert all(e.event is None and e.terminated for e in events)
    chunks = [json_data(e) for e in events]
    starts = [
        (call["index"], call["id"], call["function"]["name"])
        for chunk in chunks
        if chunk is not DONE and chunk["choices"]
        for call in chunk["choices"][0]["delta"].get("tool_calls", [])
        if "id" in call
    ]
    assert starts == [
        (0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),  # line 3
        (1, "call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),  # line 27
    ]
    assert events[1].line == 3 and events[13].line == 27
    assert chunks[-3]["choices"][0]["finish_reason"] == "tool_calls"  # line 47
    assert chunks[-2]["choices"] == [] and chunks[-2]["usage"]["total_tokens"] == 209  # line 49
    assert chunks[-1] is DONE and events[-1].data == "[DONE]"  # line 51


def test_anthropic_ping_and_an_input_json_delta_split_mid_key() -> None:
    events = sse_file("anthropic-sdk-python/tool_use_response.txt")
    assert len(events) == 15  # 15 `event:` lines
    ping = events[2]
    assert (ping.event, ping.data, ping.line) == ("ping", '{"type": "ping"}', 7)
    data = [json_data(e) for e in events]
    assert (events[6].event, events[6].line) == ("content_block_start", 19)
    tool = data[6]["content_block"]  # line 20
    assert (tool["type"], tool["name"], tool["caller"]) == (
        "tool_use",
        "get_weather",
        {"type": "direct"},
    )
    fragments = [
        d["delta"]["partial_json"]
        for d in data
        if d["type"] == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    ]
    assert fragments == ["", '{"locati', 'on": "P', "ar", 'is"}']
    assert json.loads("".join(fragments)) == {"location": "Paris"}
    # the file ends right after `data: {"type":"message_stop"}`, with no line end at all
    assert events[-1].event == "message_stop" and not events[-1].terminated
    assert all(e.terminated for e in events[:-1])


def test_anthropic_max_tokens_cuts_the_tool_input_short() -> None:
    events = sse_file("anthropic-sdk-python/incomplete_partial_json_response.txt")
    assert len(events) == 16  # 16 `event:` lines
    data = [json_data(e) for e in events]
    # `data:` JSON padded with spaces, e.g. line 26: {"type":"content_block_stop","index":0 }
    assert any(re.search(r"\s+}$", e.data) for e in events)
    message_delta = next(d for d in data if d["type"] == "message_delta")  # line 44
    assert message_delta["delta"]["stop_reason"] == "max_tokens"
    fragments = [
        d["delta"]["partial_json"]
        for d in data
        if d["type"] == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    ]
    assert fragments[1] == '{"filename": "taxes.txt'  # line 35
    assert fragments[-1] == '\n"Filing taxes'  # line 41
    with pytest.raises(json.JSONDecodeError):
        json.loads("".join(fragments))
    assert events[-1].event == "message_stop" and not events[-1].terminated


def test_gemini_without_alt_sse_streams_a_json_array() -> None:
    interactions = read_cassette(REAL / "llm-gemini/test_tools.yaml")
    assert [i.line for i in interactions] == [2, 68, 125]  # the `- request:` lines
    first = interactions[0]
    assert first.request_uri.endswith(":streamGenerateContent")
    assert first.request_body is not None
    assert first.request_body.startswith(
        '{"contents":[{"role":"user","parts":[{"text":"Two names for a pet pelican"}]}]'
    )
    assert first.header("content-encoding") == ("gzip",)
    assert first.response_headers["Content-Encoding"] == ("gzip",)
    arrays = [parse_json_array_stream(i.response_body, i.response_source) for i in interactions]
    # the gunzipped bodies: elements start at lines 1 and 32; 1; 1 and 31 (grep -n '^\[{\|^{')
    assert [[c.line for c in chunks] for chunks in arrays] == [[1, 32], [1], [1, 31]]
    parts = [c.value["candidates"][0]["content"]["parts"][0] for c in arrays[0]]
    assert parts[0]["thought"] is True
    assert parts[1]["functionCall"] == {"name": "pelican_name_generator", "args": {}}
    assert parts[1]["thoughtSignature"].startswith("ClgBEU0y")
    second = arrays[1][0].value["candidates"][0]["content"]["parts"][0]
    assert second["functionCall"]["name"] == "pelican_name_generator"


def test_pydantic_ai_gemini_recordings_use_crlf_framing() -> None:
    for name, counts in [
        ("pydantic-ai/test_google_model_iter_stream.yaml", [1, 1, 2]),
        ("pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml", [2, 3]),
    ]:
        interactions = read_cassette(REAL / name)
        for interaction in interactions:
            body = interaction.response_body
            assert body.endswith("\r\n\r\n") and "\n" not in body.replace("\r\n", "")
        events = [parse_sse(i.response_body, source=i.response_source) for i in interactions]
        assert [len(e) for e in events] == counts
        assert all(e.terminated for stream in events for e in stream)
    first = read_cassette(REAL / "pydantic-ai/test_google_model_iter_stream.yaml")[0]
    (event,) = parse_sse(first.response_body, source=first.response_source)
    call = json_data(event)["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call == {"name": "get_capital", "args": {"country": "France"}}
    assert first.request_body is not None
    request = json.loads(first.request_body)
    assert request["contents"][0]["parts"][0]["text"] == (
        "What is the temperature of the capital of France?"
    )


def test_groq_sends_an_error_event_instead_of_done() -> None:
    interactions = read_cassette(REAL / "pydantic-ai/test_tool_use_failed_error_streaming.yaml")
    assert [i.line for i in interactions] == [2, 263, 394]
    streams = [parse_sse(i.response_body, source=i.response_source) for i in interactions]
    assert [len(s) for s in streams] == [101, 19, 14]
    failed = streams[0]
    assert [e.event for e in failed].count("error") == 1 and failed[-1].event == "error"
    assert all(e.event is None for e in failed[:-1])
    error = json_data(failed[-1])["error"]
    assert error["code"] == "tool_use_failed" and error["status_code"] == 400
    assert error["message"].startswith("Tool call validation failed")
    assert all(json_data(e) is not DONE for e in failed)
    assert json_data(streams[1][-1]) is DONE and json_data(streams[2][-1]) is DONE


def test_writer_streams_seven_calls_and_never_sends_done() -> None:
    (interaction,) = read_cassette(
        REAL / "openllmetry/test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml"
    )
    assert interaction.request_uri == "https://api.writer.com/v1/chat"
    chunks = [json_data(e) for e in parse_sse(interaction.response_body, source="writer")]
    assert len(chunks) == 24 and DONE not in chunks
    indices = {
        call["index"]
        for chunk in chunks
        if chunk["choices"]
        for call in chunk["choices"][0]["delta"].get("tool_calls") or []
    }
    assert indices == set(range(7))
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 365


def test_a_leading_space_turns_the_first_openrouter_line_into_an_unknown_field() -> None:
    first = read_cassette(REAL / "llm/test_tools_streaming_variant_c.yaml")[0]
    # the YAML string opens with a folded line break: the body starts " data: {...}"
    assert first.response_body.startswith(' data: {"id":"gen-1753248108')
    events = parse_sse(first.response_body, source=first.response_source)
    assert len(events) == 5 and events[0].line == 3
    call = json_data(events[0])["choices"][0]["delta"]["tool_calls"][0]
    assert (call["id"], call["function"]) == ("llm_version:0", {"name": "llm_version"})
    assert json_data(events[-1]) is DONE


def test_non_llm_interactions_have_empty_bodies() -> None:
    interactions = read_cassette(REAL / "openllmetry/test_music_composer_handoff_hierarchy.yaml")
    ingest = [i for i in interactions if i.request_uri.endswith("/v1/traces/ingest")]
    assert [i.index for i in ingest] == [0, 3]
    assert all(i.response_status == 204 and i.response_body == "" for i in ingest)


def test_vercel_chunk_files_parse_line_by_line() -> None:
    counts = {
        "vercel-ai/deepseek-tool-call.chunks.txt": 30,
        "vercel-ai/google-stream-tool-call-arguments.chunks.txt": 8,
        "vercel-ai/groq-tool-call.chunks.txt": 3,
        "vercel-ai/xai-tool-call.chunks.txt": 8,
    }
    for name, count in counts.items():
        chunks = parse_jsonl((REAL / name).read_bytes(), name)
        assert [c.line for c in chunks] == list(range(1, count + 1))
    groq = parse_jsonl((REAL / "vercel-ai/groq-tool-call.chunks.txt").read_text(), "groq")
    call = groq[1].value["choices"][0]["delta"]["tool_calls"][0]
    assert (call["id"], call["function"]) == ("tk85n1k4m", {"name": "weather", "arguments": "{}"})
    assert groq[2].value["x_groq"]["usage"]["total_tokens"] == 225
    google = parse_jsonl(
        (REAL / "vercel-ai/google-stream-tool-call-arguments.chunks.txt").read_text(), "google"
    )
    calls = [c.value["candidates"][0]["content"]["parts"][0]["functionCall"] for c in google]
    assert [c.get("name") for c in calls].count("getWeather") == 2
    assert [i for i, c in enumerate(calls) if c.get("name")] == [0, 4]  # lines 1 and 5
    values = [a["stringValue"] for c in calls for a in c.get("partialArgs", [])]
    assert values == ["Boston", "", "San Francisco", ""]
    assert calls[3] == {} and calls[7] == {}


# -- SSE rules -------------------------------------------------------------------------------------


def test_sse_lf_blank_line_dispatches_and_lines_are_where_events_start() -> None:
    events = parse_sse("event: a\ndata: 1\n\ndata: 2\n\n", source="s")
    assert events == (
        SSEEvent("a", "1", None, 1, "s"),
        SSEEvent(None, "2", None, 4, "s"),
    )


def test_sse_cr_and_crlf_line_ends() -> None:
    cr = parse_sse("data: a\rdata: b\r\rdata: c\r\r", source="s")
    assert [(e.data, e.line) for e in cr] == [("a\nb", 1), ("c", 4)]
    crlf = parse_sse("event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", source="s")
    assert [(e.event, e.data, e.line) for e in crlf] == [("x", "1", 1), (None, "2", 4)]
    mixed = parse_sse("data: 1\r\n\rdata: 2\n\r\ndata: 3\r\n", source="s")
    assert [(e.data, e.line) for e in mixed] == [("1", 1), ("2", 3), ("3", 5)]


def test_sse_multi_line_data_joins_with_newlines() -> None:
    (event,) = parse_sse("data: a\ndata:\ndata: b\n\n", source="s")
    assert event.data == "a\n\nb"


def test_sse_comments_are_keep_alives() -> None:
    events = parse_sse(": keep-alive\n\ndata: 1\n: ping\ndata: 2\n\n:\n\n", source="s")
    assert [(e.data, e.line) for e in events] == [("1\n2", 3)]


def test_sse_a_last_event_without_its_blank_line_is_kept_and_marked() -> None:
    events = parse_sse("data: 1\n\ndata: 2", source="s")
    assert [(e.data, e.terminated) for e in events] == [("1", True), ("2", False)]
    (event,) = parse_sse("data: 3\n", source="s")
    assert not event.terminated
    assert parse_sse("data: 1\n\n", source="s")[-1].terminated


def test_sse_data_without_a_space_and_only_one_space_stripped() -> None:
    events = parse_sse('data:{"a":1}\n\ndata:  two\n\n', source="s")
    assert [e.data for e in events] == ['{"a":1}', " two"]
    assert json_data(events[0]) == {"a": 1}


def test_sse_a_field_without_a_colon_has_an_empty_value() -> None:
    (event,) = parse_sse("event\ndata\n\n", source="s")
    assert (event.event, event.data) == (None, "")


def test_sse_ids_persist_unknown_fields_and_empty_blocks_are_ignored() -> None:
    text = "id: 7\ndata: a\n\nretry: 10\nfoo: bar\ndata: b\n\nevent: lone\n\n data: x\n\nid\ndata: c\n\n"
    events = parse_sse(text, source="s")
    assert [(e.data, e.id, e.line) for e in events] == [("a", "7", 1), ("b", "7", 4), ("c", "", 12)]


def test_sse_bytes_bom_and_non_ascii() -> None:
    (event,) = parse_sse("\ufeffdata: café ✓\n\n".encode(), source="s")
    assert (event.data, event.line) == ("café ✓", 1)


def test_json_data_allows_padding_and_knows_done() -> None:
    events = parse_sse('data:   {"a": [1, 2]}     \n\ndata:  [DONE] \n\n', source="s")
    assert json_data(events[0]) == {"a": [1, 2]}
    assert json_data(events[1]) is DONE
    assert repr(DONE) == "DONE"


# -- located errors --------------------------------------------------------------------------------


def test_invalid_json_in_data_is_located_at_its_event() -> None:
    body = 'data: {}\n\nevent: content_block_delta\ndata: {"type": oops}\n\n'
    #       L1     L2  L3                        L4                     L5
    events = parse_sse(body, source="demo.sse")
    with pytest.raises(WireError) as info:
        json_data(events[1])
    error = info.value
    assert isinstance(error, HarnessError)
    assert (error.source, error.line) == ("demo.sse", 3)
    assert str(error).startswith("demo.sse:3: the data of this `content_block_delta` event")
    assert "not valid JSON" in error.message and "oops" in error.message
    assert error.problem.line == 3


@pytest.mark.parametrize(
    "data",
    ["NaN", "[1, Infinity]", "", "[" * 100_000, '{"a": 1} trailing'],
    ids=["nan", "infinity", "empty", "deep", "trailing"],
)
def test_json_data_refuses_what_is_not_json_without_crashing(data: str) -> None:
    (event,) = parse_sse(f"\n\ndata: {data}\n\n", source="s")
    with pytest.raises(WireError) as info:
        json_data(event)
    assert info.value.line == 3


def test_a_binary_body_is_a_wire_error_not_a_crash() -> None:
    with pytest.raises(WireError) as info:
        parse_sse(b"data: 1\n\ndata: \x8b\xff\n\n", source="bin")
    assert info.value.line == 3 and "binary" in info.value.message
    with pytest.raises(WireError, match="gzip"):
        parse_sse(gzip.compress(b"data: 1\n\n"), source="gz")
    with pytest.raises(WireError, match="NUL") as nul:
        parse_jsonl("{}\n\x00\x00\x00\x8bevent-type\n", "eventstream")
    assert nul.value.line == 2
    with pytest.raises(WireError, match="binary"):
        parse_json_array_stream(b"\x00\x00\x00\x8b\x00", "eventstream")


def test_a_truncated_json_array_is_located() -> None:
    with pytest.raises(WireError) as info:
        parse_json_array_stream('[{"a": 1}\n,\n{"b": "cut', "arr")
    assert info.value.line == 3 and "cut short" in info.value.message
    with pytest.raises(WireError) as info:
        parse_json_array_stream('[{"a": 1}\r\n,\r\n{"b": 2}\r\n', "arr")
    assert info.value.line == 4 and "closing `]`" in info.value.message
    with pytest.raises(WireError) as info:
        parse_json_array_stream('[{"a": 1}\n,\n{"b": 2,}\n]', "arr")
    assert info.value.line == 3


def test_json_array_stream_shapes() -> None:
    chunks = parse_json_array_stream('\n[{"a": 1}\r\n,\r\n{"b": 2}\n]\n', "arr")
    assert [(c.value, c.line, c.source) for c in chunks] == [
        ({"a": 1}, 2, "arr"),
        ({"b": 2}, 4, "arr"),
    ]
    assert parse_json_array_stream(" [ ] ", "arr") == ()
    for text, line in [('{"a": 1}', 1), ("", 1), ("[1,\n]", 2), ("[1]\n\nx", 3), ("[1 2]", 1)]:
        with pytest.raises(WireError) as info:
            parse_json_array_stream(text, "arr")
        assert info.value.line == line, text


def test_jsonl_errors_name_the_line() -> None:
    with pytest.raises(WireError) as info:
        parse_jsonl('{"a": 1}\n\n{"b": \n', "chunks.txt")
    assert (info.value.source, info.value.line) == ("chunks.txt", 3)


# -- cassettes: shapes and errors -------------------------------------------------------------


STOCK = """\
    interactions:                                  # L1
    - request:                                     # L2
        body: '{"q": 1}'                            # L3
        headers:
          Content-Type: [application/json]
        method: POST
        uri: https://example.test/v1/stream
      response:                                    # L8
        body:
          string: "data: {}\\n\\ndata: [DONE]\\n\\n"   # L10
        headers:
          Content-Type: [text/event-stream]
          X-Two: [a, b]
        status: {code: 200, message: OK}
    version: 1
"""


def test_a_stock_cassette_reads_into_frozen_interactions(tmp_path: Path) -> None:
    (interaction,) = read_cassette(write(tmp_path, STOCK))
    assert interaction.request_method == "POST"
    assert interaction.request_uri == "https://example.test/v1/stream"
    assert interaction.request_body == '{"q": 1}'
    assert interaction.response_status == 200
    assert interaction.response_body == "data: {}\n\ndata: [DONE]\n\n"
    assert dict(interaction.response_headers) == {
        "Content-Type": ("text/event-stream",),
        "X-Two": ("a", "b"),
    }
    assert interaction.header("x-two") == ("a", "b")
    assert (interaction.index, interaction.line) == (0, 2)
    assert interaction.response_source.endswith("cassette.yaml interactions[0] response body")
    with pytest.raises(AttributeError):
        interaction.response_body = ""  # type: ignore[misc]  # read-only on purpose
    with pytest.raises(TypeError):
        interaction.response_headers["X-Three"] = ("c",)  # type: ignore[index]  # frozen on purpose


def test_the_pydantic_ai_flavour_turns_parsed_body_back_into_json(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        interactions:
        - request:
            headers: {content-type: [application/json]}
            method: POST
            parsed_body:
              model: gpt-4o
              stream: true
            uri: https://api.openai.com/v1/chat/completions
          response:
            headers: {content-type: [application/json]}
            parsed_body: {id: chatcmpl-1, choices: []}
            status: {code: 200}
        version: 1
        """,
    )
    (interaction,) = read_cassette(path)
    assert interaction.request_body is not None
    assert json.loads(interaction.request_body) == {"model": "gpt-4o", "stream": True}
    assert json.loads(interaction.response_body) == {"id": "chatcmpl-1", "choices": []}


def test_gzip_bodies_are_decompressed_and_bad_ones_located(tmp_path: Path) -> None:
    def cassette(body: bytes, encoding: str | None) -> Path:
        data = {
            "interactions": [
                {
                    "request": {"body": None, "headers": {}, "method": "GET", "uri": "https://x"},
                    "response": {
                        "body": {"string": body},
                        "headers": {"Content-Encoding": [encoding]} if encoding else {},
                        "status": {"code": 200, "message": "OK"},
                    },
                }
            ],
            "version": 1,
        }
        path = tmp_path / "gz.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        return path

    def body_line(path: Path) -> int:
        lines = path.read_text().splitlines()
        return next(n for n, line in enumerate(lines, 1) if line.strip().startswith("string:"))

    two_members = gzip.compress(b"data: 1\n\n") + gzip.compress(b"data: 2\n\n")
    (interaction,) = read_cassette(cassette(two_members, "gzip"))
    assert interaction.response_body == "data: 1\n\ndata: 2\n\n"
    assert interaction.request_body is None

    path = cassette(b"not gzip at all", "gzip")
    error = wire_error(path)
    assert error.line == body_line(path) and "not gzip data" in error.message

    path = cassette(gzip.compress(b"data: 1\n\n"), None)
    error = wire_error(path)
    assert error.line == body_line(path)
    assert "interactions[0] response body is binary" in error.message and "gzip" in error.message

    path = cassette(gzip.compress(b"data: 1\n\n")[:-12], "gzip")
    assert "truncated" in wire_error(path).message

    path = cassette(b"x", "br")
    assert "'br'" in wire_error(path).message


def test_a_compressed_body_may_not_inflate_beyond_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cassette_module, "MAX_BODY_BYTES", 1000)
    data = {
        "interactions": [
            {
                "request": {"body": None, "headers": {}, "method": "GET", "uri": "https://x"},
                "response": {
                    "body": {"string": gzip.compress(b"a" * 5000)},
                    "headers": {"content-encoding": ["gzip"]},
                    "status": {"code": 200},
                },
            }
        ],
        "version": 1,
    }
    path = tmp_path / "bomb.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert "inflates to more than 1,000 bytes" in wire_error(path).message


def test_a_binary_eventstream_body_is_a_located_wire_error(tmp_path: Path) -> None:
    # the first bytes of an AWS eventstream frame, as in the Bedrock ConverseStream recording
    frame = b"\x00\x00\x00\x8b\x00\x00\x00R&qn2\x0b:event-type\x07\x00\x0cmessageStart"
    path = write(
        tmp_path,
        STOCK.replace(
            'string: "data: {}\\n\\ndata: [DONE]\\n\\n"   # L10',
            "string: !!binary |                            # L10\n"
            f"            {base64.b64encode(frame).decode()}",
        ),
    )
    error = wire_error(path)
    assert (error.source, error.line) == (str(path), 10)
    assert "binary" in error.message and "eventstream" in error.message


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("interactions: [\n  {request: 1\n", 3, "not valid YAML"),
        ("", 1, "empty"),
        ("- just\n- a list\n", 1, "mapping"),
        ("- request: {}\n  response: {}\n", 1, "pre-1.0"),
        ("interactions: []\n", 1, "version"),
        ("version: 2\ninteractions: []\n", 1, "version: 2"),
        ("version: 1\n", 1, "interactions"),
        ("version: 1\ninteractions: {}\n", 2, "list"),
        ("version: 1\ninteractions:\n- request: {}\n", 3, "no `response:`"),
        ("version: 1\ninteractions:\n- request: {method: GET}\n  response: {}\n", 3, "no `body:`"),
        ("a: 1\n---\nb: 2\n", 2, "single document"),
    ],
)
def test_what_is_not_a_cassette_gets_a_located_error(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    error = wire_error(write(tmp_path, text))
    assert error.line == line, error
    assert words in error.message, error


def test_stock_shape_errors_point_at_their_part(tmp_path: Path) -> None:
    bad_status = STOCK.replace("status: {code: 200, message: OK}", "status: {code: OK}")
    assert wire_error(write(tmp_path, bad_status)).line == 14
    bad_header = STOCK.replace("X-Two: [a, b]", "X-Two: [{a: b}]")
    assert "X-Two" in wire_error(write(tmp_path, bad_header)).message
    extra = STOCK.replace("method: POST", "method: POST\n        extra: 1")
    assert "extra" in wire_error(write(tmp_path, extra)).message
    assert "cannot read" in wire_error(tmp_path / "missing.yaml").message


def test_python_tags_are_refused_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = write(
        tmp_path,
        f"""\
        version: 1
        interactions:
        - request: !!python/object/apply:os.system ["touch {marker}"]   # L3
          response: {{}}
        """,
    )
    error = wire_error(path)
    assert error.line == 3 and "!!python/object/apply:os.system is not allowed" in error.message
    assert not marker.exists()
    # vcrpy's own loader builds tuples; a plain safe loader does not
    tupled = write(tmp_path, "version: 1\ninteractions: !!python/tuple [1]\n")
    assert wire_error(tupled).line == 2


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    text = "bomb:\n" + "".join(f"  {level}\n" for level in levels) + "version: 1\n"
    error = wire_error(write(tmp_path, text))
    assert "aliases expanded" in error.message


#: A value for each tag that PyYAML's unsafe loader builds and its safe loader does not.
UNSAFE_TAGS = {
    "python/none": "''",
    "python/bool": "true",
    "python/str": "x",
    "python/unicode": "x",
    "python/bytes": "aGk=",
    "python/int": "1",
    "python/long": "1",
    "python/float": "1.5",
    "python/complex": "1+2j",
    "python/list": "[1]",
    "python/tuple": "[1]",
    "python/dict": "{a: 1}",
    "python/name:builtins.len": "''",
    "python/module:json": "''",
    "python/object:types.SimpleNamespace": "{a: 1}",
    "python/object/apply:builtins.len": "[[1, 2]]",
    "python/object/new:types.SimpleNamespace": "[]",
    # vcrpy's own cassette loader builds these two as well
    "python/object/new:_io.BytesIO": "[]",
    "python/object/apply:builtins.iter": "[[1]]",
}


def test_the_unsafe_tags_are_all_of_pyyamls() -> None:
    prefix = "tag:yaml.org,2002:"
    unsafe = set(yaml.UnsafeLoader.yaml_constructors) - set(yaml.SafeLoader.yaml_constructors)
    multi = set(yaml.UnsafeLoader.yaml_multi_constructors) - set(
        yaml.SafeLoader.yaml_multi_constructors
    )
    covered = {tag for tag in UNSAFE_TAGS if ":" not in tag}
    covered_multi = {tag.split(":", 1)[0] + ":" for tag in UNSAFE_TAGS if ":" in tag}
    assert {prefix + t for t in covered} == unsafe
    assert {prefix + t for t in covered_multi} == multi


@pytest.mark.parametrize(("tag", "value"), UNSAFE_TAGS.items(), ids=list(UNSAFE_TAGS))
def test_every_tag_an_unsafe_loader_builds_is_refused_at_its_line(
    tmp_path: Path, tag: str, value: str
) -> None:
    node = f"!!{tag} {value}"
    # an unsafe loader builds this value ...
    yaml.load(f"x: {node}\n", Loader=yaml.UnsafeLoader)
    # ... and the cassette reader refuses it, where it stands
    text = textwrap.dedent(STOCK).replace("X-Two: [a, b]", f"X-Two: {node}")
    error = wire_error(write(tmp_path, text))
    assert error.line == 13, error
    assert f"the tag !!{tag} is not allowed" in error.message, error
