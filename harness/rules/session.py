"""Session-layer rules (seeds 000 and 001): notifications, attachment, resume, isolation."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from harness.model import session as ev
from harness.model.observation import (
    AttachedCall,
    Message,
    Notification,
    Transcript,
    normalize_input,
)
from harness.rules.registry import Violation, rule
from harness.rules.session_ledger import CallRecord, Key, SessionLedger, project_history

SEED_000 = "seed 000 (Agent C tool call event handling)"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where the replayer observed the adapter: after event ``index``."""

    index: int
    reason: str
    full: bool
    final: bool = False
    resumed_session: str | None = None


class SessionCheck:
    """Everything a session rule may look at for one checkpoint."""

    def __init__(
        self,
        ledger: SessionLedger,
        trace: Sequence[ev.SessionEvent],
        checkpoint: Checkpoint,
        notifications: tuple[Notification, ...],
        transcript: Transcript | None,
    ) -> None:
        self.ledger = ledger
        self.trace = trace
        self.checkpoint = checkpoint
        self.notifications = notifications
        self._transcript = transcript
        self._attached: dict[Key, list[tuple[str | None, str, AttachedCall]]] | None = None

    @property
    def transcript(self) -> Transcript:
        assert self._transcript is not None, "a transcript rule ran at a light checkpoint"
        return self._transcript

    @property
    def attached(self) -> dict[Key, list[tuple[str | None, str, AttachedCall]]]:
        """(session shown in, call id) -> [(message id, role, call)] for every attached call."""
        if self._attached is None:
            out: dict[Key, list[tuple[str | None, str, AttachedCall]]] = {}
            for session_id, view in self.transcript.sessions.items():
                for message in view.messages:
                    for call in message.tool_calls:
                        out.setdefault((session_id, call.id), []).append(
                            (message.message_id, message.role, call)
                        )
            self._attached = out
        return self._attached

    def where(self, index: int) -> str:
        return f"event {index} ({self.trace[index].kind})" if 0 <= index < len(self.trace) else "the start"


def _label(record: CallRecord) -> str:
    name = f" {record.name}" if record.name else ""
    return f"tool call{name} {record.call_id!r} of session {record.session_id!r}"


# -- notifications ---------------------------------------------------------------------------


@rule(
    "session-keyed-tracking",
    layer="session",
    needs="notifications",
    source=f"{SEED_000}, problem 1",
    statement="A tool call's identity is (session id, tool call id); the same id in two sessions never collides.",
)
def session_keyed_tracking(c: SessionCheck) -> Iterator[Violation]:
    ledger = c.ledger
    shown = {(n.session_id, n.tool_call_id) for n in c.notifications}
    for key, record in ledger.pending.items():
        others = ledger.sessions_by_call.get(record.call_id, set()) - {record.session_id}
        if key not in shown and others:
            yield Violation(
                "session-keyed-tracking",
                record.last_index,
                f"{_label(record)} is {record.status} since {c.where(record.last_index)}, but no "
                f"notification shows it; the same id is also used in session(s) "
                f"{', '.join(sorted(others))}, whose events must not overwrite or remove it",
            )
    for note in c.notifications:
        key = (note.session_id, note.tool_call_id)
        owners = ledger.sessions_by_call.get(note.tool_call_id, set())
        if key not in ledger.calls and owners:
            yield Violation(
                "session-keyed-tracking",
                c.checkpoint.index,
                f"a notification names session {note.session_id!r} for tool call "
                f"{note.tool_call_id!r}, which only session(s) {', '.join(sorted(owners))} used",
            )


