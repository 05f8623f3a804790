"""Long traces: generated events kept compact and expanded on every pass, with the same
verdicts, violation indices and event lines as the same trace held as a tuple."""

from __future__ import annotations

import dataclasses

import pytest

from harness._errors import ScenarioError
from harness.bench import bench_scenario, heavy_literal_text, heavy_message_text, peak_rss_mb
from harness.model import session as ev
from harness.model.observation import Observation
from harness.model.trace import LazyRun, Trace
from harness.replay import replay
from harness.scenario import SessionScenario, parse_scenario, reader

#: longer than the generated events a scenario keeps expanded, in these tests
LONG = 20_000


@pytest.fixture(autouse=True)
def keep_few(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "KEEP_EXPANDED", 5_000)


def _held(scenario: SessionScenario) -> SessionScenario:
    """The same scenario with every event held in memory, as traces were before."""
    return dataclasses.replace(scenario, trace=Trace(tuple(scenario.trace)))


def test_a_short_burst_is_kept_expanded_a_long_one_is_made_on_every_pass() -> None:
    short = bench_scenario(4_000)
    assert not any(isinstance(run, LazyRun) for run in short.trace.runs)
    long = bench_scenario(LONG)
    assert any(isinstance(run, LazyRun) for run in long.trace.runs)
    assert len(long.trace) == sum(1 for _ in long.trace) == sum(1 for _ in long.trace)


def test_a_lazy_trace_indexes_names_and_places_events_as_its_expansion_does() -> None:
    scenario = bench_scenario(LONG)
    trace = scenario.trace
    events = list(trace)
    for i in (0, 5, 6, 7, 1_000, LONG // 2, len(events) - 7, len(events) - 1):
        assert trace[i] == events[i]
        assert trace.kind_at(i) == events[i].kind
        assert scenario.event_line(i) == events[i].line
    assert trace[-1] == events[-1]
    assert trace[3:9] == tuple(events[3:9])
    assert trace == events and trace == bench_scenario(LONG).trace
    with pytest.raises(IndexError):
        trace[len(events)]


@pytest.mark.slow
@pytest.mark.parametrize("adapter", ["session-reference", "session-mutant-completed-never-cleared"])
def test_a_long_lazy_trace_gets_the_verdict_of_the_same_trace_held(adapter: str) -> None:
    """A mutant is caught at the same events whether the trace is expanded on every pass or
    held; memory is printed, not asserted."""
    scenario = bench_scenario(LONG)
    lazy = replay(scenario, adapter, timeout=60.0)
    print(f"{adapter}: {len(scenario.trace)} events, peak_rss_mb={peak_rss_mb():.0f}")
    held = replay(_held(scenario), adapter, timeout=60.0)
    assert lazy.status == held.status == ("pass" if adapter == "session-reference" else "fail")
    assert lazy.violations == held.violations
    if lazy.violations:
        first = lazy.violations[0]
        assert scenario.trace.kind_at(first.event_index) == "tool_completed"


def test_unlabelled_sub_sessions_are_delivered_without_ids_from_a_lazy_trace() -> None:
    text = (
        "id: long-unlabelled\ntitle: t\ndescription: d\nsource: s\nlayer: session\n"
        "unlabelled_subsessions: true\ntrace:\n"
        "  - user_message: {text: go}\n"
        f"  - burst: {{session: sub, parent: main, events: {LONG}, seed: 3}}\n"
        "  - user_turn_start:\n"
    )
    scenario = parse_scenario(text, "long.yaml")
    assert isinstance(scenario, SessionScenario)
    delivered = scenario.delivered
    assert len(delivered) == len(scenario.trace)
    inner = [e for e in delivered if not isinstance(e, (ev.SubsessionStart, ev.SubsessionEnd))]
    assert {e.session_id for e in inner} == {"main", ""}


def test_a_long_message_is_accumulated_once_not_copied_per_delta() -> None:
    scenario = parse_scenario(heavy_message_text(0.2), "message.yaml")
    assert isinstance(scenario, SessionScenario)
    assert any(isinstance(run, LazyRun) for run in scenario.trace.runs)
    result = replay(scenario, "session-reference")
    assert result.status == "pass"
    text = "".join(e.text for e in scenario.trace if isinstance(e, ev.MessageDelta))
    assert isinstance(result.observation, Observation)
    shown = result.observation.transcript.sessions["main"].messages[-1].text
    assert shown == text and len(text) > 150_000


def test_literal_steps_load_to_their_events() -> None:
    scenario = parse_scenario(heavy_literal_text(3_004), "literal.yaml")
    assert len(scenario.events) == 3_004
    assert replay(scenario, "session-reference").status == "pass"


def _burst_then(*steps: str) -> str:
    return (
        "id: long-ids\ntitle: t\ndescription: d\nsource: s\nlayer: session\ntrace:\n"
        "  - user_message: {text: go}\n"
        f"  - burst: {{session: sub, parent: main, events: {LONG}, seed: 3}}\n"
        + "".join(f"  - {step}\n" for step in steps)
    )


def test_message_ids_of_a_lazy_run_are_checked_against_the_steps_around_it() -> None:
    """A long burst's message ids are checked without making its events again: a later step
    may continue one of its messages, and may not start one again."""
    again = "message_start: {session: sub, parent: main, id: sub-m1}"
    more = "message_delta: {session: sub, parent: main, id: sub-m1, text: more}"
    scenario = parse_scenario(_burst_then(more), "long.yaml")
    assert isinstance(scenario, SessionScenario)
    assert any(isinstance(run, LazyRun) for run in scenario.trace.runs)
    with pytest.raises(ScenarioError, match="message id 'sub-m1' is used twice in session 'sub'"):
        parse_scenario(_burst_then(again), "long.yaml")
