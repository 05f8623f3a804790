"""The timelines as data (``harness.report.timeline``), built from real replays of bundled
scenarios against bundled mutants and checked against what the scenario files say."""

from __future__ import annotations

import json
from functools import cache

import pytest

from harness.model.driver import ByteRead
from harness.replay import replay
from harness.replay.result import ScenarioResult
from harness.report.timeline import (
    DriverSwimlanes,
    Mark,
    driver_swimlanes,
    session_swimlanes,
)
from harness.scenario import DriverScenario, SessionScenario, load_scenario
from tests.scenarios_for_tests import LIBRARY


@cache
def _failed(path: str, adapter: str) -> ScenarioResult:
    result = replay(load_scenario(LIBRARY / path), adapter)
    assert result.status == "fail", result.error
    return result


def _driver(path: str, adapter: str) -> tuple[DriverScenario, ScenarioResult, DriverSwimlanes]:
    result = _failed(path, adapter)
    assert isinstance(result.scenario, DriverScenario)
    lanes = driver_swimlanes(result)
    assert lanes is not None
    return result.scenario, result, lanes


def _lane(lanes: DriverSwimlanes, name: str) -> int:
    return [lane.name for lane in lanes.lanes].index(name)


def _told_by(lanes: DriverSwimlanes, event: int) -> int:
    """The read that tells the event for the first time."""
    return next(row.number for row in lanes.reads if event in row.told)


PARALLEL = ("driver/parallel-calls.yaml", "driver-mutant-anthropic-batches-calls")
#: the calls of driver/parallel-calls.yaml, as its trace writes them (each in 3 chunks)
PARALLEL_CALLS = {
    "call_1": {"path": "a.rs", "content": "fn a() {}"},
    "call_2": {"path": "b.rs", "content": "fn b() {}"},
}


def test_a_driver_timeline_has_a_lane_for_the_wire_the_text_each_call_and_the_turn_end():
    _, _, lanes = _driver(*PARALLEL)
    assert [lane.name for lane in lanes.lanes] == [
        "wire",
        "text",
        "call write_file call_1",
        "call write_file call_2",
        "turn end",
    ]
    assert [lane.kind for lane in lanes.lanes] == ["wire", "text", "call", "call", "end"]
    assert [lane.call_id for lane in lanes.lanes] == [None, None, "call_1", "call_2", None]


def test_each_call_is_marked_from_its_start_through_its_fragments_to_complete_where_read():
    _, _, lanes = _driver(*PARALLEL)
    for call, arguments in PARALLEL_CALLS.items():
        lane = _lane(lanes, f"call write_file {call}")
        course = [m for m in lanes.marks if m.lane == lane and m.kind != "emitted"]
        assert [m.kind for m in course] == [
            "starts",
            "fragment",
            "fragment",
            "fragment",
            "complete",
        ]
        fragments = "".join(m.text for m in course if m.kind == "fragment")
        assert json.loads(fragments) == arguments
        # each at the read that tells its event, and the anthropic stream sends one per chunk
        assert all(m.event is not None and m.read == _told_by(lanes, m.event) for m in course)
        reads = [m.read for m in course]
        assert reads == sorted(set(reads))
    assert "".join(m.text for m in lanes.marks if m.kind == "arrives") == "Writing both files."


def test_the_final_stop_is_marked_where_it_is_read_and_the_violations_where_their_event_is():
    scenario, _, lanes = _driver(*PARALLEL)
    last_stop = max(i for i, event in enumerate(scenario.events) if event.kind == "message_stop")
    assert lanes.final_stop == last_stop
    stops = [m for m in lanes.marks if m.kind == "message_stop"]
    assert [(m.lane, m.event) for m in stops] == [(len(lanes.lanes) - 1, last_stop)]
    assert stops[0].read == _told_by(lanes, last_stop)
    complete = {lanes.lanes[m.lane].call_id: m.read for m in lanes.marks if m.kind == "complete"}
    late = [(read, v.subject) for read, v in lanes.violations if v.rule == "emit-once-early"]
    assert late, "the mutant batches the calls: emit-once-early finds them late or missing"
    assert all(read == complete[call] for read, call in late)


def _told_plainly(result: ScenarioResult) -> list[range]:
    """What each read tells for the first time, from its definition: the events past the
    largest one the reads before it carried, up to the largest one it carries."""
    assert result.driver_run is not None
    told, high = [], -1
    for chunk in result.driver_run.chunks:
        top = max(high, chunk.origin if chunk.carries else -1)
        told.append(range(high + 1, top + 1))
        high = top
    return told


