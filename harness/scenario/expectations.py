"""Pinned expectations of a session scenario: what must be shown at a checkpoint or at the end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness._yaml import LocatedDict, LocatedList
from harness.model import session as ev
from harness.scenario.reader import StepReader
from harness.scenario.types import Expectation, PinnedMessage


def read_expectations(r: StepReader, items: LocatedList) -> tuple[Expectation, ...]:
    return tuple(_expectation(r, item, items.line_of(i)) for i, item in enumerate(items))


def check_expectations(
    r: StepReader, expectations: Sequence[Expectation], trace: Sequence[ev.SessionEvent]
) -> None:
    """Each expectation's ``at`` names a checkpoint of the trace (or ``end``)."""
    named = [e for e in expectations if e.at != "end"]
    if not named:  # reading a long trace again for nothing would cost a whole expansion
        return
    names = {e.name for e in trace if isinstance(e, ev.Checkpoint)}
    for expectation in named:
        if expectation.at not in names:
            r.note(
                expectation.line,
                f"expectation at {expectation.at!r}: no checkpoint of that name in the trace",
            )


def _expectation(r: StepReader, item: Any, line: int) -> Expectation:
    e = r.fields(item, "an expectation", line)
    e.check_keys(("at", "notifications", "messages"))
    notifications = None
    if e.has("notifications"):
        notes = e.list("notifications")
        notifications = tuple(_pinned_note(r, n, notes.line_of(j)) for j, n in enumerate(notes))
    messages: dict[str, tuple[PinnedMessage, ...]] = {}
    if e.has("messages"):
        by_session = e.raw("messages")
        if not isinstance(by_session, LocatedDict):
            e.fail(e.line_of("messages"), "'messages' maps session ids to lists of messages")
        for session_id in by_session:
            lst = r.fields(by_session, "'messages'", e.line_of("messages")).list(session_id)
            messages[str(session_id)] = tuple(
                _pinned_message(r, m, lst.line_of(j)) for j, m in enumerate(lst)
            )
    return Expectation(
        at=e.str("at", "end"), line=e.line, notifications=notifications, messages=messages
    )


def _pinned_note(r: StepReader, item: Any, line: int) -> tuple[str, str, str]:
    n = r.fields(item, "a pinned notification", line)
    n.check_keys(("session", "id", "status"))
    return (
        n.str("session", r.default_session),
        n.str("id"),
        n.choice("status", ("preparing", "using")),
    )


def _pinned_message(r: StepReader, item: Any, line: int) -> PinnedMessage:
    m = r.fields(item, "a pinned message", line)
    m.check_keys(("role", "text", "tool_calls"))
    calls = m.str_list("tool_calls") if m.has("tool_calls") else None
    return PinnedMessage(
        m.choice("role", ("user", "assistant", "thought")), m.optional_str("text"), calls
    )
