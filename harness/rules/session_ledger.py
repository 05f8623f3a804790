"""What a correct session consumer must show, derived from the trace in one pass.

The ledger is the rules' memory: it follows the trace event by event (cheaply: message text
deltas are skipped, and read back only when a rule asks) and records, per (session, tool call id),
the lifecycle the notifications must follow and the message a completed call belongs on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.model import session as ev
from harness.model.observation import AttachedCall, Message

Key = tuple[str, str]
Mode = Literal["backward", "forward", "held", "dropped"]


@dataclass(slots=True)
class CallRecord:
    session_id: str
    call_id: str
    name: str
    status: Literal["preparing", "using", "completed", "cleared"]
    last_index: int
    cleared_by: str = ""
    completed_index: int = -1
    arguments: str = "{}"
    result: ev.ToolResult | None = None
    mode: Mode = "held"
    host: str | None = None
    #: index of the event that decided the host (the completion, or the next message's start)
    host_index: int = -1


@dataclass(slots=True)
class StreamRecord:
    session_id: str
    call_id: str
    event_type: str
    tool_name: str
    tool_response: str = ""
    summary: str = ""
    parts: list[str] = field(default_factory=list)
    is_complete: bool = False
    last_index: int = 0


@dataclass(slots=True)
class MessageRecord:
    session_id: str
    message_id: str
    role: str
    index: int


class SessionLedger:
    def __init__(self) -> None:
        self.calls: dict[Key, CallRecord] = {}
        self.pending: dict[Key, CallRecord] = {}
        self.sessions_by_call: dict[str, set[str]] = {}
        self.host: dict[str, str | None] = {}
        self.held: dict[str, list[CallRecord]] = {}
        self.messages: dict[Key, MessageRecord] = {}
        self.message_sessions: dict[str, list[str]] = {}
        self.parent: dict[str, str | None] = {}
        self.streams: dict[Key, StreamRecord] = {}
        self.resumed_at: dict[str, int] = {}
        self.handlers: dict[type[ev.SessionEvent], Callable[[int, Any], None]] = {
            ev.ToolSelect: self._select,
            ev.ToolExecuting: self._executing,
            ev.ToolCompleted: self._completed,
            ev.MessageStart: self._message_start,
            ev.UserMessage: self._user_message,
            ev.InteractionStart: self._interaction_start,
            ev.InteractionEnd: self._interaction_end,
            ev.UserTurnStart: self._user_turn,
            ev.SubsessionStart: self._subsession_start,
            ev.ToolStreamPart: self._stream,
            ev.Resume: self._resume,
        }

    def advance(self, trace: Sequence[ev.SessionEvent], start: int, stop: int) -> None:
        get = self.handlers.get
        for i in range(start, stop):
            event = trace[i]
            handler = get(type(event))
            if handler is not None:
                handler(i, event)

    # -- tool calls --------------------------------------------------------------------------

    def _record(self, session_id: str, call: ev.ToolCall, index: int) -> CallRecord:
        key = (session_id, call.id)
        record = self.calls.get(key)
        if record is None:
            record = CallRecord(session_id, call.id, call.name, "preparing", index)
            self.calls[key] = record
            self.sessions_by_call.setdefault(call.id, set()).add(session_id)
        if call.name and not record.name:
            record.name = call.name
        return record

    def _select(self, i: int, event: ev.ToolSelect) -> None:
        for call in event.calls:
            record = self._record(event.session_id, call, i)
            if record.status != "completed":
                record.status, record.last_index = "preparing", i
                self.pending[(event.session_id, call.id)] = record

    def _executing(self, i: int, event: ev.ToolExecuting) -> None:
        for call in event.calls:
            record = self._record(event.session_id, call, i)
            if record.status != "completed":
                record.status, record.last_index = "using", i
                self.pending[(event.session_id, call.id)] = record

    def _completed(self, i: int, event: ev.ToolCompleted) -> None:
        session_id = event.session_id
        for call in event.calls:
            record = self._record(session_id, call, i)
            if record.completed_index >= 0:
                continue  # a repeated completion changes nothing
            self.pending.pop((session_id, call.id), None)
            record.status, record.last_index, record.completed_index = "completed", i, i
            record.arguments = call.arguments
            record.result = event.result_for(call.id)
            host = self.host.get(session_id)
            if host is not None:
                record.mode, record.host, record.host_index = "backward", host, i
            else:
                record.mode, record.host_index = "held", i
                self.held.setdefault(session_id, []).append(record)

    def _clear(self, records: list[CallRecord], reason: str, i: int) -> None:
        for record in records:
            record.status, record.cleared_by, record.last_index = "cleared", reason, i
            del self.pending[(record.session_id, record.call_id)]

    # -- messages and interactions -----------------------------------------------------------

    def _new_interaction(self, session_id: str) -> None:
        self.host[session_id] = None
        for record in self.held.pop(session_id, ()):
            record.mode = "dropped"

    def _add_message(self, i: int, session_id: str, message_id: str, role: str) -> None:
        self.messages[(session_id, message_id)] = MessageRecord(session_id, message_id, role, i)
        self.message_sessions.setdefault(message_id, []).append(session_id)

    def _message_start(self, i: int, event: ev.MessageStart) -> None:
        session_id = event.session_id
        self._add_message(i, session_id, event.message_id, event.role)
        self.host[session_id] = event.message_id
        for record in self.held.pop(session_id, ()):
            record.mode, record.host, record.host_index = "forward", event.message_id, i

    def _user_message(self, i: int, event: ev.UserMessage) -> None:
        self._add_message(i, event.session_id, event.message_id, "user")
        self._new_interaction(event.session_id)

    def _interaction_start(self, i: int, event: ev.InteractionStart) -> None:
        self._new_interaction(event.session_id)

    def _interaction_end(self, i: int, event: ev.InteractionEnd) -> None:
        self._new_interaction(event.session_id)
        mine = [r for r in self.pending.values() if r.session_id == event.session_id]
        self._clear(mine, "interaction_end", i)

    def _user_turn(self, i: int, event: ev.UserTurnStart) -> None:
        self._clear(list(self.pending.values()), "user_turn", i)

    def _subsession_start(self, i: int, event: ev.SubsessionStart) -> None:
        self.parent[event.session_id] = event.parent_session_id
        self._new_interaction(event.session_id)

    def _stream(self, i: int, event: ev.ToolStreamPart) -> None:
        key = (event.session_id, event.call_id)
        record = self.streams.get(key)
        if record is None:
            record = self.streams[key] = StreamRecord(
                event.session_id, event.call_id, event.event_type, event.tool_name
            )
        record.event_type, record.last_index = event.event_type, i
        record.tool_name = event.tool_name or record.tool_name
        record.tool_response = event.tool_response or record.tool_response
        record.summary = event.summary or record.summary
        if event.stream_part is not None:
            record.parts.append(event.stream_part)
        record.is_complete = event.is_complete

    def _resume(self, i: int, event: ev.Resume) -> None:
        """The session's transcript is rebuilt from history: forget what was tracked live."""
        session_id = event.session_id
        self.resumed_at[session_id] = i
        for key in [k for k in self.calls if k[0] == session_id]:
            if key not in self.pending:
                del self.calls[key]
        for key in [k for k in self.messages if k[0] == session_id]:
            del self.messages[key]
        self._new_interaction(session_id)

    # -- questions the rules ask -------------------------------------------------------------

    def is_root(self, session_id: str) -> bool:
        return self.parent.get(session_id) is None

    def is_descendant(self, session_id: str, ancestor: str) -> bool:
        seen = 0
        parent = self.parent.get(session_id)
        while parent is not None and seen < 64:
            if parent == ancestor:
                return True
            parent, seen = self.parent.get(parent), seen + 1
        return False

    def expected_texts(self, trace: Sequence[ev.SessionEvent], stop: int, sessions: set[str]) -> dict[Key, str]:
        """The text of every message of ``sessions`` as of ``stop`` (read from the trace now)."""
        parts: dict[Key, list[str]] = {}
        for i in range(stop):
            event = trace[i]
            kind = type(event)
            if kind is ev.MessageDelta and event.session_id in sessions:
                parts.setdefault((event.session_id, event.message_id), []).append(event.text)  # type: ignore[attr-defined]
            elif kind is ev.UserMessage and event.session_id in sessions:
                parts[(event.session_id, event.message_id)] = [event.text]  # type: ignore[attr-defined]
        return {key: "".join(p) for key, p in parts.items()}


def project_history(session_id: str, history: Sequence[object]) -> tuple[Message, ...]:
    """The transcript a correct client rebuilds from stored history (the resume spec)."""
    from harness.model.history import HistoryMessage, history_to_events
    from harness.model.observation import normalize_input

    events = list(history_to_events(session_id, [h for h in history if isinstance(h, HistoryMessage)]))
    ledger = SessionLedger()
    ledger.advance(events, 0, len(events))  # type: ignore[arg-type]
    texts = ledger.expected_texts(events, len(events), {session_id})  # type: ignore[arg-type]
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
                    normalize_input(r.arguments),
                    r.result.content if r.result else None,
                    r.result.is_error if r.result else False,
                )
                for r in by_host.get(event.message_id, ())
            )
            out.append(
                Message(event.message_id, role, texts.get((session_id, event.message_id), ""), calls)  # type: ignore[arg-type]
            )
    return tuple(out)
