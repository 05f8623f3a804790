"""The reference session consumer with one known bug put back, one class per bug.

Each bug is one a session rule's source describes (`harness rules`); the self-tests prove that
some scenario catches every one.
"""

from __future__ import annotations

from typing import Any

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.reference import ReferenceSessionConsumer, _Message, _Session, _Stream
from harness.model import session as ev
from harness.model.history import ToolUseBlock
from harness.model.observation import AttachedCall, MessageUpdate

mutant = mutant_registrar("session")


@mutant(
    "keyed-by-tool-id",
    "Tool notifications are keyed by tool call id only, so the same id in a sub-session overwrites the parent's.",
)
class KeyedByToolId(ReferenceSessionConsumer):
    def note_key(self, session_id: str, call_id: str) -> tuple[str, str]:
        return ("", call_id)


@mutant(
    "single-active-tool",
    "Assumes tool events arrive in sequence: a completion removes the most recently selected tool's notification.",
)
class SingleActiveTool(ReferenceSessionConsumer):
    def __init__(self) -> None:
        super().__init__()
        self.current: tuple[str, str] | None = None

    def on_tool_select(self, event: ev.ToolSelect) -> None:
        super().on_tool_select(event)
        self.current = (event.session_id, event.calls[-1].id)

    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        kept = dict(self.notes)
        super().on_tool_completed(event)
        self.notes = kept
        if self.current is not None:
            self.notes.pop(self.current, None)


@mutant(
    "no-cleanup-interaction-end",
    "Notifications still active when an interaction ends are never cleared.",
)
class NoCleanupAtInteractionEnd(ReferenceSessionConsumer):
    def on_interaction_end(self, event: ev.InteractionEnd) -> None:
        self.new_interaction(self.session(event))


@mutant("no-cleanup-user-turn", "The user's turn starting does not clear leftover notifications.")
class NoCleanupAtUserTurn(ReferenceSessionConsumer):
    def on_user_turn_start(self, event: ev.UserTurnStart) -> None:
        pass


@mutant(
    "safety-net-completes-orphans",
    "The safety net at interaction end turns tools that never completed into completed calls on the last message.",
)
class SafetyNetCompletesOrphans(ReferenceSessionConsumer):
    def on_interaction_end(self, event: ev.InteractionEnd) -> None:
        session = self.session(event)
        orphans = [n for n in self.notes.values() if n.session_id == event.session_id]
        if session.host is not None:
            for note in orphans:
                session.host.calls.append(AttachedCall(note.tool_call_id, note.tool_name, {}, ""))
        super().on_interaction_end(event)


