"""Session-layer rules: notifications, attachment, resume, isolation."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from harness.model import session as ev
from harness.model.observation import (
    AttachedCall,
    Message,
    Notification,
    ToolStream,
    Transcript,
)
from harness.model.trace import Trace
from harness.rules.registry import Finding, rule
from harness.rules.session_ledger import (
    CallRecord,
    Key,
    SessionLedger,
    StreamRecord,
    project_history,
)


@dataclass(frozen=True, slots=True)
class ObservationPoint:
    """Where the replayer observed the adapter: after event ``index``."""

    index: int
    reason: str
    full: bool
    final: bool = False
    resumed_session: str | None = None


class SessionFacts:
    """The facts about one checkpoint (after event ``c``) that the session rules read: the
    ledger's expectations as of ``c``, the notifications and (at a full checkpoint) the
    transcript the adapter showed, and what follows from comparing them. The history rules
    read their own counterpart, ``harness.rules.history.HistoryFacts``."""

    def __init__(
        self,
        ledger: SessionLedger,
        trace: Trace,
        checkpoint: ObservationPoint,
        notifications: tuple[Notification, ...],
        transcript: Transcript | None,
    ) -> None:
        self.ledger = ledger
        self.trace = trace
        self.checkpoint = checkpoint
        self.c = checkpoint.index
        self.notifications = notifications
        self._transcript = transcript
        self._attached: dict[Key, list[tuple[str | None, AttachedCall]]] | None = None
        self._completed: list[CallRecord] | None = None
        self._as_expected: bool | None = None
        self._notes_as_expected: bool | None = None

    @property
    def transcript(self) -> Transcript:
        assert self._transcript is not None, "a transcript rule ran at a light checkpoint"
        return self._transcript

    @property
    def attached(self) -> dict[Key, list[tuple[str | None, AttachedCall]]]:
        """(session shown in, call id) -> [(message id, call)] for every attached call."""
        if self._attached is None:
            out: dict[Key, list[tuple[str | None, AttachedCall]]] = {}
            for session_id, view in self.transcript.sessions.items():
                for message in view.messages:
                    for call in message.tool_calls:
                        out.setdefault((session_id, call.id), []).append((message.message_id, call))
            self._attached = out
        return self._attached

    @property
    def attachments_as_expected(self) -> bool:
        """True when every completed call sits exactly where it belongs, with its result, once.

        One walk over the transcript for the common, passing case, each call looked up where
        the ledger places it; the attachment rules only walk the calls one by one when this is
        False.
        """
        if self._as_expected is None:
            self._as_expected = self._placed_as_expected()
        return self._as_expected

    def _placed_as_expected(self) -> bool:
        placements = self.ledger.placements_at(self.c)
        expected = placements.calls
        nowhere: dict[str, tuple[Any, ...]] = {}
        shown = distinct = 0
        for session_id, view in self.transcript.sessions.items():
            placed = expected.get(session_id, nowhere)
            ids: set[str] = set()
            for message in view.messages:
                calls = message.tool_calls
                if not calls:
                    continue
                host, shown = message.message_id, shown + len(calls)
                for call in calls:
                    want = placed.get(call.id)
                    if want is None or want != (
                        host,
                        call.name,
                        call.input,
                        call.result,
                        call.is_error,
                    ):
                        return False
                    ids.add(call.id)
            distinct += len(ids)
        # every call shown is placed there; none shown twice, none missing
        return shown == distinct == placements.total

    @property
    def notifications_as_expected(self) -> bool:
        """True when exactly the expected notifications show, each once, as expected."""
        if self._notes_as_expected is None:
            self._notes_as_expected = notifications_as_expected(
                self.ledger, self.c, self.notifications
            )
        return self._notes_as_expected

    def completed_calls(self) -> list[CallRecord]:
        """Every call completed by now and not wiped by a resume since (computed once)."""
        if self._completed is None:
            ledger, c = self.ledger, self.c
            self._completed = [
                record
                for key, record in ledger.calls.items()
                if 0 <= record.completed_index <= c
                and (not ledger.resumes or ledger.live_call(key, c) is not None)
            ]
        return self._completed

    def pending(self) -> tuple[CallRecord, ...]:
        return self.ledger.pending_at.get(self.c, ())

    def where(self, index: int) -> str:
        if not 0 <= index < len(self.trace):
            return "the start"
        # a Trace names a kind without expanding its generated events
        return f"event {index} ({self.trace.kind_at(index)})"


def notifications_as_expected(
    ledger: SessionLedger, c: int, notifications: Sequence[Notification]
) -> bool:
    """True when exactly the notifications expected after event ``c`` show, each once: no
    notifications rule can find anything then."""
    shown = {(n.session_id, n.tool_call_id, n.status, n.tool_name) for n in notifications}
    return len(shown) == len(notifications) and shown == ledger.notes_at.get(c, frozenset())


_message_id = attrgetter("message_id")


def _short(text: str, limit: int = 60) -> str:
    """Text as repr, cut to a readable length."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _result(result: str | None) -> str:
    return "no result" if result is None else f"the result {_short(result)}"


