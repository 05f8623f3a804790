"""The streamharness adapter for chatui: harness events in, what the chat UI shows out.

pyproject.toml names the factory (``harness_adapter = "chatui_testing:make_adapter"``); the
harness calls it once per scenario, feeds the adapter one canonical event at a time, and reads
``notifications()`` and ``transcript()`` at its checkpoints. The adapter's whole job is
translation, in both directions; the behaviour under test is the real EventStreamProcessor's.
"""

from __future__ import annotations

import json
from typing import Any

from chatui import ChatMessage, ChatSession, EventStreamProcessor, ToolCall, ToolResult

# -- harness event -> Agent C event --------------------------------------------------------------


def _calls(event: Any) -> list[dict[str, Any]]:
    # Agent C sends a call's input as the raw JSON text the model produced.
    return [{"id": c.id, "name": c.name, "input": c.arguments} for c in event.calls]


class ChatUIAdapter:
    layers = ("session",)

    def __init__(self) -> None:
        self.processor = EventStreamProcessor()
        self.updates: list[dict[str, str]] = []
        self.processor.on("message-updated", self._on_message_updated)
        #: (session, message id) -> "text_delta" or "thought_delta", from its message_start
        self.delta_type: dict[tuple[str, str], str] = {}

    def _on_message_updated(self, update: dict[str, Any]) -> None:
        self.updates.append(
            {"session_id": update["session_id"], "message_id": update["message"].id}
        )

    def feed(self, event: Any) -> None:
        translated = self.translate(event)
        if translated is not None:
            translated["session_id"] = event.session_id
            translated["parent_session_id"] = event.parent_session_id
            self.processor.process_event(translated)

    def translate(self, event: Any) -> dict[str, Any] | None:
        kind = event.kind
        if kind in ("interaction_start", "interaction_end"):
            started = kind == "interaction_start"
            return {"type": "interaction", "started": started, "id": event.interaction_id}
        if kind == "user_turn_start":
            return {"type": "user_turn_start"}
        if kind == "user_message":
            return {"type": "user_message", "message_id": event.message_id, "content": event.text}
        if kind == "message_start":
            # An empty delta opens the message, so a message with no text still exists.
            key = (event.session_id, event.message_id)
            self.delta_type[key] = "thought_delta" if event.role == "thought" else "text_delta"
            return {"type": self.delta_type[key], "message_id": event.message_id, "content": ""}
        if kind == "message_delta":
            key = (event.session_id, event.message_id)
            return {
                "type": self.delta_type[key],
                "message_id": event.message_id,
                "content": event.text,
            }
        if kind == "message_end":
            return {"type": "completion", "running": False}
        if kind == "tool_select":
            return {"type": "tool_select_delta", "tool_calls": _calls(event)}
        if kind == "tool_executing":
            return {"type": "tool_call", "active": True, "tool_calls": _calls(event)}
        if kind == "tool_completed":
            results = [
                {"tool_use_id": r.tool_call_id, "content": r.content, "is_error": r.is_error}
                for r in event.results
            ]
            return {
                "type": "tool_call",
                "active": False,
                "tool_calls": _calls(event),
                "tool_results": results,
            }
        if kind == "tool_stream":
            return {
                "type": "tool_call_response",
                "call_id": event.call_id,
                "event_type": event.event_type,
                "tool_name": event.tool_name,
                "tool_response": event.tool_response,
                "tool_call_details": {"summary": event.summary},
                "stream_part": event.stream_part,
                "is_complete": event.is_complete,
            }
        if kind == "system_message":
            return {"type": "system_message", "severity": event.severity, "content": event.text}
        if kind == "media":
            return {
                "type": "render_media",
                "content_type": event.content_type,
                "content": event.content,
            }
        if kind == "subsession_start":
            return {"type": "subsession_started"}
        if kind == "resume":
            return {"type": "history", "messages": [m.to_json() for m in event.history]}
        return None  # subsession_end: nothing for the UI to do

    # -- chat model -> harness observation -------------------------------------------------------

    def notifications(self) -> list[dict[str, str]]:
        return [
            {
                "session_id": n.session_id,
                "tool_call_id": n.id,
                "tool_name": n.tool_name,
                "status": "using" if n.status == "executing" else n.status,
            }
            for n in self.processor.tool_calls.notifications()
        ]

    def transcript(self) -> dict[str, Any]:
        return {
            "sessions": {sid: _session_view(s) for sid, s in self.processor.sessions.items()},
            "updates": list(self.updates),
        }


def _session_view(session: ChatSession) -> dict[str, Any]:
    return {
        # System messages and media are chat items, but not messages the harness compares.
        "messages": [_message(m) for m in session.messages if m.role != "system"],
        "tool_streams": [
            {
                "call_id": s.call_id,
                "event_type": s.event_type,
                "tool_name": s.tool_name,
                "tool_response": s.tool_response,
                "summary": s.summary,
                "content": s.accumulated_stream,
                "is_complete": s.is_complete,
            }
            for s in session.tool_streams.values()
        ],
    }


def _message(message: ChatMessage) -> dict[str, Any]:
    return {
        "message_id": message.id,
        "role": "thought" if message.is_thought else message.role,
        "text": message.content,
        "tool_calls": [
            _tool_call(call, message.tool_results.get(call.id)) for call in message.tool_calls
        ],
    }


def _tool_call(call: ToolCall, result: ToolResult | None) -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        # Live input is raw JSON text, which the harness parses; history gives it parsed.
        "input": call.input if isinstance(call.input, str) else json.dumps(call.input),
        "result": result.content if result else None,
        "is_error": result.is_error if result else False,
    }


def make_adapter() -> ChatUIAdapter:
    return ChatUIAdapter()
