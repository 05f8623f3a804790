"""The quirks real servers and gateways send, as each codec's ``QUIRKS`` names them: each adds the
shape its description says (read from the bytes), the decoder reads the turn back through it, and
every bundled reference driver passes every driver scenario under every quirk of its dialect
(and under pairs of the new ones with the dialect's others)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.codecs import dialects
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.replay import replay
from harness.scenario import DriverScenario
from harness.wire import DONE, json_data, parse_json_array_stream, parse_sse
from tests.scenarios_for_tests import library

#: the quirks this file is about, by dialect (the Gemini ones are shared by both framings)
NEW: dict[str, tuple[str, ...]] = {
    "openai-chat": (
        "role_chunk_first_call",
        "include_usage",
        "obfuscation",
        "prompt_filter_first_chunk",
        "content_filter_trailing_chunk",
        "role_every_chunk",
        "null_fields",
        "usage_on_finish_chunk",
        "empty_content_deltas",
    ),
    "anthropic": ("empty_input_json_delta", "signature_delta", "extra_fields", "no_event_lines"),
    "anthropic-agent": (
        "empty_input_json_delta",
        "signature_delta",
        "extra_fields",
        "no_event_lines",
    ),
    "openai-responses": ("keepalive", "arguments_done_only", "no_event_lines"),
    "gemini-sse": (
        "no_candidate_index",
        "finish_without_content",
        "metadata_only_chunk",
        "finish_message",
    ),
    "gemini-json-array": (
        "no_candidate_index",
        "finish_without_content",
        "metadata_only_chunk",
        "finish_message",
    ),
    "ag-ui": ("reasoning_events", "raw_events", "node_step_names"),
}
CASES = [(dialect, quirk) for dialect, quirks in NEW.items() for quirk in quirks]

# -- turns ----------------------------------------------------------------------------------------

TEXT_THEN_CALL: tuple[dv.TurnEvent, ...] = (
    dv.CycleStart(message_id="msg_q1"),
    dv.BlockStart(index=0, block="text"),
    dv.TextDelta(index=0, text="Checking."),
    dv.BlockStop(index=0),
    dv.BlockStart(index=1, block="tool_use", id="call_1", name="get_weather"),
    dv.ArgumentsDelta(index=1, fragment='{"city": '),
    dv.ArgumentsDelta(index=1, fragment='"Paris"}'),
    dv.BlockStop(index=1),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
CALL_FIRST: tuple[dv.TurnEvent, ...] = (
    dv.CycleStart(message_id="msg_q2"),
    dv.BlockStart(index=0, block="tool_use", id="call_1", name="get_weather"),
    dv.ArgumentsDelta(index=0, fragment='{"city": '),
    dv.ArgumentsDelta(index=0, fragment='"Paris"}'),
    dv.BlockStop(index=0),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
THINKING_THEN_CALL: tuple[dv.TurnEvent, ...] = (
    dv.CycleStart(message_id="msg_q3"),
    dv.BlockStart(index=0, block="thinking"),
    dv.ThinkingDelta(index=0, text="Paris, then."),
    dv.BlockStop(index=0),
    dv.BlockStart(index=1, block="tool_use", id="call_1", name="get_weather"),
    dv.ArgumentsDelta(index=1, fragment='{"city": "Paris"}'),
    dv.BlockStop(index=1),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
#: the turn each quirk shows itself in (default: text, then a call)
TURNS: dict[str, tuple[dv.TurnEvent, ...]] = {
    "role_chunk_first_call": CALL_FIRST,
    "signature_delta": THINKING_THEN_CALL,
    "reasoning_events": THINKING_THEN_CALL,
}


def turn_for(quirk: str) -> tuple[dv.TurnEvent, ...]:
    return TURNS.get(quirk, TEXT_THEN_CALL)


# -- reading the bytes ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Event:
    """One event of the wire: its SSE event name (None without an ``event:`` line) and data."""

    name: str | None
    data: Any


def read(dialect: str, chunks: Sequence[WireChunk]) -> list[Event]:
    body = "".join(c.data for c in chunks)
    if dialect == "gemini-json-array":
        return [Event(None, c.value) for c in parse_json_array_stream(body, "t")]
    return [Event(e.event, json_data(e)) for e in parse_sse(body, source="t")]


def encode(dialect: str, quirk: str) -> tuple[list[Event], list[Event]]:
    """The events of the quirk's turn plain, and with the quirk."""
    codec = dialects()[dialect]
    turn = turn_for(quirk)
    assert codec.can_express(turn, [quirk]) is None
    return read(dialect, codec.encode(turn)), read(dialect, codec.encode(turn, [quirk]))