def _notes(notes: Sequence[Notification]) -> str:
    """Shown notifications as (session, call id, status), or 'none'."""
    shown = sorted((n.session_id, n.tool_call_id, n.status) for n in notes)
    return str(shown) if shown else "none"


# -- notifications ---------------------------------------------------------------------------


def _others(c: SessionFacts, record: CallRecord) -> set[str]:
    return c.ledger.sessions_using(record.call_id, c.c) - {record.session_id}


@rule(
    "session-keyed-tracking",
    layer="session",
    needs="notifications",
    source=(
        "a client keyed tool notices by call id alone, so a sub-session's call with a parent's "
        "id overwrote the parent's notice: scenarios/session/subsession-reuses-parent-tool-id.yaml"
    ),
    statement="A tool call's identity is (session id, tool call id); the same id in two sessions never collides.",
)
def session_keyed_tracking(c: SessionFacts) -> Iterator[Finding]:
    if c.notifications_as_expected:
        return
    shown = {(n.session_id, n.tool_call_id) for n in c.notifications}
    for record in c.pending():
        others = _others(c, record)
        if (record.session_id, record.call_id) not in shown and others:
            status, _, index = record.status_at(c.c)
            same_id = [n for n in c.notifications if n.tool_call_id == record.call_id]
            yield Finding(
                index,
                f"{record.label} is {status} since {c.where(index)} in the trace, but no "
                f"notification shows it (shown with that id: {_notes(same_id)}); the same id is "
                f"also used in session(s) {', '.join(sorted(others))}, whose events must not "
                f"overwrite or remove it",
            )
    for note in c.notifications:
        owners = c.ledger.sessions_using(note.tool_call_id, c.c)
        if owners and note.session_id not in owners:
            yield Finding(
                c.c,
                f"a notification names session {note.session_id!r} for tool call "
                f"{note.tool_call_id!r} (shown as {note.status!r}), which only session(s) "
                f"{', '.join(map(repr, sorted(owners)))} used in the trace",
            )


@rule(
    "notification-lifecycle",
    layer="session",
    needs="notifications",
    source=(
        "a client left tool notices orphaned when system messages, media or other tools came "
        "between a tool's select, execution and completion: "
        "scenarios/session/system-messages-and-media-between-tools.yaml"
    ),
    statement=(
        "select shows 'preparing', executing shows 'using', completed removes the notification, "
        "matched by (session, id) however many events come in between; an event naming several "
        "calls does so for each of them. A completion is final: a select or executing of the "
        "same call that arrives after it (events travel by different paths) shows nothing "
        "again. A resume finishes every call whose result its history holds: no notification "
        "shows such a call after it, and one still running at the resume stays as it was."
    ),
)
def notification_lifecycle(c: SessionFacts) -> Iterator[Finding]:
    if c.notifications_as_expected:
        return
    seen: set[Key] = set()
    for note in c.notifications:
        key = (note.session_id, note.tool_call_id)
        record = c.ledger.live_call(key, c.c)
        if key in seen:
            statuses = [
                n.status
                for n in c.notifications
                if n.tool_call_id == note.tool_call_id and n.session_id == note.session_id
            ]
            expected = record.status_at(c.c)[0] if record else "no call"
            yield Finding(
                c.c,
                f"tool call {note.tool_call_id!r} of session {note.session_id!r} has more than one "
                f"notification: shown as {', '.join(map(repr, statuses))}; in the trace it is "
                f"{expected!r}",
            )
        seen.add(key)
        if record is None:
            settled = c.ledger.settled_at(key, c.c)
            if settled is not None:
                yield Finding(
                    settled,
                    f"tool call {note.tool_call_id!r} of session {note.session_id!r} has its "
                    f"result in the history the session was resumed from at {c.where(settled)} "
                    f"in the trace, so it is finished and no notification should show it, but "
                    f"its '{note.status}' notification is still shown",
                )
            elif not c.ledger.sessions_using(note.tool_call_id, c.c):
                yield Finding(
                    c.c,
                    f"a notification shows tool call {note.tool_call_id!r} of session "
                    f"{note.session_id!r} as {note.status!r}, which no event of the trace selected",
                )
            continue
        status, _, index = record.status_at(c.c)
        if status == "completed":
            yield Finding(
                index,
                f"{record.label} completed at {c.where(index)} in the trace, so no notification "
                f"should show it, but its '{note.status}' notification is still shown",
            )
        elif status in ("preparing", "using") and note.status != status:
            yield Finding(
                index,
                f"{record.label} should show '{status}' after {c.where(index)} in the trace, but "
                f"shows '{note.status}'",
            )
        elif status in ("preparing", "using") and record.name and note.tool_name != record.name:
            yield Finding(
                index,
                f"{record.label} is shown with the tool name {note.tool_name!r}; the trace names "
                f"it {record.name!r}",
            )
    for record in c.pending():
        if (record.session_id, record.call_id) not in seen and not _others(c, record):
            status, _, index = record.status_at(c.c)
            in_session = [n for n in c.notifications if n.session_id == record.session_id]
            yield Finding(
                index,
                f"{record.label} is {status} since {c.where(index)} in the trace, but no "
                f"notification shows it (shown in its session: {_notes(in_session)})",
            )


