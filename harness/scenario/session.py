"""Reading a session scenario (the session and history layers) from its top-level fields."""

from __future__ import annotations

import dataclasses

from harness.model import session as ev
from harness.model.projection import history_from_events
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
    trace: list[ev.SessionEvent] = r.steps(steps, "trace")
    trace = apply_faults(r, top.list("faults"), trace)
    _check_trace(r, trace)  # after the faults: their 'then' steps and live resumes too
    expectations = read_expectations(r, top.list("expect"))
    check_expectations(r, expectations, trace)
    return SessionScenario(
        **fields_of(header),
        trace=tuple(trace),
        expectations=expectations,
        unlabelled_subsessions=unlabelled,
        observe_every_event=every_event,
        _delivered=_unlabelled(trace) if unlabelled else (),
    )


def _check_trace(r: StepReader, trace: list[ev.SessionEvent]) -> None:
    """Message ids refer to started messages; live resumes get their history."""
    started: set[tuple[str, str]] = set()
    for i, event in enumerate(trace):
        if isinstance(event, (ev.MessageStart, ev.UserMessage)):
            key = (event.session_id, event.message_id)
            if key in started:
                r.note(
                    event.line,
                    f"message id {event.message_id!r} is used twice in session {event.session_id!r}",
                )
            started.add(key)
        elif isinstance(event, (ev.MessageDelta, ev.MessageEnd)):
            if (event.session_id, event.message_id) not in started:
                r.note(
                    event.line,
                    f"{event.kind} for message {event.message_id!r}, "
                    f"which was not started in session {event.session_id!r}",
                )
        elif isinstance(event, ev.Resume) and not event.history:
            history = history_from_events(trace[:i], event.session_id)
            trace[i] = dataclasses.replace(event, history=history)


def _unlabelled(trace: list[ev.SessionEvent]) -> tuple[ev.SessionEvent, ...]:
    """Sub-session events without their session ids; their brackets keep theirs."""
    brackets = (ev.SubsessionStart, ev.SubsessionEnd)
    return tuple(
        dataclasses.replace(e, session_id="", parent_session_id=None)
        if e.parent_session_id is not None and not isinstance(e, brackets)
        else e
        for e in trace
    )