def objects(events: list[Event]) -> list[dict[str, Any]]:
    return [e.data for e in events if isinstance(e.data, dict)]


def deltas(events: list[Event]) -> list[dict[str, Any]]:
    """Chat Completions: each chunk's choice-0 delta (or {} for a chunk without one)."""
    return [(o.get("choices") or [{}])[0].get("delta", {}) for o in objects(events)]


def call_deltas(events: list[Event]) -> list[dict[str, Any]]:
    return [call for delta in deltas(events) for call in delta.get("tool_calls") or ()]


def types(events: list[Event]) -> list[str]:
    return [str(o.get("type")) for o in objects(events)]


def candidates(events: list[Event]) -> list[dict[str, Any]]:
    return [o["candidates"][0] for o in objects(events)]


# -- what each quirk adds -------------------------------------------------------------------------


def role_chunk_first_call(plain: list[Event], quirked: list[Event]) -> None:
    header = call_deltas(plain)[0]
    assert deltas(quirked)[0] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [header],
        "refusal": None,
    }
    assert len(quirked) == len(plain) - 1


def include_usage(plain: list[Event], quirked: list[Event]) -> None:
    chunks = objects(quirked)
    assert all(o["usage"] is None and o["service_tier"] == "default" for o in chunks[:-1])
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 54
    assert quirked[-1].data is DONE


def obfuscation(plain: list[Event], quirked: list[Event]) -> None:
    assert all(isinstance(o.get("obfuscation"), str) and o["obfuscation"] for o in objects(quirked))
    assert not any("obfuscation" in o for o in objects(plain))


def prompt_filter_first_chunk(plain: list[Event], quirked: list[Event]) -> None:
    first = objects(quirked)[0]
    assert first["choices"] == [] and first["id"] == "" and first["model"] == ""
    assert first["prompt_filter_results"][0]["content_filter_results"]["hate"]["filtered"] is False
    assert objects(quirked)[1:] == objects(plain)


def content_filter_trailing_chunk(plain: list[Event], quirked: list[Event]) -> None:
    chunks = objects(quirked)
    finish = next(n for n, o in enumerate(chunks) if o["choices"][0].get("finish_reason"))
    choice = chunks[finish + 1]["choices"][0]
    assert "delta" not in choice and "content_filter_results" in choice


def role_every_chunk(plain: list[Event], quirked: list[Event]) -> None:
    for delta in deltas(quirked):
        assert delta["role"] == "assistant"
        if delta["tool_calls"]:
            assert delta["content"] is None
        else:
            assert delta["tool_calls"] == [] and isinstance(delta["content"], str)


def null_fields(plain: list[Event], quirked: list[Event]) -> None:
    header, *rest = call_deltas(quirked)
    assert header["id"] == "call_1" and header["function"]["arguments"] is None
    assert rest and all(
        c["id"] is None and c["type"] is None and c["function"]["name"] is None for c in rest
    )
    assert all({"content", "tool_calls", "refusal"} <= d.keys() for d in deltas(quirked))


def usage_on_finish_chunk(plain: list[Event], quirked: list[Event]) -> None:
    for chunk in objects(quirked):
        finished = chunk["choices"][0]["finish_reason"] is not None
        assert (chunk["usage"] is not None) is finished
    assert all(o["choices"] for o in objects(quirked))


def empty_content_deltas(plain: list[Event], quirked: list[Event]) -> None:
    found = deltas(quirked)
    header = next(n for n, d in enumerate(found) if d.get("tool_calls"))
    assert found[header - 1] == {"content": ""}
    assert len(found) == len(deltas(plain)) + 1


