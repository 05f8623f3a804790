"""Parallel calls whose argument fragments interleave across indices in Chat Completions: the
quirk's shape, read back from the bytes; the cases the cross product makes of it; who is judged
on them (drivers that pass calls on per message) and who skips them, saying why; the
per-message reference passing them; and the mutant that appends every fragment without an id
to the call started last, caught under the quirk and nowhere else."""

from __future__ import annotations

from typing import Any

import pytest

from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.model import driver as dv
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.scenario import DriverScenario
from harness.wire import json_data, parse_sse
from tests.scenarios_for_tests import library_driver

CHAT = dialects()["openai-chat"]
QUIRK = "interleaved_fragments"

#: text, then two calls of several fragments each, the second longer than the first
TURN: tuple[dv.TurnEvent, ...] = (
    dv.CycleStart(message_id="msg_i1"),
    dv.BlockStart(index=0, block="text"),
    dv.TextDelta(index=0, text="Both."),
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


def call_entries(quirks: list[str]) -> list[dict[str, Any]]:
    """Every tool_calls entry of the turn's stream under ``quirks``, in order."""
    body = "".join(c.data for c in CHAT.encode(TURN, quirks))
    out: list[dict[str, Any]] = []
    for event in parse_sse(body, source="t"):
        data = json_data(event)
        if isinstance(data, dict) and data.get("choices"):
            out.extend(data["choices"][0]["delta"].get("tool_calls") or [])
    return out


def test_headers_come_first_then_the_calls_fragments_in_turn() -> None:
    got = call_entries([QUIRK])
    assert [e.get("id") for e in got[:2]] == ["call_a", "call_b"]
    assert [e["index"] for e in got[2:]] == [0, 1, 0, 1, 1]
    assert all("id" not in e for e in got[2:])
    joined = {0: "", 1: ""}
    for e in got:
        joined[e["index"]] += e["function"]["arguments"]
    assert joined == {0: '{"city": "Paris"}', 1: '{"zone": "CET"}'}


def test_the_interleaved_stream_reads_back_as_the_turns_calls() -> None:
    body = "".join(c.data for c in CHAT.encode(TURN, [QUIRK]))
    back = CHAT.decode(body, source="t")
    calls = {e.index: e.id for e in back if isinstance(e, dv.BlockStart) and e.id}
    arguments: dict[str, str] = {}
    for e in back:
        if isinstance(e, dv.ArgumentsDelta):
            arguments[calls[e.index]] = arguments.get(calls[e.index], "") + e.fragment
    assert arguments == {"call_a": '{"city": "Paris"}', "call_b": '{"zone": "CET"}'}


def test_each_chunk_is_told_up_to_the_furthest_event_read_and_carries_its_own() -> None:
    chunks = CHAT.encode(TURN, [QUIRK])
    told = [c.origin for c in chunks if c.carries]
    assert told == sorted(told)
    late = [c for c in chunks if c.carried < c.origin]
    # call_a's two fragments come after call_b's header
    assert sorted(c.carried for c in late) == [5, 6]


@pytest.mark.parametrize("other", ["same_index", "no_index"])
def test_interleaving_is_refused_where_indices_cannot_tell_the_calls_apart(other: str) -> None:
    reason = CHAT.can_express(TURN, [QUIRK, other])
    assert reason is not None and "indices" in reason
    assert CHAT.can_express(TURN, [QUIRK]) is None


def interleaved(cases: list[Any]) -> list[DriverScenario]:
    return [c for c in cases if isinstance(c, DriverScenario) and QUIRK in c.quirks]


def test_the_cross_product_interleaves_parallel_calls_and_not_a_lone_call() -> None:
    reference = BUNDLED["driver-openai-chat-per-message-reference"]
    assert interleaved(cases_for([library_driver("parallel-calls")], reference))
    assert not interleaved(cases_for([library_driver("text-before-tool-call")], reference))


def test_a_per_call_driver_skips_interleaved_cases_saying_why() -> None:
    reference = BUNDLED["driver-openai-chat-reference"]
    cases = interleaved(cases_for([library_driver("parallel-calls")], reference))
    results = [replay(c, reference) for c in cases]
    assert results and all(r.status == "skip" for r in results)
    assert all("per message" in (r.skip_reason or "") for r in results)


@pytest.mark.parametrize(
    "name",
    ["driver-openai-chat-per-message-reference", "driver-openai-chat-per-message-bytes-reference"],
)
def test_the_per_message_reference_passes_every_case_of_parallel_calls(name: str) -> None:
    info = BUNDLED[name]
    cases = cases_for([library_driver("parallel-calls")], info)
    assert interleaved(cases)
    failed = [c.case_id for c in cases if replay(c, info).status != "pass"]
    assert failed == []


#: quirks that put an id on every continuation fragment, so no fragment goes without one
IDS_ON_FRAGMENTS = {"id_every_chunk", "id_changes"}


def test_the_fragment_to_last_call_mutant_fails_exactly_the_interleaved_cases() -> None:
    """Under every interleaved case whose fragments carry no id; it passes everything else."""
    info = BUNDLED["driver-mutant-openai-fragment-to-last-call"]
    cases = cases_for([library_driver("parallel-calls")], info)
    failed = {c.case_id for c in cases if replay(c, info).status == "fail"}
    shown = {c.case_id for c in interleaved(cases) if not IDS_ON_FRAGMENTS & set(c.quirks)}
    assert shown and failed == shown