@rule(
    "notification-lifecycle",
    layer="session",
    needs="notifications",
    source=SEED_000,
    statement=(
        "select shows 'preparing', executing shows 'using', completed removes the notification, "
        "matched by (session, id) however many events come in between."
    ),
)
def notification_lifecycle(c: SessionCheck) -> Iterator[Violation]:
    ledger = c.ledger
    seen: set[Key] = set()
    for note in c.notifications:
        key = (note.session_id, note.tool_call_id)
        if key in seen:
            yield Violation(
                "notification-lifecycle",
                c.checkpoint.index,
                f"tool call {note.tool_call_id!r} of session {note.session_id!r} has more than one notification",
            )
        seen.add(key)
        record = ledger.calls.get(key)
        if record is None:
            if not ledger.sessions_by_call.get(note.tool_call_id):
                yield Violation(
                    "notification-lifecycle",
                    c.checkpoint.index,
                    f"a notification shows tool call {note.tool_call_id!r}, which no event selected",
                )
        elif record.status == "completed":
            yield Violation(
                "notification-lifecycle",
                record.completed_index,
                f"{_label(record)} completed at {c.where(record.completed_index)}, but its "
                f"'{note.status}' notification is still shown",
            )
        elif record.status in ("preparing", "using") and note.status != record.status:
            yield Violation(
                "notification-lifecycle",
                record.last_index,
                f"{_label(record)} should show '{record.status}' after {c.where(record.last_index)}, "
                f"but shows '{note.status}'",
            )
        elif record.status in ("preparing", "using") and record.name and note.tool_name != record.name:
            yield Violation(
                "notification-lifecycle",
                record.last_index,
                f"{_label(record)} is shown with the tool name {note.tool_name!r}",
            )
    for key, record in ledger.pending.items():
        others = ledger.sessions_by_call.get(record.call_id, set()) - {record.session_id}
        if key not in seen and not others:
            yield Violation(
                "notification-lifecycle",
                record.last_index,
                f"{_label(record)} is {record.status} since {c.where(record.last_index)}, but no "
                f"notification shows it",
            )


def _leftovers(c: SessionCheck, reason: str, rule_id: str, what: str) -> Iterator[Violation]:
    for note in c.notifications:
        record = c.ledger.calls.get((note.session_id, note.tool_call_id))
        if record is not None and record.status == "cleared" and record.cleared_by == reason:
            yield Violation(
                rule_id,
                record.last_index,
                f"{_label(record)} still shows '{note.status}' after {what} at "
                f"{c.where(record.last_index)}; it should have been cleared then",
            )


@rule(
    "cleanup-interaction-end",
    layer="session",
    needs="notifications",
    source=f"{SEED_000}, problem 2",
    statement="Once a session's interaction ends, no notification of that session remains.",
)
def cleanup_interaction_end(c: SessionCheck) -> Iterator[Violation]:
    return _leftovers(c, "interaction_end", "cleanup-interaction-end", "its session's interaction ended")


@rule(
    "cleanup-user-turn",
    layer="session",
    needs="notifications",
    source=f"{SEED_000}, problem 3",
    statement="Once the user's turn starts, no notification remains in any session.",
)
def cleanup_user_turn(c: SessionCheck) -> Iterator[Violation]:
    return _leftovers(c, "user_turn", "cleanup-user-turn", "the user's turn started")


@rule(
    "lost-completion",
    layer="session",
    source=f"{SEED_000}, Q1",
    statement="A tool whose completion never arrives is cleared by the safety nets and never shows a result.",
)
def lost_completion(c: SessionCheck) -> Iterator[Violation]:
    for key, places in c.attached.items():
        record = c.ledger.calls.get(key)
        if record is not None and record.status != "completed":
            message_id = places[0][0]
            yield Violation(
                "lost-completion",
                record.last_index,
                f"{_label(record)} never completed, but message {message_id!r} shows it"
                + (f" with the result {places[0][2].result!r}" if places[0][2].result is not None else ""),
            )


# -- attachment ------------------------------------------------------------------------------


def _check_attachment(c: SessionCheck, record: CallRecord, rule_id: str, why: str) -> Iterator[Violation]:
    places = c.attached.get((record.session_id, record.call_id), [])
    hosts = [p[0] for p in places]
    if record.host not in hosts:
        if not places:
            found = "no message of that session shows it"
        else:
            found = f"it is attached to message {hosts[0]!r} instead"
        yield Violation(
            rule_id,
            record.host_index,
            f"{_label(record)} (completed at {c.where(record.completed_index)}) belongs on message "
            f"{record.host!r}, {why}; {found}",
        )
        return
    call = places[hosts.index(record.host)][2]
    expected = record.result.content if record.result else None
    if call.result != expected:
        yield Violation(
            rule_id,
            record.completed_index,
            f"{_label(record)} on message {record.host!r} shows the result {call.result!r}; "
            f"the completion carried {expected!r}",
        )
    elif call.name != record.name or call.input != normalize_input(record.arguments):
        yield Violation(
            rule_id,
            record.completed_index,
            f"{_label(record)} on message {record.host!r} shows name {call.name!r} and input "
            f"{call.input!r}; the completion carried {record.name!r} and {record.arguments}",
        )