@pytest.mark.parametrize(
    ("path", "adapter", "of_bytes"),
    [
        (*PARALLEL, False),
        # reads of bytes: some complete no event, some several
        ("driver/parallel-calls.yaml", "driver-mutant-openai-chat-read-ends-line", True),
        (
            "driver/usage-chunk-empty-choices.yaml",
            "driver-mutant-openai-crashes-on-usage-chunk",
            False,
        ),
    ],
)
def test_each_read_tells_the_events_past_what_the_reads_before_it_told(path, adapter, of_bytes):
    scenario, result, lanes = _driver(path, adapter)
    assert [row.told for row in lanes.reads] == _told_plainly(result)
    assert [row.number for row in lanes.reads] == list(range(1, len(lanes.reads) + 1))
    told = [e for row in lanes.reads for e in row.told]
    assert told == list(range(len(told)))  # in order, each event once
    for row in lanes.reads:
        assert row.kinds == tuple(dict.fromkeys(scenario.events[e].kind for e in row.told))
    assert all(isinstance(row.chunk, ByteRead) == of_bytes for row in lanes.reads)
    if of_bytes:
        assert any(not row.told for row in lanes.reads)
        assert any(len(row.told) > 1 for row in lanes.reads)


def test_a_cancelled_run_says_which_read_was_cancelled_and_where_reading_stopped():
    scenario, result, lanes = _driver(
        "driver/cancel-mid-arguments.yaml", "driver-mutant-anthropic-ignores-cancellation"
    )
    assert scenario.cancel_after_reads is not None
    assert lanes.cancel is not None and lanes.cancel.after == scenario.cancel_after_reads
    assert not lanes.cancel.ended_the_driver  # the mutant swallows the cancellation
    assert lanes.stop.after == scenario.cancel_after_reads  # no read past the cancelled one
    assert result.driver_run is not None
    assert lanes.stop.of == len(lanes.reads) == len(result.driver_run.chunks)
    # cancelled mid-arguments: the call is complete only in reads the driver never made
    [complete] = [m for m in lanes.marks if m.kind == "complete"]
    assert complete.read > lanes.cancel.after
    assert {read for read, v in lanes.violations if v.rule == "cancellation"} == {
        lanes.cancel.after
    }


def test_a_crash_is_marked_in_the_turn_end_lane_at_the_read_the_driver_crashed_on():
    _, _, lanes = _driver(
        "driver/usage-chunk-empty-choices.yaml", "driver-mutant-openai-crashes-on-usage-chunk"
    )
    # the scenario's usage chunk: the one with empty choices
    [usage] = [
        row.number
        for row in lanes.reads
        if isinstance(row.chunk.data, str) and '"choices":[]' in row.chunk.data.replace(" ", "")
    ]
    raised: list[Mark] = [m for m in lanes.marks if m.kind == "raised"]
    assert [(m.read, m.lane) for m in raised] == [(usage, len(lanes.lanes) - 1)]
    assert lanes.stop.after == usage
    assert [lane.name for lane in lanes.lanes] == ["wire", "text", "turn end"]  # no call


@pytest.mark.parametrize(
    ("path", "adapter", "sessions"),
    [
        (
            "session/nested-subsessions-explicit.yaml",
            "session-mutant-subsession-into-parent",
            # (session, parent, depth, the lanes its header spans)
            [
                ("main", None, 0, (0, 3)),
                ("think-1", "main", 1, (1, 3)),
                ("think-1/oneshot-1", "think-1", 2, (2, 3)),
            ],
        ),
        (
            "session/explored-subsession-reuses-running-call-id.yaml",
            "session-mutant-keyed-by-tool-id",
            [
                ("main", None, 0, (0, 3)),
                ("agent-1", "main", 1, (1, 2)),
                ("agent-2", "main", 1, (2, 3)),
            ],
        ),
    ],
)
def test_a_session_timeline_nests_each_sub_session_under_its_parent(path, adapter, sessions):
    scenario = _failed(path, adapter).scenario
    assert isinstance(scenario, SessionScenario)
    trace = list(scenario.events)
    lanes = session_swimlanes(scenario.events)
    assert [
        (lane.session, lane.parent, lane.depth, (lane.start, lane.end)) for lane in lanes.lanes
    ] == sessions
    for n, lane in enumerate(lanes.lanes):
        assert lanes.lane_of(lane.session) == n
        assert lane.events == tuple(i for i, e in enumerate(trace) if e.session_id == lane.session)
    assert sum(len(lane.events) for lane in lanes.lanes) == len(trace)