def _leftovers(c: SessionFacts, reason: str, what: str) -> Iterator[Finding]:
    if c.notifications_as_expected:
        return
    for note in c.notifications:
        record = c.ledger.live_call((note.session_id, note.tool_call_id), c.c)
        if record is None:
            continue
        status, why, index = record.status_at(c.c)
        if status == "cleared" and why == reason:
            yield Finding(
                index,
                f"{record.label} still shows '{note.status}' after {what} at {c.where(index)} "
                f"in the trace; it should have been cleared then",
            )


@rule(
    "cleanup-interaction-end",
    layer="session",
    needs="notifications",
    source=(
        "a client kept the notice of a tool whose completion was lost after its interaction "
        "ended: scenarios/session/lost-completion-cleared-at-interaction-end.yaml"
    ),
    statement="Once a session's interaction ends, no notification of that session remains.",
)
def cleanup_interaction_end(c: SessionFacts) -> Iterator[Finding]:
    return _leftovers(c, "interaction_end", "its session's interaction ended")


@rule(
    "cleanup-user-turn",
    layer="session",
    needs="notifications",
    source=(
        "a client kept notices of lost completions into the user's turn: "
        "scenarios/session/lost-completion-cleared-at-user-turn.yaml"
    ),
    statement="Once the user's turn starts, no notification remains in any session.",
)
def cleanup_user_turn(c: SessionFacts) -> Iterator[Finding]:
    return _leftovers(c, "user_turn", "the user's turn started")


@rule(
    "lost-completion",
    layer="session",
    source=(
        "a tool's completion event can be lost; what clears its notice must not make up a "
        "result: scenarios/session/lost-completion-cleared-at-interaction-end.yaml"
    ),
    statement="A tool whose completion never arrives is cleared by the safety nets and never shows a result.",
)
def lost_completion(c: SessionFacts) -> Iterator[Finding]:
    if c.attachments_as_expected:
        return
    for key, places in c.attached.items():
        record = c.ledger.live_call(key, c.c)
        if record is None or record.completed_by(c.c):
            continue
        _, _, index = record.status_at(c.c)
        message_id, call = places[0]
        shown = f" with the result {_short(call.result)}" if call.result is not None else ""
        if record.completed_index > c.c:
            state = (
                f"has not completed yet in the trace (its completion is event "
                f"{record.completed_index}), so no message should show it"
            )
        else:
            state = "never completed in the trace, so no message should show it"
        hint = ""
        for owner in sorted(c.ledger.sessions_using(record.call_id, c.c) - {record.session_id}):
            other = c.ledger.calls[(owner, record.call_id)]
            if other.completed_by(c.c) and other.result and other.result.content == call.result:
                hint = f"; that is the result of session {owner!r}'s call with the same id"
                break
        yield Finding(
            index,
            f"{record.label} {state}, but message {message_id!r} shows it{shown}{hint}",
        )


# -- attachment ------------------------------------------------------------------------------


