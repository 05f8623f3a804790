"""What a chunk can hold beyond one event: the Chat Completions quirks that join chunks as
servers do (the finish with the last fragment, whole calls, several calls, text with a call's
start) and the empty delta between a call's fragments, each read back from the bytes; the
mutant each one catches, caught under it and nowhere else; and arguments with data after a
complete JSON value, invalid in every dialect that streams argument text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.codecs.openai_chat import PER_MESSAGE_QUIRKS
from harness.model import driver as dv
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.scenario import DriverScenario
from harness.wire import json_data, parse_sse
from tests.scenarios_for_tests import library_driver

CHAT = dialects()["openai-chat"]

#: text, then two calls of several fragments each
TURN: tuple[dv.TurnEvent, ...] = (
    dv.CycleStart(message_id="msg_c1"),
    dv.BlockStart(index=0, block="text"),
    dv.TextDelta(index=0, text="Checking "),
    dv.TextDelta(index=0, text="both."),
    dv.BlockStop(index=0),
    dv.BlockStart(index=1, block="tool_use", id="call_a", name="get_weather"),
    dv.ArgumentsDelta(index=1, fragment='{"city": '),
    dv.ArgumentsDelta(index=1, fragment='"Paris"}'),
    dv.BlockStop(index=1),
    dv.BlockStart(index=2, block="tool_use", id="call_b", name="get_time"),
    dv.ArgumentsDelta(index=2, fragment='{"zone": '),
    dv.ArgumentsDelta(index=2, fragment='"CET"'),
    dv.ArgumentsDelta(index=2, fragment="}"),
    dv.BlockStop(index=2),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
TEXTS = [e.text for e in TURN if isinstance(e, dv.TextDelta)]
CALLS = [e for e in TURN if isinstance(e, dv.BlockStart) and e.block == "tool_use"]
FRAGMENTS = {
    call.id: [
        e.fragment for e in TURN if isinstance(e, dv.ArgumentsDelta) and e.index == call.index
    ]
    for call in CALLS
}


def choices(quirk: str) -> list[dict[str, Any]]:
    """The choice of every chunk of the turn under ``quirk``, in order."""
    body = "".join(c.data for c in CHAT.encode(TURN, [quirk]))
    out = []
    for event in parse_sse(body, source="t"):
        data = json_data(event)
        if isinstance(data, dict) and data.get("choices"):
            out.append(data["choices"][0])
    return out


def entries(choice: dict[str, Any]) -> list[dict[str, Any]]:
    return choice["delta"].get("tool_calls") or []


def test_finish_on_last_delta_puts_the_finish_beside_the_last_fragment() -> None:
    finished = [c for c in choices("finish_on_last_delta") if c["finish_reason"]]
    assert len(finished) == 1
    (entry,) = entries(finished[0])
    assert entry["function"]["arguments"] == FRAGMENTS["call_b"][-1]
    assert finished[0]["finish_reason"] == "tool_calls"


def test_whole_call_with_finish_sends_each_call_whole_and_the_last_with_the_finish() -> None:
    got = choices("whole_call_with_finish")
    calls = [e for c in got for e in entries(c)]
    assert [(e["id"], e["function"]["arguments"]) for e in calls] == [
        (call.id, "".join(FRAGMENTS[call.id])) for call in CALLS
    ]
    finished = [c for c in got if c["finish_reason"]]
    assert len(finished) == 1 and [e["id"] for e in entries(finished[0])] == [CALLS[-1].id]


def test_calls_in_one_chunk_sends_the_message_calls_in_one_delta() -> None:
    carrying = [c for c in choices("calls_in_one_chunk") if entries(c)]
    assert len(carrying) == 1
    assert [(e["index"], e["id"], e["function"]["arguments"]) for e in entries(carrying[0])] == [
        (n, call.id, "".join(FRAGMENTS[call.id])) for n, call in enumerate(CALLS)
    ]
    assert not carrying[0]["finish_reason"]


def test_text_with_call_start_joins_the_last_text_and_the_first_header() -> None:
    got = choices("text_with_call_start")
    both = [c for c in got if c["delta"].get("content") and entries(c)]
    assert len(both) == 1
    assert both[0]["delta"]["content"] == TEXTS[-1]
    assert [e["id"] for e in entries(both[0])] == [CALLS[0].id]
    assert "".join(c["delta"].get("content") or "" for c in got) == "".join(TEXTS)


def test_empty_delta_mid_call_falls_between_fragments_of_one_call() -> None:
    got = choices("empty_delta_mid_call")
    empty = [n for n, c in enumerate(got) if c["delta"] == {} and not c["finish_reason"]]
    assert len(empty) == sum(len(parts) - 1 for parts in FRAGMENTS.values())
    for n in empty:  # a fragment of the same call on each side
        (before,), (after,) = entries(got[n - 1]), entries(got[n + 1])
        assert "id" not in after and before["index"] == after["index"]


def test_every_coalesced_stream_reads_back_as_the_turn() -> None:
    for quirk in (
        "finish_on_last_delta",
        "whole_call_with_finish",
        "calls_in_one_chunk",
        "text_with_call_start",
        "empty_delta_mid_call",
        "empty_choices_mid_call",
    ):
        body = "".join(c.data for c in CHAT.encode(TURN, [quirk]))
        back = CHAT.decode(body, source="t")
        calls = [(e.id, e.name) for e in back if isinstance(e, dv.BlockStart) and e.id]
        arguments: dict[int, str] = {}
        for e in back:
            if isinstance(e, dv.ArgumentsDelta):
                arguments[e.index] = arguments.get(e.index, "") + e.fragment
        assert calls == [(c.id, c.name) for c in CALLS], quirk
        assert sorted(arguments.values()) == sorted("".join(p) for p in FRAGMENTS.values())
        assert "".join(e.text for e in back if isinstance(e, dv.TextDelta)) == "".join(TEXTS)


@pytest.mark.parametrize(
    ("mutant", "quirks", "scenario"),
    [
        (
            "openai-finish-skips-chunk",
            {"finish_on_last_delta", "whole_call_with_finish"},
            "parallel-calls",
        ),
        ("openai-content-or-calls", {"text_with_call_start"}, "text-before-tool-call"),
        ("openai-first-call-per-delta", {"calls_in_one_chunk"}, "parallel-calls"),
        ("openai-empty-delta-ends-call", {"empty_delta_mid_call"}, "parallel-calls"),
        ("openai-no-choices-ends-call", {"empty_choices_mid_call"}, "parallel-calls"),
    ],
)
def test_each_mutant_fails_exactly_the_cases_of_its_quirks(
    mutant: str, quirks: set[str], scenario: str
) -> None:
    info = BUNDLED[f"driver-mutant-{mutant}"]
    reference = BUNDLED["driver-openai-chat-reference"]
    cases = cases_for([library_driver(scenario)], info)
    failed = {c.case_id for c in cases if replay(c, info).status == "fail"}
    # a per-call driver skips the cases judged only per message (interleaved fragments)
    shown = {
        c.case_id
        for c in cases
        if isinstance(c, DriverScenario)
        and quirks & set(c.quirks)
        and not PER_MESSAGE_QUIRKS & set(c.quirks)
    }
    assert shown and failed == shown
    assert all(replay(c, reference).status == "pass" for c in cases if c.case_id in shown)


TRAILING = ("arguments-trailing-duplicate-value", "arguments-trailing-extra-brace")


@pytest.mark.parametrize("name", TRAILING)
def test_trailing_data_is_a_complete_value_and_more(name: str) -> None:
    (call,) = [e for e in library_driver(name).turn if isinstance(e, dv.BlockStart) and e.id]
    text = "".join(
        e.fragment
        for e in library_driver(name).turn
        if isinstance(e, dv.ArgumentsDelta) and e.index == call.index
    )
    value, end = json.JSONDecoder().raw_decode(text)
    assert isinstance(value, dict) and text[end:].strip()
    with pytest.raises(ValueError):
        json.loads(text)


@pytest.mark.parametrize(
    "reference",
    ["anthropic", "openai-chat", "openai-responses", "ag-ui"],
)
def test_references_report_trailing_data_invalid_in_each_dialect(reference: str) -> None:
    info = BUNDLED[f"driver-{reference}-reference"]
    for name in TRAILING:
        cases = cases_for([library_driver(name)], info)
        assert cases, (reference, name)
        assert all(replay(c, info).status == "pass" for c in cases[:20]), (reference, name)


def test_gemini_cannot_carry_trailing_data_and_says_why() -> None:
    result = replay(library_driver(TRAILING[1]), BUNDLED["driver-gemini-sse-reference"])
    assert result.status == "skip" and "not a complete JSON object" in (result.skip_reason or "")


@pytest.mark.parametrize("name", TRAILING)
def test_a_driver_validating_the_first_value_fails_strict_assembly(name: str) -> None:
    result = replay(library_driver(name), BUNDLED["driver-mutant-openai-first-json-value"])
    assert result.status == "fail"
    assert {v.rule for v in result.violations} == {"strict-assembly"}