class _HeldForNextMessage(ReferenceSessionConsumer):
    """Calls put in ``held`` go onto the next message that starts, whatever its session."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[AttachedCall] = []

    def on_message_start(self, event: ev.MessageStart) -> None:
        super().on_message_start(event)
        self.session(event).by_id[event.message_id].calls.extend(self.held)
        self.held.clear()


@mutant(
    "attach-at-next-message",
    "Completed tool calls are attached when the next message is finalized, so they land on the message after the one that made them.",
)
class AttachAtNextMessage(_HeldForNextMessage):
    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        self.held.extend(calls)


@mutant(
    "completed-never-cleared",
    "The list of completed tool calls is never cleared, so every later message inherits the earlier calls.",
)
class CompletedNeverCleared(ReferenceSessionConsumer):
    def __init__(self) -> None:
        super().__init__()
        #: each session's completed calls in order, equal ones once
        self.completed: dict[str, list[AttachedCall]] = {}
        # the same calls by (id, name, result, is_error), so that keeping them once stays
        # linear in a long session (the input may be a dict: not hashable)
        self._by_key: dict[str, dict[tuple[Any, ...], list[AttachedCall]]] = {}

    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        super().attach(session_id, session, calls)
        kept = self.completed.setdefault(session_id, [])
        by_key = self._by_key.setdefault(session_id, {})
        for call in calls:
            same = by_key.setdefault((call.id, call.name, call.result, call.is_error), [])
            if call not in same:
                same.append(call)
                kept.append(call)

    def on_message_start(self, event: ev.MessageStart) -> None:
        super().on_message_start(event)
        message = self.session(event).by_id[event.message_id]
        held = list(message.calls)  # the few calls the message already hosts
        earlier = self.completed.get(event.session_id, ())
        message.calls.extend(c for c in earlier if c not in held)


@mutant(
    "no-message-updated",
    "Tool calls are attached to the earlier message without emitting a message-updated notice, so the UI never refreshes it.",
)
class NoMessageUpdated(ReferenceSessionConsumer):
    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        before = len(self.updates)
        super().attach(session_id, session, calls)
        del self.updates[before:]


@mutant(
    "thoughts-not-hosts",
    "Only assistant messages receive tool calls; calls made after a thought land elsewhere.",
)
class ThoughtsNotHosts(ReferenceSessionConsumer):
    def can_host(self, message: _Message) -> bool:
        return message.role == "assistant"


class _TracksLatestMessage(ReferenceSessionConsumer):
    """Remembers the message started last, in any session (what the two bugs below act on)."""

    def __init__(self) -> None:
        super().__init__()
        self.latest: _Message | None = None

    def on_message_start(self, event: ev.MessageStart) -> None:
        super().on_message_start(event)
        self.latest = self.session(event).by_id[event.message_id]


@mutant(
    "attach-across-sessions",
    "The search for the previous message ignores the session, so a sub-session's tool calls attach to the parent's message.",
)
class AttachAcrossSessions(_TracksLatestMessage):
    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        if session.host is None or self.latest is None:
            super().attach(session_id, session, calls)
            return
        self.latest.calls.extend(calls)
        self.updates.append(MessageUpdate(session_id, self.latest.message_id))


@mutant(
    "shared-forward-buffer",
    "Tool calls held for the next message are buffered globally, not per session, so a sub-session's calls attach to the parent's next message.",
)
class SharedForwardBuffer(_HeldForNextMessage):
    def attach(self, session_id: str, session: _Session, calls: list[AttachedCall]) -> None:
        if session.host is not None:
            super().attach(session_id, session, calls)
        else:
            self.held.extend(calls)


@mutant(
    "duplicate-completion-attached", "A repeated tool completion event is attached a second time."
)
class DuplicateCompletionAttached(ReferenceSessionConsumer):
    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        self.session(event).attached.clear()
        super().on_tool_completed(event)


@mutant(
    "subsession-into-parent",
    "Events are routed by the user's main session instead of their own session id, so sub-session messages land in the parent's transcript.",
)
class SubsessionIntoParent(ReferenceSessionConsumer):
    def __init__(self) -> None:
        super().__init__()
        self.parents: dict[str, str] = {}

    def session(self, event: ev.SessionEvent) -> _Session:
        if event.parent_session_id is not None:
            self.parents[event.session_id] = event.parent_session_id
        root = event.session_id
        while root in self.parents:
            root = self.parents[root]
        session = self.sessions.get(root)
        if session is None:
            session = self.sessions[root] = _Session()
        return session


@mutant(
    "resume-skips-tool-calls",
    "Resuming a session skips regular tool calls ('skip for now'), so they vanish from the rebuilt transcript.",
)
class ResumeSkipsToolCalls(ReferenceSessionConsumer):
    def resumable(self, event: ev.Resume) -> tuple[Any, ...]:
        return tuple(
            type(m)(m.role, tuple(b for b in m.blocks if not isinstance(b, ToolUseBlock)))
            for m in event.history
        )


@mutant(
    "stream-parts-replaced",
    "Each streamed tool result part replaces the content instead of being appended to it.",
)
class StreamPartsReplaced(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        super().on_tool_stream(event)
        stream = self.session(event).streams[event.call_id]
        if event.stream_part is not None:
            stream.parts[:] = [event.stream_part]


@mutant(
    "summary-kept-first",
    "The first summary of a streamed tool result is kept; later summaries are ignored.",
)
class SummaryKeptFirst(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        stream = self.session(event).streams.get(event.call_id)
        first = stream.summary if stream is not None else ""
        super().on_tool_stream(event)
        if first:
            self.session(event).streams[event.call_id].summary = first


@mutant(
    "delegation-split-entries",
    "A delegation's result is tracked as a new entry instead of updating its call's entry.",
)
class DelegationSplitEntries(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        if event.event_type != "delegation_result":
            super().on_tool_stream(event)
            return
        streams = self.session(event).streams
        key = f"{event.call_id}#result"
        stream = streams.get(key)
        if stream is None:
            stream = streams[key] = _Stream(event.call_id, event.event_type, event.tool_name)
        stream.tool_response = event.tool_response or stream.tool_response
        stream.summary = event.summary or stream.summary
        if event.stream_part is not None:
            stream.parts.append(event.stream_part)
        stream.is_complete = event.is_complete


@mutant(
    "completion-clears-by-name",
    "A completion removes the notifications of every call of the same tool in its session "
    "(notices matched by tool name), so a parallel call of that tool still running loses its "
    "'using' notice.",
)
class CompletionClearsByName(ReferenceSessionConsumer):
    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        names = set()
        for call in event.calls:
            note = self.notes.get(self.note_key(event.session_id, call.id))
            names.add(call.name or (note.tool_name if note else ""))
        super().on_tool_completed(event)
        for key, note in list(self.notes.items()):
            if note.session_id == event.session_id and note.tool_name in names:
                del self.notes[key]


@mutant(
    "deltas-to-latest-message",
    "Text deltas are appended to the message started last, whatever their message id, so when "
    "messages of two sessions stream at once, text lands in the other session's message.",
)
class DeltasToLatestMessage(_TracksLatestMessage):
    def on_message_delta(self, event: ev.MessageDelta) -> None:
        if self.latest is None:
            super().on_message_delta(event)
        else:
            self.latest.append(event.text)


@mutant(
    "message-start-reuses-known-id",
    "A message start whose id is already known is taken as the same message sent again (one "
    "table of messages for every session), so a sub-session's message with an id the parent "
    "used is not started: its text is appended to the parent's message (message ids are unique "
    "per session only).",
)
class MessageStartReusesKnownId(ReferenceSessionConsumer):
    def __init__(self) -> None:
        super().__init__()
        self.by_message_id: dict[str, _Message] = {}

    def on_message_start(self, event: ev.MessageStart) -> None:
        known = self.by_message_id.get(event.message_id)
        if known is not None:
            self.session(event).by_id[event.message_id] = known
            return
        super().on_message_start(event)
        self.by_message_id[event.message_id] = self.session(event).by_id[event.message_id]