def _check_attachment(
    c: SessionFacts, record: CallRecord, host: str | None, why: str
) -> Iterator[Finding]:
    places = c.attached.get((record.session_id, record.call_id), [])
    hosts = [p[0] for p in places]
    if host not in hosts:
        found = (
            "no message of that session shows it"
            if not places
            else f"the transcript shows it on message {hosts[0]!r} instead"
        )
        yield Finding(
            record.host_index,
            f"{record.label} (completed at {c.where(record.completed_index)} of the trace) "
            f"belongs on message {host!r}, {why}; {found}",
        )
        return
    call = places[hosts.index(host)][1]
    expected = record.result.content if record.result else None
    if call.result != expected:
        yield Finding(
            record.completed_index,
            f"{record.label} on message {host!r} shows {_result(call.result)}; its completion in "
            f"the trace carried {_result(expected)}",
        )
    elif call.name != record.name or call.input != record.input:
        yield Finding(
            record.completed_index,
            f"{record.label} on message {host!r} shows name {call.name!r} and input "
            f"{_short(repr(call.input))}; its completion in the trace carried {record.name!r} and "
            f"{_short(record.arguments)}",
        )


@rule(
    "backward-attachment",
    layer="session",
    source=(
        "a client attached completed tool calls to the message after the one that made them: "
        "scenarios/session/backward-attachment-basic.yaml"
    ),
    statement=(
        "A completed tool call attaches to the latest assistant or thought message of the same "
        "session before it, in the same interaction, and that message is reported updated. An "
        "interaction is its session's own: a user message starts a new one in its session only, "
        "so a sub-session's prompt changes nothing in the parent or its siblings."
    ),
)
def backward_attachment(c: SessionFacts) -> Iterator[Finding]:
    updated = {(u.session_id, u.message_id) for u in c.transcript.updates}
    placed = c.attachments_as_expected
    if placed and c.ledger.placements_at(c.c).updated <= updated:
        return
    for record in c.completed_calls():
        mode, host = record.placement_at(c.c)
        if mode != "backward":
            continue
        problems = (
            []
            if placed
            else list(
                _check_attachment(
                    c,
                    record,
                    host,
                    "the latest assistant or thought message of its session before the completion",
                )
            )
        )
        yield from problems
        if not problems and (record.session_id, host) not in updated:
            notices = sorted(m for s, m in updated if s == record.session_id)
            yield Finding(
                record.completed_index,
                f"{record.label} was attached to the earlier message {host!r}, but no 'message "
                f"updated' notice was emitted for that message; its completion at "
                f"{c.where(record.completed_index)} in the trace changed it, and the transcript "
                f"shows updates for {notices if notices else 'no message'} of that session",
            )


@rule(
    "forward-attachment",
    layer="session",
    source=(
        "a client lost the calls of an interaction that opens with tool calls, having no "
        "message before them to attach them to: scenarios/session/tool-first-turn.yaml"
    ),
    statement=(
        "If the interaction started with tool calls (no earlier message in that session), they "
        "are held and attached to the next assistant or thought message of that session."
    ),
)
def forward_attachment(c: SessionFacts) -> Iterator[Finding]:
    if c.attachments_as_expected:
        return
    for record in c.completed_calls():
        mode, host = record.placement_at(c.c)
        if mode == "forward":
            yield from _check_attachment(
                c,
                record,
                host,
                "the next assistant or thought message of its session (its interaction started with tool calls)",
            )
        elif mode in ("held", "dropped"):
            places = c.attached.get((record.session_id, record.call_id), [])
            if places:
                why = (
                    "it must be held until the session's next assistant or thought message, and none has started yet"
                    if mode == "held"
                    else "its interaction ended before any later message, so no message may carry it"
                )
                yield Finding(
                    record.completed_index,
                    f"{record.label} completed at {c.where(record.completed_index)} of the trace "
                    f"with no earlier message in its interaction; {why}, yet message "
                    f"{places[0][0]!r} shows it",
                )


#: how many of the messages showing one call a violation names
_HOSTS_NAMED = 5