@rule(
    "backward-attachment",
    layer="session",
    source=f"{SEED_000}, problem 4",
    statement=(
        "A completed tool call attaches to the latest assistant or thought message of the same "
        "session before it, in the same interaction, and that message is reported updated."
    ),
)
def backward_attachment(c: SessionCheck) -> Iterator[Violation]:
    updated = {(u.session_id, u.message_id) for u in c.transcript.updates}
    for record in c.ledger.calls.values():
        if record.mode != "backward" or record.status != "completed":
            continue
        problems = list(
            _check_attachment(
                c, record, "backward-attachment",
                "the latest assistant or thought message of its session before the completion",
            )
        )
        yield from problems
        if not problems and (record.session_id, record.host) not in updated:
            yield Violation(
                "backward-attachment",
                record.completed_index,
                f"{_label(record)} was attached to the earlier message {record.host!r}, but no "
                f"'message updated' notice was emitted for that message",
            )


@rule(
    "forward-attachment",
    layer="session",
    source=SEED_000,
    statement=(
        "If the interaction started with tool calls (no earlier message in that session), they "
        "are held and attached to the next assistant or thought message of that session."
    ),
)
def forward_attachment(c: SessionCheck) -> Iterator[Violation]:
    for record in c.ledger.calls.values():
        if record.status != "completed":
            continue
        if record.mode == "forward":
            yield from _check_attachment(
                c, record, "forward-attachment",
                "the next assistant or thought message of its session (the interaction started with tool calls)",
            )
        elif record.mode in ("held", "dropped"):
            places = c.attached.get((record.session_id, record.call_id), [])
            if places:
                why = (
                    "it must be held until the session's next assistant or thought message, and none has started yet"
                    if record.mode == "held"
                    else "its interaction ended before any later message, so no message may carry it"
                )
                yield Violation(
                    "forward-attachment",
                    record.completed_index,
                    f"{_label(record)} completed at {c.where(record.completed_index)} with no earlier "
                    f"message in its interaction; {why}, yet message {places[0][0]!r} shows it",
                )


@rule(
    "exactly-once",
    layer="session",
    source=f"{SEED_000}, problem 4",
    statement="Each completed tool call appears on exactly one message; later messages never inherit earlier calls.",
)
def exactly_once(c: SessionCheck) -> Iterator[Violation]:
    for key, places in c.attached.items():
        if len(places) > 1:
            record = c.ledger.calls.get(key)
            index = record.completed_index if record else c.checkpoint.index
            hosts = ", ".join(repr(p[0]) for p in places)
            yield Violation(
                "exactly-once",
                index,
                f"tool call {key[1]!r} of session {key[0]!r} appears {len(places)} times, on messages {hosts}",
            )


# -- resume, streamed results, isolation ----------------------------------------------------


def _describe(m: Message) -> str:
    calls = ", ".join(f"{t.id}={t.result!r}" for t in m.tool_calls)
    return f"{m.role} {m.text[:40]!r}" + (f" with tool calls [{calls}]" if calls else "")


def _project(m: Message) -> tuple[object, ...]:
    calls = tuple(sorted((t.id, t.name, repr(t.input), t.result, t.is_error) for t in m.tool_calls))
    return (m.role, m.text, calls)


@rule(
    "resume-equivalence",
    layer="session",
    source=f"{SEED_000}, problem 5",
    statement=(
        "Rebuilding a session from its persisted history gives the same messages and attachments, "
        "tool calls and results matched by id, as the live stream did."
    ),
)
def resume_equivalence(c: SessionCheck) -> Iterator[Violation]:
    session_id = c.checkpoint.resumed_session
    if session_id is None:
        return
    event = c.trace[c.checkpoint.index]
    assert isinstance(event, ev.Resume)
    expected = project_history(session_id, event.history)
    view = c.transcript.sessions.get(session_id)
    actual = view.messages if view else ()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if _project(want) != _project(got):
            yield Violation(
                "resume-equivalence",
                c.checkpoint.index,
                f"after resuming session {session_id!r}, message {i} is {_describe(got)}; "
                f"the live session had {_describe(want)}",
            )
            return
    if len(expected) != len(actual):
        yield Violation(
            "resume-equivalence",
            c.checkpoint.index,
            f"after resuming session {session_id!r} the transcript has {len(actual)} messages; "
            f"the live session had {len(expected)}",
        )