def empty_input_json_delta(plain: list[Event], quirked: list[Event]) -> None:
    events = objects(quirked)
    start = next(n for n, o in enumerate(events) if o.get("content_block", {}).get("id"))
    assert events[start + 1]["delta"] == {"type": "input_json_delta", "partial_json": ""}


def signature_delta(plain: list[Event], quirked: list[Event]) -> None:
    events = objects(quirked)
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    stop = next(n for n, o in enumerate(events) if o["type"] == "content_block_stop")
    assert events[stop - 2]["delta"] == {"type": "thinking_delta", "thinking": ""}
    assert events[stop - 1]["delta"]["type"] == "signature_delta"
    assert events[stop - 1]["delta"]["signature"]


def extra_fields(plain: list[Event], quirked: list[Event]) -> None:
    events = objects(quirked)
    assert events[0]["message"]["stop_details"] is None
    assert events[0]["message"]["usage"]["service_tier"] == "standard"
    tool = next(o["content_block"] for o in events if o.get("content_block", {}).get("id"))
    assert tool["caller"] == {"type": "direct"}
    delta = next(o for o in events if o["type"] == "message_delta")
    assert "stop_details" in delta["delta"] and delta["usage"]["input_tokens"] == 12


def no_event_lines(plain: list[Event], quirked: list[Event]) -> None:
    assert all(e.name is not None for e in plain)
    assert all(e.name is None for e in quirked)
    assert objects(quirked) == objects(plain)


def keepalive(plain: list[Event], quirked: list[Event]) -> None:
    alive = [e for e in quirked if e.name == "keepalive"]
    assert alive and all(e.data["type"] == "keepalive" for e in alive)
    assert all(isinstance(e.data["sequence_number"], int) for e in alive)
    assert [t for t in types(quirked) if t != "keepalive"] == types(plain)


def arguments_done_only(plain: list[Event], quirked: list[Event]) -> None:
    assert "response.function_call_arguments.delta" in types(plain)
    assert "response.function_call_arguments.delta" not in types(quirked)
    done = next(o for o in objects(quirked) if o["type"].endswith("arguments.done"))
    assert done["arguments"] == '{"city": "Paris"}'


def no_candidate_index(plain: list[Event], quirked: list[Event]) -> None:
    assert all("index" in c for c in candidates(plain))
    assert not any("index" in c for c in candidates(quirked))


def finish_without_content(plain: list[Event], quirked: list[Event]) -> None:
    last = candidates(quirked)[-1]
    assert last["finishReason"] == "STOP" and "content" not in last
    assert len(quirked) == len(plain) + 1


def metadata_only_chunk(plain: list[Event], quirked: list[Event]) -> None:
    second = candidates(quirked)[1]
    assert "content" not in second and "finishReason" not in second
    assert "groundingMetadata" in second


def finish_message(plain: list[Event], quirked: list[Event]) -> None:
    last = candidates(quirked)[-1]
    assert last["finishReason"] == "STOP"
    assert last["finishMessage"] == "Model generated function call(s)."


def reasoning_events(plain: list[Event], quirked: list[Event]) -> None:
    assert "THINKING_START" in types(plain)
    assert not any(t.startswith("THINKING_") for t in types(quirked))
    reasoning = [t for t in types(quirked) if t.startswith("REASONING_")]
    assert reasoning == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]


def raw_events(plain: list[Event], quirked: list[Event]) -> None:
    events = objects(quirked)
    for n, event in enumerate(events):
        if event["type"] in ("TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"):
            assert events[n - 1]["type"] == "RAW" and events[n - 1]["event"]["event"]
        if event["type"].startswith(("TEXT_MESSAGE_", "TOOL_CALL_")):
            assert "rawEvent" in event
    assert [t for t in types(quirked) if t != "RAW"] == types(plain)


def node_step_names(plain: list[Event], quirked: list[Event]) -> None:
    steps = [o["stepName"] for o in objects(quirked) if o["type"].startswith("STEP_")]
    assert steps == ["model", "model"]