@rule(
    "exactly-once",
    layer="session",
    source=(
        "a client never cleared its list of completed calls, so each later message inherited "
        "them: scenarios/session/multi-cycle-interaction.yaml"
    ),
    statement="Each completed tool call appears on exactly one message; later messages never inherit earlier calls.",
)
def exactly_once(c: SessionFacts) -> Iterator[Finding]:
    if c.attachments_as_expected:
        return
    for key, places in c.attached.items():
        if len(places) > 1:
            record = c.ledger.live_call(key, c.c)
            index = record.completed_index if record and record.completed_index >= 0 else c.c
            # a few hosts name the bug; all of them, in a long session, would make each
            # violation as long as the transcript
            hosts = ", ".join(repr(p[0]) for p in places[:_HOSTS_NAMED])
            if len(places) > _HOSTS_NAMED:
                hosts += f" and {len(places) - _HOSTS_NAMED} more"
            host = record.placement_at(c.c)[1] if record else None
            belongs = f"once, on message {host!r}" if host is not None else "on no message now"
            yield Finding(
                index,
                f"tool call {key[1]!r} of session {key[0]!r} appears {len(places)} times, on "
                f"messages {hosts} of the transcript; the trace places it {belongs}",
            )


# -- resume, streamed results, isolation ----------------------------------------------------


def _describe(m: Message) -> str:
    calls = ", ".join(
        f"{t.id}={_short(t.result or '', 40)}" + (" (is_error)" if t.is_error else "")
        for t in m.tool_calls
    )
    return f"{m.role} {_short(m.text, 40)}" + (f" with tool calls [{calls}]" if calls else "")


def _project(m: Message) -> tuple[object, ...]:
    calls = tuple(sorted((t.id, t.name, repr(t.input), t.result, t.is_error) for t in m.tool_calls))
    return (m.role, m.text, calls)


@rule(
    "resume-equivalence",
    layer="session",
    source=(
        "a client rebuilding a resumed session skipped its tool calls: "
        "scenarios/session/resume-live-after-tool-calls.yaml"
    ),
    statement=(
        "Rebuilding a session from its persisted history gives the same messages and attachments, "
        "tool calls and results matched by id, as the live stream did."
    ),
)
def resume_equivalence(c: SessionFacts) -> Iterator[Finding]:
    session_id = c.checkpoint.resumed_session
    if session_id is None:
        return
    event = c.trace[c.c]
    assert isinstance(event, ev.Resume)
    expected = project_history(session_id, event.history)
    view = c.transcript.sessions.get(session_id)
    actual = view.messages if view else ()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if _project(want) != _project(got):
            yield Finding(
                c.c,
                f"after resuming session {session_id!r}, the transcript shows as message {i} "
                f"{_describe(got)}; the live session had {_describe(want)}",
            )
            return
    if len(expected) != len(actual):
        yield Finding(
            c.c,
            f"after resuming session {session_id!r} the transcript has {len(actual)} messages; "
            f"the live session had {len(expected)}",
        )


@rule(
    "streamed-tool-results",
    layer="session",
    source=(
        "tool and delegation results streamed in parts under one call_id, with summaries updated "
        "on the way: scenarios/session/streamed-tool-result-parts.yaml, "
        "scenarios/session/streamed-summary-replaced.yaml"
    ),
    statement=(
        "stream_part chunks of one call_id accumulate in order; the final is_complete chunk leaves "
        "the whole content; a later summary replaces an earlier one; delegation call/result pairs "
        "are tracked as one entry, like tool calls. This holds while the output streams, not "
        "only once it is complete: at its first unfinished part, and at each unfinished part "
        "that brings a new summary or status, the entry shows the parts so far and the latest "
        "summary. An entry is found by (session, call_id): two calls of one tool, or one call_id "
        "in two sessions, are two entries. A resume rebuilds a session from its "
        "persisted history, which holds tool calls and their final results but no stream chunks: "
        "the parts before it need not be shown after it (an entry kept across it must still be "
        "the one they built), and parts after it accumulate afresh."
    ),
)
def streamed_tool_results(c: SessionFacts) -> Iterator[Finding]:
    for (session_id, call_id), record in c.ledger.streams.items():
        live = record.state_at(c.c)
        if live is None:
            continue
        view = c.transcript.sessions.get(session_id)
        entries = [s for s in (view.tool_streams if view else ()) if s.call_id == call_id]
        where = f"streamed {live['event_type']} {call_id!r} of session {session_id!r}"
        resumed = max((r for r in c.ledger.resumes.get(session_id, ()) if r <= c.c), default=-1)
        if resumed < record.parts[0][0]:
            yield from _stream_problems(where, entries, live)
            continue
        # Rebuilt from history since the stream began: only the parts after the resume are owed
        # (none: nothing is), and an entry kept from before it must match the whole stream.
        since = StreamRecord(
            session_id, call_id, [(i, p) for i, p in record.parts if i > resumed]
        ).state_at(c.c)
        if since is None and not entries:
            continue
        if not any(_stream_problems(where, entries, live)):
            continue
        yield from _stream_problems(where, entries, since if since is not None else live)


