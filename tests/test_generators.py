"""Generators are deterministic, bounded and expand to what they promise."""

from __future__ import annotations

from collections import Counter
from textwrap import dedent

import pytest

from harness.model import session as ev
from harness.scenario.generators import burst_events, split_text
from tests.scenarios_for_tests import parse_session


def scenario(trace: str, **top: object) -> str:
    head = "".join(f"{k}: {v}\n" for k, v in top.items())
    return (
        dedent(
            """\
        id: gen
        title: gen
        description: gen
        source: tests
        layer: session
        """
        )
        + head
        + "trace:\n"
        + dedent(trace)
    )


def test_burst_is_the_same_for_the_same_seed_and_differs_for_another():
    first = burst_events("sub", "main", 500, 7, 3, (), 1)
    again = burst_events("sub", "main", 500, 7, 3, (), 1)
    other = burst_events("sub", "main", 500, 8, 3, (), 1)
    assert first == again
    assert first != other


@pytest.mark.parametrize("size", [50, 1_000, 5_000])
def test_burst_has_about_the_asked_size_and_is_well_formed(size):
    events = burst_events("sub", "main", size, 1, 3, (), 1)
    assert size <= len(events) <= size + 10
    kinds = Counter(e.kind for e in events)
    assert kinds["subsession_start"] == kinds["subsession_end"] >= 1
    assert kinds["tool_select"] == kinds["tool_executing"] == kinds["tool_completed"]
    # every tool started is completed, every message started has its end, all in their session
    open_calls: set[tuple[str, str]] = set()
    for event in events:
        if isinstance(event, ev.ToolExecuting):
            open_calls.add((event.session_id, event.calls[0].id))
        elif isinstance(event, ev.ToolCompleted):
            open_calls.remove((event.session_id, event.calls[0].id))
    assert not open_calls
    assert {e.parent_session_id for e in events if e.session_id == "sub"} == {"main"}


def test_burst_reuses_the_given_ids_first():
    events = burst_events("sub", "main", 400, 3, 1, ("toolu_shared",), 1)
    first_select = next(e for e in events if isinstance(e, ev.ToolSelect))
    assert first_select.calls[0].id == "toolu_shared"


def test_nested_bursts_name_their_parents():
    events = burst_events("sub", "main", 3_000, 2, 3, (), 1)
    parents = {
        e.session_id: e.parent_session_id for e in events if isinstance(e, ev.SubsessionStart)
    }
    nested = [s for s in parents if s != "sub"]
    assert nested, "depth 3 should nest sub-sessions"
    assert all(parents[s] in parents for s in nested)


def test_split_text_keeps_the_text():
    text = "The config turns debugging on for every service."
    assert "".join(split_text(text, None)) == text
    assert len(split_text(text, 4)) == 4 and "".join(split_text(text, 4)) == text
    assert split_text("", 3) == []


def test_repeat_substitutes_the_iteration_number():
    s = parse_session(
        scenario(
            """\
            - repeat:
                times: 3
                steps:
                  - tool: {id: "toolu_{i}", name: bash_command, result: "run {i}"}
            """
        ),
        "r.yaml",
    )
    completed = [e for e in s.trace if isinstance(e, ev.ToolCompleted)]
    assert [e.calls[0].id for e in completed] == ["toolu_0", "toolu_1", "toolu_2"]
    assert [e.results[0].content for e in completed] == ["run 0", "run 1", "run 2"]


def test_message_sugar_expands_to_start_deltas_end():
    s = parse_session(
        scenario("- message: {id: m1, text: 'abcdef', chunks: 3, role: thought}\n"), "m.yaml"
    )
    assert [e.kind for e in s.trace] == [
        "message_start",
        "message_delta",
        "message_delta",
        "message_delta",
        "message_end",
    ]
    assert "".join(e.text for e in s.trace if isinstance(e, ev.MessageDelta)) == "abcdef"
    first = s.trace[0]
    assert isinstance(first, ev.MessageStart) and first.role == "thought"


def test_the_same_scenario_expands_identically_each_time():
    text = scenario("- burst: {parent: main, events: 800}\n", seed=11)
    assert parse_session(text, "a.yaml").trace == parse_session(text, "a.yaml").trace
    assert (
        parse_session(text, "a.yaml").trace
        != parse_session(text.replace("seed: 11", "seed: 12"), "a.yaml").trace
    )


def test_faults_drop_duplicate_and_cancel():
    base = """\
        - interaction_start: {id: i1}
        - message: {id: m1, text: hi}
        - tool: {id: toolu_01, name: workspace_read, result: A}
        - tool: {id: toolu_02, name: workspace_read, result: B}
        - interaction_end: {id: i1}
        """
    dropped = parse_session(
        scenario(base) + "faults:\n  - drop: {match: {type: tool_completed, id: toolu_02}}\n",
        "d.yaml",
    )
    assert [e.calls[0].id for e in dropped.trace if isinstance(e, ev.ToolCompleted)] == ["toolu_01"]
    doubled = parse_session(
        scenario(base)
        + "faults:\n  - duplicate: {match: {type: tool_completed, id: toolu_01}, times: 2}\n",
        "u.yaml",
    )
    assert [e.calls[0].id for e in doubled.trace if isinstance(e, ev.ToolCompleted)] == [
        "toolu_01"
    ] * 3 + ["toolu_02"]
    cut = parse_session(
        scenario(base)
        + "faults:\n  - cancel: {match: {type: tool_executing, id: toolu_02}, then: [{user_turn_start: }]}\n",
        "c.yaml",
    )
    assert [e.kind for e in cut.trace[-2:]] == ["tool_executing", "user_turn_start"]