SHAPES: dict[str, Callable[[list[Event], list[Event]], None]] = {
    f.__name__: f
    for f in (
        role_chunk_first_call,
        include_usage,
        obfuscation,
        prompt_filter_first_chunk,
        content_filter_trailing_chunk,
        role_every_chunk,
        null_fields,
        usage_on_finish_chunk,
        empty_content_deltas,
        empty_input_json_delta,
        signature_delta,
        extra_fields,
        no_event_lines,
        keepalive,
        arguments_done_only,
        no_candidate_index,
        finish_without_content,
        metadata_only_chunk,
        finish_message,
        reasoning_events,
        raw_events,
        node_step_names,
    )
}


def test_every_new_quirk_is_a_quirk_of_its_codec_and_has_a_shape_check() -> None:
    for dialect, quirk in CASES:
        assert quirk in dialects()[dialect].quirks, (dialect, quirk)
    assert {quirk for _, quirk in CASES} == set(SHAPES)


#: where a quirk was seen: an issue or pull request (owner/repo#N), or a recording's file
CITATION = re.compile(r"[\w.-]+/[\w.-]+#\d+|\.(?:yaml|bin|txt)\b")


@pytest.mark.parametrize(("dialect", "quirk"), CASES)
def test_each_new_quirk_says_where_it_was_seen(dialect: str, quirk: str) -> None:
    assert CITATION.search(dialects()[dialect].quirks[quirk]), quirk


@pytest.mark.parametrize(("dialect", "quirk"), CASES)
def test_each_quirk_adds_the_shape_it_names(dialect: str, quirk: str) -> None:
    plain, quirked = encode(dialect, quirk)
    SHAPES[quirk](plain, quirked)


def test_the_role_chunk_has_content_null_when_text_comes_first() -> None:
    plain, quirked = (
        deltas(read("openai-chat", dialects()["openai-chat"].encode(TEXT_THEN_CALL, q)))
        for q in ([], ["role_chunk_first_call"])
    )
    assert plain[0] == {"role": "assistant", "content": "", "refusal": None}
    assert quirked[0] == {"role": "assistant", "content": None}


# -- the turn comes back --------------------------------------------------------------------------

#: quirks whose wire holds deltas with nothing in them (the decoder keeps what the wire says)
ADDS_EMPTY_DELTAS = {"empty_input_json_delta", "signature_delta"}


def comparable(turn: Sequence[dv.TurnEvent], quirk: str) -> tuple[dv.TurnEvent, ...]:
    out = tuple(turn)
    if quirk in ADDS_EMPTY_DELTAS:
        out = tuple(
            e
            for e in out
            if not (isinstance(e, (dv.TextDelta, dv.ThinkingDelta)) and not e.text)
            and not (isinstance(e, dv.ArgumentsDelta) and not e.fragment)
        )
    if quirk == "node_step_names":  # the step names the message; here every one is "model"
        out = tuple(
            dataclasses.replace(e, message_id="") if isinstance(e, dv.CycleStart) else e
            for e in out
        )
    if quirk == "arguments_done_only":  # the fragments arrive as one
        merged: list[dv.TurnEvent] = []
        for e in out:
            last = merged[-1] if merged else None
            if (
                isinstance(e, dv.ArgumentsDelta)
                and isinstance(last, dv.ArgumentsDelta)
                and last.index == e.index
            ):
                merged[-1] = dataclasses.replace(last, fragment=last.fragment + e.fragment)
            else:
                merged.append(e)
        out = tuple(merged)
    return out


@pytest.mark.parametrize(("dialect", "quirk"), CASES)
def test_the_decoder_reads_the_turn_back(dialect: str, quirk: str) -> None:
    """The turn read back with the quirk is the turn read back without it: the turn itself, in
    the dialect's own form (Gemini sends a call's arguments whole)."""
    codec = dialects()[dialect]
    for turn in (turn_for(quirk), TEXT_THEN_CALL, CALL_FIRST):
        assert codec.can_express(turn, [quirk]) is None
        plain, quirked = (
            codec.decode("".join(c.data for c in codec.encode(turn, q)), source=f"{q}")
            for q in ([], [quirk])
        )
        assert comparable(quirked, quirk) == comparable(plain, quirk)
        assert comparable(turn, quirk) == comparable(plain, quirk) or dialect.startswith("gemini")


