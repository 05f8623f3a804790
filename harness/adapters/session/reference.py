"""A correct session-layer consumer: it keeps every session rule (`harness rules`).

It is also the model for users' adapters: ``feed`` takes one canonical event, ``notifications``
and ``transcript`` report what a user would see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.model import session as ev
from harness.model.observation import (
    AttachedCall,
    Message,
    MessageUpdate,
    Notification,
    SessionView,
    ToolStream,
    Transcript,
    normalize_input,
)
from harness.model.projection import history_to_events

#: a message's text past this many characters grows by pieces, joined when read
_LONG_TEXT = 64 * 1024


class _Message:
    """A message being shown. Adding to a string copies it each time, which made a 10 MB
    message take minutes; past ``_LONG_TEXT`` the text grows by pieces, joined when read."""

    __slots__ = ("calls", "long", "message_id", "role", "short")

    def __init__(self, message_id: str, role: str, text: str = "") -> None:
        self.message_id = message_id
        self.role = role
        self.calls: list[AttachedCall] = []
        self.short = text
        self.long: list[str] | None = None

    @property
    def text(self) -> str:
        long = self.long
        if long is None:
            return self.short
        if len(long) > 1:
            long[:] = ["".join(long)]
        return long[0]

    def append(self, text: str) -> None:
        if self.long is not None:
            self.long.append(text)
        elif len(self.short) < _LONG_TEXT:
            self.short += text
        else:
            self.long = [self.short, text]


@dataclass
class _Stream:
    call_id: str
    event_type: str
    tool_name: str
    tool_response: str = ""
    summary: str = ""
    parts: list[str] = field(default_factory=list)
    is_complete: bool = False


@dataclass
class _Session:
    messages: list[_Message] = field(default_factory=list)
    by_id: dict[str, _Message] = field(default_factory=dict)
    #: the latest assistant or thought message of the current interaction
    host: _Message | None = None
    #: completed calls waiting for the next message (the interaction started with tool calls)
    held: list[AttachedCall] = field(default_factory=list)
    attached: set[str] = field(default_factory=set)
    streams: dict[str, _Stream] = field(default_factory=dict)


class ReferenceSessionConsumer:
    """Push-style session consumer. Notifications are keyed by (session id, tool call id)."""

    layers = ("session",)

    def __init__(self) -> None:
        self.sessions: dict[str, _Session] = {}
        self.notes: dict[tuple[str, str], Notification] = {}
        self.updates: list[MessageUpdate] = []
        self.handlers: dict[type[ev.SessionEvent], Callable[[Any], None]] = {
            ev.InteractionStart: self.on_interaction_start,
            ev.InteractionEnd: self.on_interaction_end,
            ev.UserTurnStart: self.on_user_turn_start,
            ev.UserMessage: self.on_user_message,
            ev.MessageStart: self.on_message_start,
            ev.MessageDelta: self.on_message_delta,
            ev.ToolSelect: self.on_tool_select,
            ev.ToolExecuting: self.on_tool_executing,
            ev.ToolCompleted: self.on_tool_completed,
            ev.ToolStreamPart: self.on_tool_stream,
            ev.SubsessionStart: self.on_subsession_start,
            ev.Resume: self.on_resume,
        }

    # -- the adapter protocol ----------------------------------------------------------------

    def feed(self, event: ev.SessionEvent) -> None:
        handler = self.handlers.get(type(event))
        if handler is not None:
            handler(event)

    def notifications(self) -> list[Notification]:
        return list(self.notes.values())

    def transcript(self) -> Transcript:
        return Transcript(
            sessions={sid: self.view(s) for sid, s in self.sessions.items()},
            updates=tuple(self.updates),
        )

    # -- state -------------------------------------------------------------------------------

    def session(self, event: ev.SessionEvent) -> _Session:
        session = self.sessions.get(event.session_id)
        if session is None:
            session = self.sessions[event.session_id] = _Session()
        return session

    def view(self, session: _Session) -> SessionView:
        return SessionView(
            messages=tuple(
                Message(m.message_id, m.role, m.text, tuple(m.calls))  # type: ignore[arg-type]
                for m in session.messages
            ),
            tool_streams=tuple(
                ToolStream(
                    s.call_id,
                    s.event_type,
                    s.tool_name,
                    s.tool_response,
                    s.summary,
                    "".join(s.parts),
                    s.is_complete,
                )
                for s in session.streams.values()
            ),
        )

    def can_host(self, message: _Message) -> bool:
        """Assistant and thought messages both carry the tool calls that follow them."""
        return message.role in ("assistant", "thought")

    def new_interaction(self, session: _Session) -> None:
        session.host = None
        session.held.clear()

    def note_key(self, session_id: str, call_id: str) -> tuple[str, str]:
        return (session_id, call_id)

    def finished(self, event: ev.SessionEvent) -> set[str] | frozenset[str]:
        """The ids of the calls its session has completed (or rebuilt finished from history)."""
        session = self.sessions.get(event.session_id)
        return session.attached if session is not None else frozenset()

    def clear_notifications(self, session_id: str | None) -> None:
        for key, note in list(self.notes.items()):
            if session_id is None or note.session_id == session_id:
                del self.notes[key]

    # -- handlers ----------------------------------------------------------------------------

    def on_interaction_start(self, event: ev.InteractionStart) -> None:
        self.new_interaction(self.session(event))

    def on_interaction_end(self, event: ev.InteractionEnd) -> None:
        self.new_interaction(self.session(event))
        self.clear_notifications(event.session_id)

    def on_user_turn_start(self, event: ev.UserTurnStart) -> None:
        self.clear_notifications(None)

    def on_user_message(self, event: ev.UserMessage) -> None:
        session = self.session(event)
        message = _Message(event.message_id, "user", event.text)
        session.messages.append(message)
        session.by_id[event.message_id] = message
        self.new_interaction(session)

    def on_message_start(self, event: ev.MessageStart) -> None:
        session = self.session(event)
        message = _Message(event.message_id, event.role)
        session.messages.append(message)
        session.by_id[event.message_id] = message
        if self.can_host(message):
            session.host = message
            if session.held:
                message.calls.extend(session.held)
                session.held.clear()

    def on_message_delta(self, event: ev.MessageDelta) -> None:
        message = self.session(event).by_id[event.message_id]
        if message.long is None and len(message.short) < _LONG_TEXT:
            message.short += event.text  # the common case, without a call
        else:
            message.append(event.text)

    def on_tool_select(self, event: ev.ToolSelect) -> None:
        finished = self.finished(event)
        for call in event.calls:
            if call.id in finished:
                continue  # a completion is final: a late select shows nothing again
            key = self.note_key(event.session_id, call.id)
            self.notes[key] = Notification(event.session_id, call.id, call.name, "preparing")

    def on_tool_executing(self, event: ev.ToolExecuting) -> None:
        finished = self.finished(event)
        for call in event.calls:
            if call.id in finished:
                continue  # events travel by different paths: this one came after the result
            key = self.note_key(event.session_id, call.id)
            name = call.name or (self.notes[key].tool_name if key in self.notes else "")
            self.notes[key] = Notification(event.session_id, call.id, name, "using")

    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        session = self.session(event)
        fresh: list[AttachedCall] = []
        for call in event.calls:
            self.notes.pop(self.note_key(event.session_id, call.id), None)
            if call.id in session.attached:
                continue
            session.attached.add(call.id)
            result = event.result_for(call.id)
            fresh.append(
                AttachedCall(
                    call.id,
                    call.name,
                    normalize_input(call.arguments),
                    result.content if result else None,
                    result.is_error if result else False,
                )
            )
        self.attach(event.session_id, session, fresh)

    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        if not calls:
            return
        if session.host is not None:
            session.host.calls.extend(calls)
            self.updates.append(MessageUpdate(session_id, session.host.message_id))
        else:
            session.held.extend(calls)

    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        streams = self.session(event).streams
        stream = streams.get(event.call_id)
        if stream is None:
            stream = streams[event.call_id] = _Stream(
                event.call_id, event.event_type, event.tool_name
            )
        stream.event_type = event.event_type
        stream.tool_name = event.tool_name or stream.tool_name
        stream.tool_response = event.tool_response or stream.tool_response
        stream.summary = event.summary or stream.summary
        if event.stream_part is not None:
            stream.parts.append(event.stream_part)
        stream.is_complete = event.is_complete

    def on_subsession_start(self, event: ev.SubsessionStart) -> None:
        self.new_interaction(self.session(event))

    def on_resume(self, event: ev.Resume) -> None:
        """Rebuild the session from stored history by replaying it through the live handlers.

        Stream entries go with the old state: a persisted history holds tool calls and their
        final results, not stream chunks, so parts streamed after the resume start afresh."""
        self.sessions[event.session_id] = _Session()
        for replayed in history_to_events(event.session_id, self.resumable(event)):
            self.feed(replayed)

    def resumable(self, event: ev.Resume) -> tuple[Any, ...]:
        return event.history
