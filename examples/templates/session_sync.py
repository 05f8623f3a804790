"""A minimal session-layer adapter: copy it, and replace the small consumer inside with yours.

    python -m pytest --harness-adapter=session_sync:make_adapter

The harness feeds canonical events (``harness.model.session``) one at a time to ``feed`` and,
at checkpoints, asks ``notifications()`` and ``transcript()`` what the consumer shows.
"""

from __future__ import annotations

from typing import Any

from harness.model import session as ev


class SessionTemplate:
    layers = ("session",)

    def __init__(self) -> None:
        # your consumer goes here; this one keeps the least the rules look at
        self.notes: dict[tuple[str, str], dict[str, str]] = {}
        self.finished: set[tuple[str, str]] = set()  # (session, call id) of completed calls
        self.sessions: dict[str, list[dict[str, Any]]] = {}
        self.updates: list[dict[str, str]] = []

    def feed(self, event: ev.SessionEvent) -> None:
        sid = event.session_id
        messages = self.sessions.setdefault(sid, [])
        if isinstance(event, ev.UserMessage):
            messages.append({"message_id": event.message_id, "role": "user", "text": event.text})
        elif isinstance(event, ev.MessageStart):
            messages.append({"message_id": event.message_id, "role": event.role, "text": ""})
        elif isinstance(event, ev.MessageDelta):
            for message in messages:
                if message["message_id"] == event.message_id:
                    message["text"] += event.text
        elif isinstance(event, ev.ToolSelect | ev.ToolExecuting):
            status = "preparing" if isinstance(event, ev.ToolSelect) else "using"
            for call in event.calls:  # keyed by session and call: ids repeat across sessions
                if (sid, call.id) in self.finished:
                    continue  # a completion is final, even if a lifecycle event comes after it
                self.notes[sid, call.id] = {
                    "session_id": sid,
                    "tool_call_id": call.id,
                    "tool_name": call.name,
                    "status": status,
                }
        elif isinstance(event, ev.ToolCompleted):
            self._attach(sid, event)
        elif isinstance(event, ev.InteractionEnd):
            self.notes = {key: note for key, note in self.notes.items() if key[0] != sid}
        elif isinstance(event, ev.UserTurnStart):
            self.notes.clear()

    def _attach(self, sid: str, event: ev.ToolCompleted) -> None:
        hosts = [m for m in self.sessions[sid] if m["role"] in ("assistant", "thought")]
        for call in event.calls:
            self.notes.pop((sid, call.id), None)
            self.finished.add((sid, call.id))
            result = event.result_for(call.id)
            if not hosts or result is None:
                continue  # a call with no message before it, or no result: not shown here
            host = hosts[-1]
            host.setdefault("tool_calls", []).append(
                {
                    "id": call.id,
                    "name": call.name,
                    "input": call.input,
                    "result": result.content,
                    "is_error": result.is_error,
                }
            )
            self.updates.append({"session_id": sid, "message_id": host["message_id"]})

    def notifications(self) -> list[dict[str, str]]:
        return list(self.notes.values())

    def transcript(self) -> dict[str, Any]:
        return {
            "sessions": {sid: {"messages": messages} for sid, messages in self.sessions.items()},
            "updates": self.updates,
        }


def make_adapter() -> SessionTemplate:
    """The factory: called once per scenario, so each replay starts fresh."""
    return SessionTemplate()
