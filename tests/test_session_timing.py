"""Where a session replay observes without being asked (inside streamed tool output, after an
event naming several calls), and what the ledger expects of lifecycle events that arrive out of
order and of a resume whose history finishes a running call."""

from __future__ import annotations

from harness.replay import replay
from harness.replay.session import plan_and_ledger
from harness.rules.session_ledger import SessionLedger
from tests.scenarios_for_tests import LIBRARY, load_session, parse_session

STREAM = """
id: stream-without-checkpoints
title: t
description: d
source: s
layer: {layer}
trace:
  - user_message: {{id: u1, text: "Run it."}}
  - interaction_start: {{id: i1}}
  - message: {{id: m1, text: "Running."}}
  - tool_stream: {{call_id: c1, event_type: call, tool_name: bash_command, summary: "-> run"}}
  - tool_stream: {{call_id: c1, event_type: result, tool_name: bash_command, stream_part: "a", is_complete: false}}
  - tool_stream: {{call_id: c1, event_type: result, tool_name: bash_command, stream_part: "b", is_complete: false}}
  - tool_stream: {{call_id: c1, event_type: result, tool_name: bash_command, summary: "half", stream_part: "c", is_complete: false}}
  - tool_stream: {{call_id: c1, event_type: result, tool_name: bash_command, summary: "done", stream_part: "d"}}
  - tool_select: {{calls: [{{id: t1, name: read}}]}}
  - tool_select: {{calls: [{{id: t2, name: read}}, {{id: t3, name: read}}]}}
  - tool_executing: {{calls: [{{id: t2, name: read}}, {{id: t3, name: read}}]}}
  - tool_completed:
      calls: [{{id: t1, name: read}}, {{id: t2, name: read}}, {{id: t3, name: read}}]
      results: [{{id: t1, content: x}}, {{id: t2, content: y}}, {{id: t3, content: z}}]
  - interaction_end: {{id: i1}}
"""


def _points(layer: str) -> tuple[dict[int, bool], list[str]]:
    """(event index -> whether the point is full, the kind of each event)."""
    scenario = parse_session(STREAM.format(layer=layer))
    prepared = plan_and_ledger(scenario.trace, history=layer == "history")
    return {p.index: p.full for p in prepared.plan}, [e.kind for e in scenario.trace]


def test_a_stream_is_observed_at_its_first_unfinished_part_and_where_its_summary_changes():
    points, kinds = _points("session")
    call, a, b, c, d = (i for i, kind in enumerate(kinds) if kind == "tool_stream")
    assert points.get(a) is True  # its first unfinished part
    assert points.get(c) is True  # a new summary while it streams
    assert not {call, b, d} & set(points)  # the call part, nothing new, the complete part


def test_an_event_naming_several_calls_is_observed_for_its_notifications():
    points, kinds = _points("session")
    one, several = (i for i, kind in enumerate(kinds) if kind == "tool_select")
    executing = kinds.index("tool_executing")
    assert one not in points  # one call: the scenario's own points see it
    assert points.get(several) is False and points.get(executing) is False


def test_the_history_layer_keeps_its_own_points():
    points, kinds = _points("history")
    assert set(points) == {kinds.index("interaction_end")}


def test_the_frozen_summary_is_caught_only_inside_the_stream():
    scenario = load_session(LIBRARY / "session" / "streamed-summary-replaced.yaml")
    assert replay(scenario, "session-reference").status == "pass"
    caught = replay(scenario, "session-mutant-summary-frozen-until-complete")
    assert set(caught.rules_broken) == {"streamed-tool-results"}
    assert scenario.trace[caught.violations[0].event_index].kind == "tool_stream"
    assert "'exit code 0, 2 modified files'" in caught.violations[0].message


def test_a_completion_is_final_for_the_ledger():
    scenario = load_session(LIBRARY / "session" / "executing-after-completion.yaml")
    ledger = SessionLedger(scenario.trace)
    record = ledger.calls[("main", "toolu_01OoReadDraft01")]
    assert [status for _, status, _ in record.timeline] == ["preparing", "completed"]
    late = ledger.calls[("main", "toolu_01OoReadLog02")]
    assert [status for _, status, _ in late.timeline] == ["completed"]


def test_a_resume_finishes_the_calls_its_history_holds_results_for():
    scenario = load_session(LIBRARY / "session" / "resume-while-call-running.yaml")
    prepared = plan_and_ledger(scenario.trace)
    ledger = prepared.ledger
    resume = next(i for i, e in enumerate(scenario.trace) if e.kind == "resume")
    before = {(s, c, status) for s, c, status, _ in ledger.notes_at[resume - 1]}
    after = {(s, c, status) for s, c, status, _ in ledger.notes_at[resume]}
    assert before == {
        ("main", "toolu_01RwRollout01", "using"),
        ("main", "toolu_01RwErrors02", "using"),
    }
    assert after == {("main", "toolu_01RwErrors02", "using")}
    assert ledger.settled_at(("main", "toolu_01RwRollout01"), resume) == resume
    assert ledger.settled_at(("main", "toolu_01RwRollout01"), resume - 1) is None


def test_a_notification_kept_across_the_resume_is_named():
    scenario = load_session(LIBRARY / "session" / "resume-while-call-running.yaml")
    assert replay(scenario, "session-reference").status == "pass"
    caught = replay(scenario, "session-mutant-resume-keeps-notifications")
    messages = [v.message for v in caught.violations if v.rule == "notification-lifecycle"]
    assert messages and "has its result in the history the session was resumed from" in messages[0]