@rule(
    "streamed-tool-results",
    layer="session",
    source="seed 001 (streamed tool call responses)",
    statement=(
        "stream_part chunks of one call_id accumulate in order; the final is_complete chunk leaves "
        "the whole content; a later summary replaces an earlier one; delegation call/result pairs "
        "are tracked as one entry, like tool calls."
    ),
)
def streamed_tool_results(c: SessionCheck) -> Iterator[Violation]:
    for (session_id, call_id), record in c.ledger.streams.items():
        view = c.transcript.sessions.get(session_id)
        entries = [s for s in (view.tool_streams if view else ()) if s.call_id == call_id]
        where = f"streamed {record.event_type} {call_id!r} of session {session_id!r}"
        if not entries:
            yield Violation("streamed-tool-results", record.last_index, f"{where} is not shown at all")
            continue
        if len(entries) > 1:
            yield Violation(
                "streamed-tool-results",
                record.last_index,
                f"{where} is shown as {len(entries)} separate entries; all parts of one call_id are one entry",
            )
        shown = entries[-1]
        content = "".join(record.parts)
        if shown.content != content:
            yield Violation(
                "streamed-tool-results",
                record.last_index,
                f"{where} shows the content {shown.content[-60:]!r}; the stream parts so far add up to "
                f"{content[-60:]!r} ({len(record.parts)} parts, {len(content)} characters)",
            )
        if shown.summary != record.summary:
            yield Violation(
                "streamed-tool-results",
                record.last_index,
                f"{where} shows the summary {shown.summary!r}; the latest summary is {record.summary!r}",
            )
        if shown.is_complete != record.is_complete:
            yield Violation(
                "streamed-tool-results",
                record.last_index,
                f"{where} shows is_complete={shown.is_complete}; the latest part says {record.is_complete}",
            )
        if shown.event_type != record.event_type:
            yield Violation(
                "streamed-tool-results",
                record.last_index,
                f"{where} shows the event type {shown.event_type!r}; the latest part is {record.event_type!r}",
            )


@rule(
    "subsession-isolation",
    layer="session",
    source=f"{SEED_000} and seed 004",
    statement=(
        "Events of a sub-session never change the parent's transcript, except through the "
        "delegation tool's own result."
    ),
)
def subsession_isolation(c: SessionCheck) -> Iterator[Violation]:
    ledger = c.ledger
    roots = {s for s in c.transcript.sessions if ledger.is_root(s) and s not in ledger.resumed_at}
    texts = ledger.expected_texts(c.trace, c.checkpoint.index + 1, roots) if c.checkpoint.final else {}
    for session_id, view in c.transcript.sessions.items():
        for message in view.messages:
            key = (session_id, message.message_id or "")
            if key not in ledger.messages:
                owners = [s for s in ledger.message_sessions.get(message.message_id or "", ()) if s != session_id]
                if owners:
                    origin = ledger.messages.get((owners[0], message.message_id or ""))
                    yield Violation(
                        "subsession-isolation",
                        origin.index if origin else c.checkpoint.index,
                        f"message {message.message_id!r} of session {owners[0]!r} appears in the "
                        f"transcript of session {session_id!r}",
                    )
                continue
            if key in texts and texts[key] != message.text:
                yield Violation(
                    "subsession-isolation",
                    ledger.messages[key].index,
                    f"message {message.message_id!r} of session {session_id!r} reads "
                    f"{message.text[-60:]!r}; its own events give {texts[key][-60:]!r}",
                )
            for call in message.tool_calls:
                if (session_id, call.id) in ledger.calls:
                    continue
                for owner in ledger.sessions_by_call.get(call.id, ()):
                    record = ledger.calls.get((owner, call.id))
                    if record is not None and owner != session_id:
                        yield Violation(
                            "subsession-isolation",
                            record.completed_index if record.completed_index >= 0 else record.last_index,
                            f"{_label(record)} is attached to message {message.message_id!r} of "
                            f"session {session_id!r}",
                        )
