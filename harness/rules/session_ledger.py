"""What a correct session consumer must show, derived from the trace once per scenario.

The ledger is the rules' memory. One pass over the trace records, per (session, tool call id),
every lifecycle transition with its event index and the message a completed call belongs on; per
message, where it started. Rules then ask "as of event c" questions, so one ledger serves every
checkpoint and every adapter that replays the scenario (it is cached on the scenario).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from harness.model import session as ev
from harness.model.history import HistoryMessage, ToolResultBlock
from harness.model.observation import AttachedCall, Message, normalize_input
from harness.model.projection import history_to_events

Key = tuple[str, str]
Mode = Literal["backward", "forward", "held", "dropped"]
Status = Literal["unknown", "preparing", "using", "completed", "cleared"]


@dataclass(slots=True)
class CallRecord:
    session_id: str
    call_id: str
    name: str
    #: (event index, status, why) for every change of the notification's expected state
    timeline: list[tuple[int, Status, str]] = field(default_factory=list)
    completed_index: int = -1
    arguments: str = "{}"
    #: the parsed arguments, as an observation's ``input`` is compared
    input: Any = None
    result: ev.ToolResult | None = None
    #: where the completed call belongs, as finally decided, and the event that decided it
    mode: Mode = "held"
    host: str | None = None
    host_index: int = -1

    def status_at(self, c: int) -> tuple[Status, str, int]:
        """(status, why, index of the deciding event) after event ``c``."""
        pos = bisect.bisect_right(self.timeline, c, key=lambda t: t[0])
        if pos == 0:
            return "unknown", "", -1
        index, status, why = self.timeline[pos - 1]
        return status, why, index

    def completed_by(self, c: int) -> bool:
        return 0 <= self.completed_index <= c

    def placement_at(self, c: int) -> tuple[Mode | None, str | None]:
        """(mode, host message) after event ``c``; None before the call completed."""
        if self.completed_index < 0 or self.completed_index > c:
            return None, None
        if self.mode in ("forward", "dropped") and self.host_index > c:
            return "held", None
        return self.mode, self.host

    @property
    def label(self) -> str:
        name = f" {self.name}" if self.name else ""
        return f"tool call{name} {self.call_id!r} of session {self.session_id!r}"


@dataclass(slots=True)
class StreamRecord:
    session_id: str
    call_id: str
    parts: list[tuple[int, ev.ToolStreamPart]] = field(default_factory=list)

    def state_at(self, c: int) -> dict[str, Any] | None:
        seen = [part for index, part in self.parts if index <= c]
        if not seen:
            return None
        state: dict[str, Any] = {"content": [], "summary": "", "tool_response": ""}
        for part in seen:
            state["event_type"], state["is_complete"] = part.event_type, part.is_complete
            state["summary"] = part.summary or state["summary"]
            state["tool_response"] = part.tool_response or state["tool_response"]
            if part.stream_part is not None:
                state["content"].append(part.stream_part)
        state["content"] = "".join(state["content"])
        state["parts"] = sum(1 for p in seen if p.stream_part is not None)
        state["last_index"] = max(index for index, _ in self.parts if index <= c)
        return state


@dataclass(frozen=True, slots=True)
class MessageRecord:
    role: str
    index: int


class Placements(NamedTuple):
    """Where the completed calls belong at one checkpoint."""

    #: session id -> call id -> (host message id, name, input, result, is_error)
    calls: dict[str, dict[str, tuple[Any, ...]]]
    #: how many calls are placed, in all sessions
    total: int
    #: the (session, message id) pairs that must have been reported updated
    updated: frozenset[Key]


class SessionLedger:
    """Built once from a trace; read by the rules with "as of event c" questions."""

    def __init__(
        self, trace: Iterable[ev.SessionEvent] = (), *, subsession_text: bool = True
    ) -> None:
        self.calls: dict[Key, CallRecord] = {}
        #: call id -> {session id: index of the first event naming it there}
        self.sessions_by_call: dict[str, dict[str, int]] = {}
        self.messages: dict[Key, MessageRecord] = {}
        #: message id -> the sessions that started a message with that id
        self.message_owners: dict[str, list[str]] = {}
        #: session id -> the ids of the messages started in it
        self.session_messages: dict[str, set[str]] = {}
        self.parent: dict[str, str | None] = {}
        self.streams: dict[Key, StreamRecord] = {}
        #: session id -> indices of its resumes
        self.resumes: dict[str, list[int]] = {}
        #: (session, call id) -> the resume whose history holds that call's result: finished
        #: then, whatever the live stream says of it later
        self.settled: dict[Key, int] = {}
        #: (index, text) pieces of every streamed message, and of root sessions' user messages;
        #: read only when a rule asks
        self.text: dict[Key, list[tuple[int, str]]] = {}
        #: checkpoint index -> the calls whose notifications must show then
        self.pending_at: dict[int, tuple[CallRecord, ...]] = {}
        #: checkpoint index -> {(session, call id, status, tool name)} those notifications
        self.notes_at: dict[int, frozenset[tuple[str, str, str, str]]] = {}
        self._placements: dict[int, Placements] = {}
        self._pending: dict[Key, CallRecord] = {}
        self._host: dict[str, str | None] = {}
        self._held: dict[str, list[CallRecord]] = {}
        #: message key -> [pieces not yet joined, index of the last, checkpoint period]
        self._open_text: dict[Key, list[Any]] = {}
        #: how many snapshots were taken: deltas between two checkpoints join into one piece
        self._period = 0
        #: keep the text of sub-sessions' messages (the history rules read it; the session
        #: rules read only top-level sessions' text)
        self._subsession_text = subsession_text
        #: what records an event of each type (the replay's plan loop calls these itself, with
        #: ``snapshot`` at its checkpoints and ``finish`` at the end)
        self.handlers: dict[type[ev.SessionEvent], Callable[[int, Any], None]] = {
            ev.ToolSelect: self._select,
            ev.ToolExecuting: self._executing,
            ev.ToolCompleted: self._completed,
            ev.MessageStart: self._message_start,
            ev.MessageDelta: self._message_delta,
            ev.UserMessage: self._user_message,
            ev.InteractionStart: self._interaction_start,
            ev.InteractionEnd: self._interaction_end,
            ev.UserTurnStart: self._user_turn,
            ev.SubsessionStart: self._subsession_start,
            ev.ToolStreamPart: self._stream,
            ev.Resume: self._resume,
        }
        get = self.handlers.get
        for i, event in enumerate(trace):  # given a trace, built at once, with no checkpoint
            handler = get(type(event))
            if handler is not None:
                handler(i, event)
        self.finish()

    def snapshot(self, i: int) -> None:
        """Event ``i`` is a checkpoint: keep the notifications that must show there."""
        pending = tuple(self._pending.values())
        self.pending_at[i] = pending
        self.notes_at[i] = frozenset(
            (r.session_id, r.call_id, r.timeline[-1][1], r.name) for r in pending
        )
        self._period += 1

    def finish(self) -> None:
        """Join the text still open; the ledger is then only read."""
        for key in list(self._open_text):
            self._close_text(key)

    # -- building ----------------------------------------------------------------------------

    def _record(self, session_id: str, call: ev.ToolCall, index: int) -> CallRecord:
        key = (session_id, call.id)
        record = self.calls.get(key)
        if record is None:
            record = self.calls[key] = CallRecord(session_id, call.id, call.name)
            self.sessions_by_call.setdefault(call.id, {}).setdefault(session_id, index)
        if call.name and not record.name:
            record.name = call.name
        return record

    def _lifecycle(self, i: int, event: ev.ToolSelect | ev.ToolExecuting, status: Status) -> None:
        # A completion is final: a select or executing that arrives after it (or after a
        # resume whose history holds the result) changes nothing a consumer shows.
        settled = self.settled
        for call in event.calls:
            if settled and (event.session_id, call.id) in settled:
                continue
            record = self._record(event.session_id, call, i)
            if record.completed_index < 0:
                record.timeline.append((i, status, ""))
                self._pending[(event.session_id, call.id)] = record

    def _select(self, i: int, event: ev.ToolSelect) -> None:
        self._lifecycle(i, event, "preparing")

    def _executing(self, i: int, event: ev.ToolExecuting) -> None:
        self._lifecycle(i, event, "using")

    def _completed(self, i: int, event: ev.ToolCompleted) -> None:
        session_id = event.session_id
        for call in event.calls:
            record = self._record(session_id, call, i)
            if record.completed_index >= 0:
                continue  # a repeated completion changes nothing
            self._pending.pop((session_id, call.id), None)
            record.timeline.append((i, "completed", ""))
            record.completed_index = i
            record.arguments = call.arguments
            record.input = normalize_input(call.arguments)
            record.result = event.result_for(call.id)
            host = self._host.get(session_id)
            if host is not None:
                record.mode, record.host, record.host_index = "backward", host, i
            else:
                record.mode, record.host_index = "held", i
                self._held.setdefault(session_id, []).append(record)

    def _clear(self, records: list[CallRecord], why: str, i: int) -> None:
        for record in records:
            record.timeline.append((i, "cleared", why))
            del self._pending[(record.session_id, record.call_id)]

    def _new_interaction(self, i: int, session_id: str) -> None:
        self._host[session_id] = None
        for record in self._held.pop(session_id, ()):
            record.mode, record.host_index = "dropped", i

    def _add_message(self, i: int, event: ev.MessageStart | ev.UserMessage, role: str) -> None:
        self.messages[(event.session_id, event.message_id)] = MessageRecord(role, i)
        self.message_owners.setdefault(event.message_id, []).append(event.session_id)
        self.session_messages.setdefault(event.session_id, set()).add(event.message_id)

    def _message_start(self, i: int, event: ev.MessageStart) -> None:
        session_id = event.session_id
        self._add_message(i, event, event.role)
        self._host[session_id] = event.message_id
        for record in self._held.pop(session_id, ()):
            record.mode, record.host, record.host_index = "forward", event.message_id, i

    def _message_delta(self, i: int, event: ev.MessageDelta) -> None:
        # Text is only asked for as of a checkpoint, so the deltas between two checkpoints are
        # kept as one piece (at the index of the last): memory grows with text, not deltas.
        if not self._subsession_text and self.parent.get(event.session_id) is not None:
            return
        key = (event.session_id, event.message_id)
        open_text = self._open_text.get(key)
        if open_text is None or open_text[2] != self._period:
            if open_text is not None:
                self._close_text(key)
            else:
                self.text.setdefault(key, [])
            open_text = self._open_text[key] = [[], i, self._period]
        pieces = open_text[0]
        pieces.append(event.text)
        open_text[1] = i
        if len(pieces) >= 4096:
            pieces[:] = ["".join(pieces)]

    def _close_text(self, key: Key) -> None:
        pieces, last, _ = self._open_text.pop(key)
        self.text.setdefault(key, []).append((last, "".join(pieces)))

    def _user_message(self, i: int, event: ev.UserMessage) -> None:
        self._add_message(i, event, "user")
        if event.parent_session_id is None:
            self.text[(event.session_id, event.message_id)] = [(i, event.text)]
        self._new_interaction(i, event.session_id)

    def _interaction_start(self, i: int, event: ev.InteractionStart) -> None:
        self._new_interaction(i, event.session_id)

    def _interaction_end(self, i: int, event: ev.InteractionEnd) -> None:
        self._new_interaction(i, event.session_id)
        mine = [r for r in self._pending.values() if r.session_id == event.session_id]
        self._clear(mine, "interaction_end", i)

    def _user_turn(self, i: int, event: ev.UserTurnStart) -> None:
        self._clear(list(self._pending.values()), "user_turn", i)

    def _subsession_start(self, i: int, event: ev.SubsessionStart) -> None:
        self.parent[event.session_id] = event.parent_session_id
        self._new_interaction(i, event.session_id)

    def _stream(self, i: int, event: ev.ToolStreamPart) -> None:
        key = (event.session_id, event.call_id)
        record = self.streams.get(key)
        if record is None:
            record = self.streams[key] = StreamRecord(event.session_id, event.call_id)
        record.parts.append((i, event))

    def _resume(self, i: int, event: ev.Resume) -> None:
        self.resumes.setdefault(event.session_id, []).append(i)
        self._new_interaction(i, event.session_id)
        self._settle(i, event)

    def _settle(self, i: int, event: ev.Resume) -> None:
        """The resumed history holds these calls' results: they are finished as of the resume,
        and a notification still pending for one of them is owed no longer."""
        session_id = event.session_id
        for message in event.history:
            for block in message.blocks:
                if isinstance(block, ToolResultBlock):
                    key = (session_id, block.tool_use_id)
                    self.settled.setdefault(key, i)
                    record = self._pending.pop(key, None)
                    if record is not None:
                        record.timeline.append((i, "completed", "resume"))

    # -- questions the rules ask -------------------------------------------------------------

    def resumed_between(self, session_id: str, start: int, c: int) -> bool:
        """Was the session rebuilt from history after event ``start``, up to event ``c``?"""
        resumes = self.resumes.get(session_id)
        if not resumes:
            return False
        return any(start < r <= c for r in resumes)

    def live_call(self, key: Key, c: int) -> CallRecord | None:
        """The call's record if it was named by event ``c`` and not wiped by a later resume."""
        record = self.calls.get(key)
        if record is None:
            return None
        first = record.timeline[0][0]
        if first > c or (self.resumes and self.resumed_between(key[0], first, c)):
            return None
        return record

    def live_message(self, key: Key, c: int) -> MessageRecord | None:
        record = self.messages.get(key)
        if record is None or record.index > c or self.resumed_between(key[0], record.index, c):
            return None
        return record

    def settled_at(self, key: Key, c: int) -> int | None:
        """The resume, up to event ``c``, whose history holds the call's result, if any."""
        index = self.settled.get(key) if self.settled else None
        return index if index is not None and index <= c else None

    def sessions_using(self, call_id: str, c: int) -> set[str]:
        return {s for s, first in self.sessions_by_call.get(call_id, {}).items() if first <= c}

    def placements_at(self, c: int) -> Placements:
        """After event ``c``: where each placed call belongs, and the messages that must have
        been reported updated. Computed once per checkpoint."""
        cached = self._placements.get(c)
        if cached is None:
            placed: dict[str, dict[str, tuple[Any, ...]]] = {}
            updated = set()
            count = 0
            for key, record in self.calls.items():
                if not 0 <= record.completed_index <= c or (
                    self.resumes and self.live_call(key, c) is None
                ):
                    continue
                mode, host = record.placement_at(c)
                if mode in ("backward", "forward"):
                    result = record.result
                    placed.setdefault(record.session_id, {})[record.call_id] = (
                        host,
                        record.name,
                        record.input,
                        result.content if result else None,
                        result.is_error if result else False,
                    )
                    count += 1
                    if mode == "backward":
                        updated.add((record.session_id, host))
            cached = self._placements[c] = Placements(placed, count, frozenset(updated))  # type: ignore[arg-type]
        return cached

    def is_descendant(self, session_id: str, ancestor: str) -> bool:
        parent, hops = self.parent.get(session_id), 0
        while parent is not None and hops < 64:  # a cycle cannot come from a trace; be safe
            if parent == ancestor:
                return True
            parent, hops = self.parent.get(parent), hops + 1
        return False

    def is_root(self, session_id: str) -> bool:
        return self.parent.get(session_id) is None

    def text_at(self, key: Key, c: int) -> str | None:
        pieces = self.text.get(key)
        if pieces is None:
            return None
        return "".join(text for index, text in pieces if index <= c)


def project_history(session_id: str, history: Sequence[HistoryMessage]) -> tuple[Message, ...]:
    """The transcript a correct client rebuilds from stored history (the resume spec)."""
    events = list(history_to_events(session_id, history))
    ledger = SessionLedger(events)
    end = len(events)
    by_host: dict[str, list[CallRecord]] = {}
    for record in ledger.calls.values():
        if record.host is not None and record.mode in ("backward", "forward"):
            by_host.setdefault(record.host, []).append(record)
    out = []
    for event in events:
        if isinstance(event, (ev.MessageStart, ev.UserMessage)):
            role = "user" if isinstance(event, ev.UserMessage) else event.role
            calls = tuple(
                AttachedCall(
                    r.call_id,
                    r.name,
                    r.input,
                    r.result.content if r.result else None,
                    r.result.is_error if r.result else False,
                )
                for r in by_host.get(event.message_id, ())
            )
            text = ledger.text_at((session_id, event.message_id), end) or ""
            out.append(Message(event.message_id, role, text, calls))
    return tuple(out)
