"""Reading a session scenario (the session and history layers) from its top-level fields."""

from __future__ import annotations

import dataclasses
from typing import Any

from harness.model import session as ev
from harness.model.projection import history_from_events
from harness.model.trace import LazyRun, Trace
from harness.scenario._fields import Fields
from harness.scenario.expectations import check_expectations, read_expectations
from harness.scenario.faults import apply_faults
from harness.scenario.reader import StepReader
from harness.scenario.types import ScenarioHeader, SessionScenario, fields_of

#: the top-level fields only session scenarios have
SESSION_KEYS = ("session", "unlabelled_subsessions", "observe", "trace", "faults", "expect")


def read_session_scenario(r: StepReader, top: Fields, header: ScenarioHeader) -> SessionScenario:
    """The trace (steps, then faults), its checks, and the pinned expectations."""
    unlabelled = top.bool("unlabelled_subsessions", False)
    every_event = (
        top.choice("observe", ("checkpoints", "every_event"), "checkpoints") == "every_event"
    )
    steps = top.list("trace", required=True)
    if not steps:
        top.fail(top.line_of("trace"), "the trace is empty")
    # events, and the compact runs generator steps expand to on every pass
    problems = len(r.problems)
    items: list[Any] = r.steps(steps, "trace")
    faults = top.list("faults")
    if faults:  # faults pick events by position: the trace as a list of events
        items = apply_faults(r, faults, list(Trace(items)))
    # after the faults: their 'then' steps and live resumes too
    # (a trace whose steps could not be read is not judged for what it lacks)
    if not _check_trace(r, items) and len(r.problems) == problems:
        top.note(
            top.line_of("trace"),
            "the trace holds only checkpoints and resumes of empty histories: nothing a "
            "consumer could get wrong, so the scenario would check nothing",
        )
    trace = Trace(items)
    expectations = read_expectations(r, top.list("expect"))
    check_expectations(r, expectations, trace)
    return SessionScenario(
        **fields_of(header),
        trace=trace,
        expectations=expectations,
        unlabelled_subsessions=unlabelled,
        observe_every_event=every_event,
        _delivered=unlabelled_delivery(trace) if unlabelled else None,
    )


def _check_trace(r: StepReader, items: list[Any]) -> bool:
    """Message ids refer to started messages; live resumes get their history (in place).
    True when some event gives a consumer something to show: not only checkpoints and
    resumes of empty histories."""
    started: set[tuple[str, str]] = set()
    content = False
    for n, item in enumerate(items):
        content = content or isinstance(item, LazyRun) or _holds_content(item)
        if isinstance(item, LazyRun) and item.messages is not None:
            # a generated run whose deltas and ends name its own messages: only its starts
            # can clash, and they are known without making its events again
            for key in item.messages:
                if key in started:
                    r.note(item.line, f"message id {key[1]!r} is used twice in session {key[0]!r}")
                started.add(key)
            item.messages = None  # read once; not kept for the scenario's life
            continue
        for event in item.make() if isinstance(item, LazyRun) else (item,):
            if isinstance(event, (ev.MessageStart, ev.UserMessage)):
                key = (event.session_id, event.message_id)
                if key in started:
                    r.note(
                        event.line,
                        f"message id {event.message_id!r} is used twice in session "
                        f"{event.session_id!r}",
                    )
                started.add(key)
            elif isinstance(event, (ev.MessageDelta, ev.MessageEnd)):
                if (event.session_id, event.message_id) not in started:
                    r.note(
                        event.line,
                        f"{event.kind} for message {event.message_id!r}, "
                        f"which was not started in session {event.session_id!r}",
                    )
            elif (
                isinstance(event, ev.Resume) and not event.history
            ):  # a literal event: replaced in place
                history = history_from_events(Trace(items[:n]), event.session_id)
                items[n] = dataclasses.replace(event, history=history)
                content = content or bool(history)
    return content


def _holds_content(event: ev.SessionEvent) -> bool:
    if isinstance(event, ev.Resume):
        return bool(event.history)
    return not isinstance(event, ev.Checkpoint)


_BRACKETS = (ev.SubsessionStart, ev.SubsessionEnd)


def unlabelled_delivery(trace: Trace | tuple[ev.SessionEvent, ...]) -> Trace:
    """The trace as a channel that does not label sub-sessions delivers it."""
    if isinstance(trace, Trace):
        return trace.mapped(_unlabelled)
    return Trace(map(_unlabelled, trace))


def _unlabelled(event: ev.SessionEvent) -> ev.SessionEvent:
    """A sub-session event without its session ids; the brackets keep theirs."""
    if event.parent_session_id is None or isinstance(event, _BRACKETS):
        return event
    return dataclasses.replace(event, session_id="", parent_session_id=None)