def _stream_problems(
    where: str, entries: list[ToolStream], want: dict[str, Any]
) -> Iterator[Finding]:
    """How the shown entries of one call_id differ from the state its parts built."""
    last = want["last_index"]
    if not entries:
        yield Finding(
            last,
            f"{where} is not shown at all; in the trace, its {want['parts']} stream parts so far "
            f"add up to {_short(want['content'][-60:])}",
        )
        return
    if len(entries) > 1:
        yield Finding(
            last,
            f"{where} is shown as {len(entries)} separate entries; its {want['parts']} parts in "
            f"the trace make one entry",
        )
    shown = entries[-1]
    if shown.content != want["content"]:
        yield Finding(
            last,
            f"{where} shows the content {shown.content[-60:]!r}; in the trace, the "
            f"{want['parts']} stream parts so far add up to {want['content'][-60:]!r}",
        )
    for attr in ("summary", "is_complete", "event_type"):
        if getattr(shown, attr) != want[attr]:
            yield Finding(
                last,
                f"{where} shows {attr}={getattr(shown, attr)!r}; the latest part in the trace says "
                f"{want[attr]!r}",
            )


@rule(
    "subsession-isolation",
    layer="session",
    source=(
        "sub-agent events written into the parent session: docker/docker-agent#1738, "
        "docker/docker-agent#2053, github/copilot-sdk#739"
    ),
    statement=(
        "Events of a sub-session never change the parent's transcript, except through the "
        "delegation tool's own result. Message ids, like tool call ids, are unique within a "
        "session only: a message is found by (session, message id)."
    ),
)
def subsession_isolation(c: SessionFacts) -> Iterator[Finding]:
    ledger = c.ledger
    placed = c.attachments_as_expected
    for session_id, view in c.transcript.sessions.items():
        resumed = any(r <= c.c for r in ledger.resumes.get(session_id, ()))
        if placed and c.checkpoint.final and not resumed and not ledger.is_root(session_id):
            owned = ledger.session_messages.get(session_id, set())
            if owned.issuperset(map(_message_id, view.messages)):
                continue  # every message is its own and every call where it belongs
        for message in view.messages:
            key = (session_id, message.message_id or "")
            if ledger.live_message(key, c.c) is None:
                # another session's message, or one rebuilt from history (whose id is the
                # adapter's own and matches no message of another session)
                yield from _foreign_message(c, session_id, message)
                continue
            text = ledger.text_at(key, c.c) if ledger.is_root(session_id) else None
            if text is not None and text != message.text:
                yield Finding(
                    ledger.messages[key].index,
                    f"message {message.message_id!r} of session {session_id!r} reads "
                    f"{message.text[-60:]!r} in the transcript; its own events in the trace give "
                    f"{text[-60:]!r}",
                )
            if placed:
                continue
            for call in message.tool_calls:
                if ledger.live_call((session_id, call.id), c.c) is not None:
                    continue
                if session_id in ledger.sessions_using(call.id, c.c):
                    continue  # its own call from before a resume: ids are unique per session only
                for owner in sorted(ledger.sessions_using(call.id, c.c) - {session_id}):
                    record = ledger.calls[(owner, call.id)]
                    host = record.placement_at(c.c)[1]
                    own = f", on message {host!r}" if host is not None else ""
                    yield Finding(
                        record.completed_index if record.completed_index >= 0 else c.c,
                        f"{record.label} is attached to message {message.message_id!r} of "
                        f"session {session_id!r} in the transcript; the trace places it in its "
                        f"own session {owner!r}{own}",
                    )


def _foreign_message(c: SessionFacts, session_id: str, message: Message) -> Iterator[Finding]:
    message_id = message.message_id or ""
    own = c.ledger.messages.get((session_id, message_id))
    if own is not None and own.index <= c.c:
        return  # its own message from before a resume: ids are unique per session only
    for owner in c.ledger.message_owners.get(message_id, ()):
        record = c.ledger.messages[(owner, message_id)]
        if owner != session_id and record.index <= c.c:
            yield Finding(
                record.index,
                f"message {message_id!r} of session {owner!r} appears in the transcript of "
                f"session {session_id!r}; the trace starts it at {c.where(record.index)} in "
                f"session {owner!r} only",
            )
            return
