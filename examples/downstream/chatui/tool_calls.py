"""Tool notifications ("Agent is preparing to use / using X"), tracked per session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ToolNotification:
    id: str
    session_id: str
    tool_name: str
    status: str  # "preparing" or "executing"


class ToolCallManager:
    def __init__(self) -> None:
        self.active_tools: dict[str, ToolNotification] = {}
        # Completed keys are remembered so a repeated completion (or a late select/active
        # replayed by the server) neither attaches a call twice nor brings its notice back.
        self.completed: set[str] = set()

    @staticmethod
    def make_key(session_id: str, tool_call_id: str) -> str:
        # Sub-sessions reuse tool call ids (a delegated agent numbers its own calls), so the
        # session is part of a call's identity.
        return f"{session_id}:{tool_call_id}"

    def on_tool_select(self, session_id: str, tool_calls: list[dict[str, Any]]) -> None:
        for call in tool_calls:
            key = self.make_key(session_id, call["id"])
            if key not in self.completed:
                self.active_tools[key] = ToolNotification(
                    call["id"], session_id, call.get("name", ""), "preparing"
                )

    def on_tool_call_active(self, session_id: str, tool_calls: list[dict[str, Any]]) -> None:
        for call in tool_calls:
            key = self.make_key(session_id, call["id"])
            if key in self.completed:
                continue
            known = self.active_tools.get(key)
            name = (known.tool_name if known else "") or call.get("name", "")
            self.active_tools[key] = ToolNotification(call["id"], session_id, name, "executing")

    def on_tool_call_complete(
        self, session_id: str, tool_calls: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Remove the notifications; return the calls completed for the first time, each with
        its tool name (the completion event may leave it out)."""
        fresh = []
        for call in tool_calls:
            key = self.make_key(session_id, call["id"])
            notification = self.active_tools.pop(key, None)
            if key in self.completed:
                continue
            self.completed.add(key)
            name = (notification.tool_name if notification else "") or call.get("name", "")
            fresh.append({**call, "name": name})
        return fresh

    def finish(self, session_id: str, tool_call_id: str) -> None:
        """The call has its result in a stored history: it is over, whatever came live."""
        key = self.make_key(session_id, tool_call_id)
        self.active_tools.pop(key, None)
        self.completed.add(key)

    def clear_session_notifications(self, session_id: str) -> None:
        for key, notification in list(self.active_tools.items()):
            if notification.session_id == session_id:
                del self.active_tools[key]

    def clear_all_active_notifications(self) -> None:
        self.active_tools.clear()

    def notifications(self) -> list[ToolNotification]:
        return list(self.active_tools.values())
