"""Session consumers with one bug each about timing and identity: what they show inside streamed
tool output, for events naming several calls, for lifecycle events out of order, across
sessions that reuse ids, and after a resume.

Each bug is one the rules' statements rule out (`harness rules`); the self-tests prove that some
scenario of the library catches every one.
"""

from __future__ import annotations

from typing import Any

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.reference import ReferenceSessionConsumer, _Message, _Stream
from harness.model import session as ev
from harness.model.observation import Notification

mutant = mutant_registrar("session")


@mutant(
    "summary-frozen-until-complete",
    "A streamed tool output's summary is updated only by its final (is_complete) part, so the "
    "summaries sent while it streams are never shown.",
)
class SummaryFrozenUntilComplete(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        stream = self.session(event).streams.get(event.call_id)
        kept = stream.summary if stream is not None else None
        super().on_tool_stream(event)
        if kept is not None and not event.is_complete:
            self.session(event).streams[event.call_id].summary = kept


@mutant(
    "first-call-notified",
    "A select or executing event shows a notification for its first call only (the event's "
    "tool_calls[0]), so the other calls it names show nothing until they complete.",
)
class FirstCallNotified(ReferenceSessionConsumer):
    def on_tool_select(self, event: ev.ToolSelect) -> None:
        super().on_tool_select(_first_call(event))

    def on_tool_executing(self, event: ev.ToolExecuting) -> None:
        super().on_tool_executing(_first_call(event))


def _first_call(event: Any) -> Any:
    return type(event)(
        session_id=event.session_id,
        parent_session_id=event.parent_session_id,
        calls=event.calls[:1],
    )


@mutant(
    "late-executing-shown",
    "An executing (or select) event that arrives after its call's completion shows the "
    "notification again: each lifecycle event overwrites the notification, in arrival order.",
)
class LateExecutingShown(ReferenceSessionConsumer):
    def on_tool_select(self, event: ev.ToolSelect) -> None:
        for call in event.calls:
            key = self.note_key(event.session_id, call.id)
            self.notes[key] = _note(event.session_id, call, "preparing", "")

    def on_tool_executing(self, event: ev.ToolExecuting) -> None:
        for call in event.calls:
            key = self.note_key(event.session_id, call.id)
            name = call.name or (self.notes[key].tool_name if key in self.notes else "")
            self.notes[key] = _note(event.session_id, call, "using", name)


def _note(session_id: str, call: ev.ToolCall, status: str, name: str) -> Notification:
    return Notification(session_id, call.id, name or call.name, status)  # type: ignore[arg-type]


@mutant(
    "streams-keyed-by-tool-name",
    "Streamed tool output is matched to the open entry of the same tool, in any session, not "
    "to its session and call_id, so two calls of one tool streaming at once share an entry.",
)
class StreamsKeyedByToolName(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        for session in self.sessions.values():
            for stream in session.streams.values():
                if stream.tool_name == event.tool_name and not stream.is_complete:
                    _update(stream, event)
                    return
        super().on_tool_stream(event)


def _update(stream: _Stream, event: ev.ToolStreamPart) -> None:
    stream.event_type = event.event_type
    stream.tool_response = event.tool_response or stream.tool_response
    stream.summary = event.summary or stream.summary
    if event.stream_part is not None:
        stream.parts.append(event.stream_part)
    stream.is_complete = event.is_complete


@mutant(
    "streams-keyed-globally",
    "Streamed tool output is matched by call_id across all sessions, so a sub-session's stream "
    "that reuses another session's call_id is written into that session's entry.",
)
class StreamsKeyedGlobally(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        for session in self.sessions.values():
            stream = session.streams.get(event.call_id)
            if stream is not None:
                _update(stream, event)
                return
        super().on_tool_stream(event)


@mutant(
    "messages-keyed-globally",
    "Messages are looked up by message id across all sessions, so the text of a sub-session's "
    "message that reuses another session's message id goes into that other message.",
)
class MessagesKeyedGlobally(ReferenceSessionConsumer):
    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, _Message] = {}

    def on_message_start(self, event: ev.MessageStart) -> None:
        super().on_message_start(event)
        self.by_id.setdefault(event.message_id, self.session(event).by_id[event.message_id])

    def on_message_delta(self, event: ev.MessageDelta) -> None:
        self.by_id[event.message_id].append(event.text)


@mutant(
    "user-message-clears-all",
    "A user message resets every session: all notifications go, and every session forgets the "
    "message its tool calls attach to and the calls it holds, even when the user message is a "
    "sub-session's prompt.",
)
class UserMessageClearsAll(ReferenceSessionConsumer):
    def on_user_message(self, event: ev.UserMessage) -> None:
        super().on_user_message(event)
        self.clear_notifications(None)
        for session in self.sessions.values():
            self.new_interaction(session)


@mutant(
    "resume-keeps-notifications",
    "Rebuilding a session from its stored history leaves the tool notifications as they were, "
    "so a call the history shows finished still shows 'using'.",
)
class ResumeKeepsNotifications(ReferenceSessionConsumer):
    def on_resume(self, event: ev.Resume) -> None:
        kept = dict(self.notes)
        super().on_resume(event)
        self.notes = kept