def test_a_responses_call_cut_before_its_done_takes_its_arguments_from_the_output() -> None:
    codec = dialects()["openai-responses"]
    cut = (*CALL_FIRST[:3], dv.CycleDelta(stop_reason="max_tokens"), dv.CycleStop())
    body = "".join(c.data for c in codec.encode(cut, ["arguments_done_only"]))
    assert "arguments.delta" not in body and "arguments.done" not in body
    assert codec.decode(body, source="cut") == cut


def test_chat_decoder_takes_the_message_id_after_an_anonymous_first_chunk() -> None:
    codec = dialects()["openai-chat"]
    body = "".join(c.data for c in codec.encode(TEXT_THEN_CALL, ["prompt_filter_first_chunk"]))
    first = codec.decode(body, source="azure")[0]
    assert first == dv.CycleStart(message_id="msg_q1") and first.line == 1


# -- every reference, every scenario, every quirk -------------------------------------------------

REFERENCES = [
    info for info in BUNDLED.values() if info.layer == "driver" and info.kind == "reference"
]


def scenarios() -> list[DriverScenario]:
    # a recorded stream is fed as it was: the quirks do not reach it
    return [s for s in library() if isinstance(s, DriverScenario) and not s.raw_wire]


def sweep(info: AdapterInfo, combos: Sequence[Sequence[str]]) -> tuple[int, list[str]]:
    """Replays every scenario under each combination of quirks: (passes, failures)."""
    passed, failures = 0, []
    for combo in combos:
        for scenario in scenarios():
            quirked = dataclasses.replace(
                scenario, quirks=tuple(dict.fromkeys((*scenario.quirks, *combo)))
            )
            result = replay(quirked, info)
            if result.status == "pass":
                passed += 1
            elif result.status != "skip":
                why = result.error or "; ".join(f"{v.rule}: {v.message}" for v in result.violations)
                failures.append(f"{scenario.id} under {'+'.join(combo)}: {result.status}: {why}")
    return passed, failures


def dialect_of(info: AdapterInfo) -> str:
    return str(info.factory().dialect)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("info", REFERENCES, ids=lambda i: i.name)
def test_the_reference_passes_every_scenario_under_every_quirk(info: AdapterInfo) -> None:
    quirks = sorted(dialects()[dialect_of(info)].quirks)
    passed, failures = sweep(info, [(q,) for q in quirks])
    assert not failures, "\n".join(failures)
    assert passed >= len(quirks)


@pytest.mark.slow
@pytest.mark.parametrize(
    "info",
    [
        # make test pairs the quirks for the references reading events, one of each dialect;
        # the exhaustive tier for those reading bytes
        pytest.param(
            info, marks=pytest.mark.exhaustive if "-bytes-" in info.name else (), id=info.name
        )
        for info in REFERENCES
    ],
)
def test_the_reference_passes_every_scenario_under_each_new_quirk_paired(
    info: AdapterInfo,
) -> None:
    dialect = dialect_of(info)
    pairs = [
        pair
        for pair in itertools.combinations(sorted(dialects()[dialect].quirks), 2)
        if set(pair) & set(NEW[dialect])
    ]
    passed, failures = sweep(info, pairs)
    assert not failures, "\n".join(failures)
    assert passed > 0


def test_a_quirked_chat_body_is_what_a_real_one_looks_like() -> None:
    """All the first-party Chat Completions quirks at once read like the gpt-4o recording:
    content null in the role chunk with the first call, usage null on every chunk."""
    codec = dialects()["openai-chat"]
    quirks = ["role_chunk_first_call", "include_usage", "obfuscation"]
    events = read("openai-chat", codec.encode(CALL_FIRST, quirks))
    first = objects(events)[0]
    assert json.dumps(first["choices"][0]["delta"]["tool_calls"][0]["function"]) == (
        '{"name": "get_weather", "arguments": ""}'
    )
    assert first["usage"] is None and first["obfuscation"]
