"""EventStreamProcessor: turns the Agent C event stream into the chat model.

Events are dicts as they come off the realtime bridge. Every event carries ``session_id`` (and
``parent_session_id`` inside a delegation); events of many sessions interleave freely, so
nothing here assumes that one event follows another.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any

from chatui.model import ChatMessage, ChatSession, ToolCall, ToolResult, ToolStreamState
from chatui.tool_calls import ToolCallManager

log = logging.getLogger(__name__)

Listener = Callable[[dict[str, Any]], None]
Completed = list[tuple[ToolCall, ToolResult | None]]


class EventStreamProcessor:
    def __init__(self) -> None:
        self.sessions: dict[str, ChatSession] = {}
        self.tool_calls = ToolCallManager()
        self._listeners: dict[str, list[Listener]] = {}
        self._ids = itertools.count(1)
        self._handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "interaction": self._on_interaction,
            "user_turn_start": self._on_user_turn_start,
            "user_message": self._on_user_message,
            "text_delta": lambda e: self._on_delta(e, thought=False),
            "thought_delta": lambda e: self._on_delta(e, thought=True),
            "completion": self._on_completion,
            "tool_select_delta": self._on_tool_select,
            "tool_call": self._on_tool_call,
            "tool_call_response": self._on_tool_call_response,
            "system_message": self._on_system_message,
            "render_media": self._on_render_media,
            "subsession_started": self._on_subsession_started,
            "history": self._on_history,
        }

    # -- public API ------------------------------------------------------------------------------

    def on(self, name: str, listener: Listener) -> None:
        """Listen for "message-updated" (tool calls attached to an earlier message)."""
        self._listeners.setdefault(name, []).append(listener)

    def process_event(self, event: dict[str, Any]) -> None:
        handler = self._handlers.get(event["type"])
        if handler is None:
            log.debug("ignoring %s event", event["type"])
        else:
            handler(event)

    def session(self, session_id: str) -> ChatSession:
        session = self.sessions.get(session_id)
        if session is None:
            session = self.sessions[session_id] = ChatSession(session_id)
        return session

    # -- internals -------------------------------------------------------------------------------

    def _emit(self, name: str, payload: dict[str, Any]) -> None:
        for listener in self._listeners.get(name, ()):
            listener(payload)

    def _session_of(self, event: dict[str, Any]) -> ChatSession:
        session = self.session(event["session_id"])
        session.parent_session_id = event.get("parent_session_id") or session.parent_session_id
        return session

    def _open_message(self, session: ChatSession, message: ChatMessage) -> None:
        session.messages.append(message)
        if message.can_carry_tools:
            # Attach when the message opens, not when it completes: the UI shows the calls
            # while the text is still streaming.
            message.attach(session.pending_tool_calls)
            session.pending_tool_calls.clear()

    # -- handlers --------------------------------------------------------------------------------

    def _on_interaction(self, event: dict[str, Any]) -> None:
        session = self._session_of(event)
        session.new_interaction()
        if not event["started"]:
            # Safety net: whatever is still "active" now will never complete.
            self.tool_calls.clear_session_notifications(session.session_id)

    def _on_user_turn_start(self, event: dict[str, Any]) -> None:
        # Safety net: if it's the user's turn, no agent in any session is using a tool.
        self.tool_calls.clear_all_active_notifications()

    def _on_user_message(self, event: dict[str, Any]) -> None:
        session = self._session_of(event)
        message_id = event.get("message_id") or f"msg-{next(self._ids)}"
        self._open_message(session, ChatMessage(message_id, "user", event["content"]))
        session.new_interaction()

    def _on_subsession_started(self, event: dict[str, Any]) -> None:
        self._session_of(event).new_interaction()

    def _on_delta(self, event: dict[str, Any], thought: bool) -> None:
        session = self._session_of(event)
        message = session.streaming
        message_id = event.get("message_id")
        if (
            message is None
            or message.is_thought != thought
            or (message_id is not None and message.id != message_id)
        ):
            if message is not None:
                message.streaming = False
            message = ChatMessage(
                message_id or f"msg-{next(self._ids)}",
                "assistant",
                is_thought=thought,
                streaming=True,
            )
            self._open_message(session, message)
            session.streaming = message
        message.content += event.get("content", "")

    def _on_completion(self, event: dict[str, Any]) -> None:
        if event.get("running", True):
            return
        session = self._session_of(event)
        # A repeated completion finds nothing streaming and changes nothing.
        if session.streaming is not None:
            session.streaming.streaming = False
            session.streaming = None

    def _on_tool_select(self, event: dict[str, Any]) -> None:
        self.tool_calls.on_tool_select(event["session_id"], event["tool_calls"])

    def _on_tool_call(self, event: dict[str, Any]) -> None:
        session_id = event["session_id"]
        if event["active"]:
            self.tool_calls.on_tool_call_active(session_id, event["tool_calls"])
            return
        # Only the completion carries results, and only it decides where a call is shown.
        fresh = self.tool_calls.on_tool_call_complete(session_id, event["tool_calls"])
        results = event.get("tool_results") or []
        completed: Completed = [
            (
                ToolCall(call["id"], call["name"], call.get("input")),
                _result_for(call["id"], results),
            )
            for call in fresh
        ]
        if completed:
            self._attach_completed(self._session_of(event), completed)

    def _attach_completed(
        self, session: ChatSession, completed: Completed, *, notify: bool = True
    ) -> None:
        """Attach to the previous assistant/thought message of this session's interaction; if
        the interaction opened with tool calls there is none, so hold them for the next one."""
        for index in range(len(session.messages) - 1, session.interaction_start - 1, -1):
            message = session.messages[index]
            if message.can_carry_tools:
                message.attach(completed)
                if notify:
                    self._emit(
                        "message-updated",
                        {
                            "session_id": session.session_id,
                            "message_index": index,
                            "message": message,
                        },
                    )
                return
        session.pending_tool_calls.extend(completed)

    def _on_tool_call_response(self, event: dict[str, Any]) -> None:
        streams = self._session_of(event).tool_streams
        state = streams.get(event["call_id"])
        if state is None:
            state = streams[event["call_id"]] = ToolStreamState(
                event["call_id"], event["event_type"], event["tool_name"]
            )
        # A delegation's call and result share one entry, so the type follows the latest part.
        state.event_type = event["event_type"]
        state.tool_name = event["tool_name"] or state.tool_name
        state.tool_response = event.get("tool_response") or state.tool_response
        state.summary = (event.get("tool_call_details") or {}).get("summary") or state.summary
        if event.get("stream_part") is not None:
            state.accumulated_stream += event["stream_part"]
        state.is_complete = event.get("is_complete", True)

    def _on_system_message(self, event: dict[str, Any]) -> None:
        message = ChatMessage(f"msg-{next(self._ids)}", "system", event.get("content", ""))
        self._session_of(event).messages.append(message)

    def _on_render_media(self, event: dict[str, Any]) -> None:
        message = ChatMessage(f"msg-{next(self._ids)}", "system", event["content"], format="media")
        self._session_of(event).messages.append(message)

    # -- resume ----------------------------------------------------------------------------------

    def _on_history(self, event: dict[str, Any]) -> None:
        """A reconnecting client gets the session's stored messages (provider-shaped: tool_use
        blocks in assistant messages, their tool_result blocks in later user messages)."""
        old = self.session(event["session_id"])
        session = ChatSession(old.session_id, old.parent_session_id, tool_streams=old.tool_streams)
        self.sessions[session.session_id] = session
        stored = event["messages"]
        results = {
            block["tool_use_id"]: block
            for message in stored
            if message["role"] == "user"
            for block in _blocks(message)
            if block["type"] == "tool_result"
        }
        seen: set[str] = set()
        for message in stored:
            for block in _blocks(message):
                kind = block["type"]
                if message["role"] == "user":
                    if kind == "text":
                        self._open_message(session, self._resumed("user", block["text"]))
                        session.new_interaction()
                elif kind in ("text", "thinking"):
                    text = block["text"] if kind == "text" else block["thinking"]
                    self._open_message(session, self._resumed("assistant", text, kind))
                elif kind == "tool_use" and block["id"] in results and block["id"] not in seen:
                    # A tool_use without a tool_result never completed: not shown.
                    seen.add(block["id"])
                    # The stored result is final: a notice still up from before the
                    # reconnect is for a call that is over.
                    self.tool_calls.finish(session.session_id, block["id"])
                    stored_result = results[block["id"]]
                    call = ToolCall(block["id"], block["name"], block.get("input"))
                    result = ToolResult(
                        block["id"], stored_result["content"], stored_result.get("is_error", False)
                    )
                    # No "message-updated" while rebuilding: the session is rendered afresh.
                    self._attach_completed(session, [(call, result)], notify=False)
        # The interaction goes on from the history's last user message: a call still running
        # when the client reconnected completes onto the rebuilt message that made it.

    def _resumed(self, role: str, text: str, kind: str = "text") -> ChatMessage:
        # Stored messages have no ids; "resumed-" marks the ones we make up for them.
        return ChatMessage(f"resumed-{next(self._ids)}", role, text, is_thought=kind == "thinking")


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _result_for(call_id: str, results: list[dict[str, Any]]) -> ToolResult | None:
    for result in results:
        if result["tool_use_id"] == call_id:
            return ToolResult(call_id, result["content"], result.get("is_error", False))
    return None
