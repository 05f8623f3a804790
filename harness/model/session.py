"""Canonical session-layer events: what a framework's session stream says, provider-neutral.

Every event names the session it belongs to and, for a sub-session, that session's parent. The
``line`` of an event is the scenario line it came from; it takes no part in equality.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

from harness.model.history import HistoryMessage

MessageRole = Literal["assistant", "thought"]
StreamEventType = Literal["call", "result", "delegation_call", "delegation_result"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the session stream reports it; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str = "{}"

    @property
    def input(self) -> Any:
        return json.loads(self.arguments)


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEvent:
    kind: ClassVar[str] = ""
    session_id: str
    parent_session_id: str | None = None
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionStart(SessionEvent):
    kind: ClassVar[str] = "interaction_start"
    interaction_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionEnd(SessionEvent):
    kind: ClassVar[str] = "interaction_end"
    interaction_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class UserTurnStart(SessionEvent):
    kind: ClassVar[str] = "user_turn_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage(SessionEvent):
    kind: ClassVar[str] = "user_message"
    message_id: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageStart(SessionEvent):
    kind: ClassVar[str] = "message_start"
    message_id: str
    role: MessageRole = "assistant"


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageDelta(SessionEvent):
    kind: ClassVar[str] = "message_delta"
    message_id: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageEnd(SessionEvent):
    kind: ClassVar[str] = "message_end"
    message_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSelect(SessionEvent):
    """The agent is preparing to use these tools (UX only)."""

    kind: ClassVar[str] = "tool_select"
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecuting(SessionEvent):
    """The agent is using these tools (UX only)."""

    kind: ClassVar[str] = "tool_executing"
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCompleted(SessionEvent):
    """These tools finished; the only tool event that carries results."""

    kind: ClassVar[str] = "tool_completed"
    calls: tuple[ToolCall, ...]
    results: tuple[ToolResult, ...] = ()

    def result_for(self, call_id: str) -> ToolResult | None:
        for result in self.results:
            if result.tool_call_id == call_id:
                return result
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStreamPart(SessionEvent):
    """One chunk of a streamed tool call or result (a ``ToolCallResponse``)."""

    kind: ClassVar[str] = "tool_stream"
    call_id: str
    event_type: StreamEventType
    tool_name: str
    tool_response: str = ""
    summary: str = ""
    stream_part: str | None = None
    is_complete: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemMessage(SessionEvent):
    kind: ClassVar[str] = "system_message"
    severity: str = "info"
    text: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Media(SessionEvent):
    kind: ClassVar[str] = "media"
    content_type: str = "text/html"
    content: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SubsessionStart(SessionEvent):
    kind: ClassVar[str] = "subsession_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class SubsessionEnd(SessionEvent):
    kind: ClassVar[str] = "subsession_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(SessionEvent):
    """A reconnecting client receives this session's stored history and rebuilds its transcript."""

    kind: ClassVar[str] = "resume"
    history: tuple[HistoryMessage, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Checkpoint(SessionEvent):
    """Not delivered to the adapter: the replayer observes the adapter here."""

    kind: ClassVar[str] = "checkpoint"
    name: str = ""


EVENT_TYPES: dict[str, type[SessionEvent]] = {
    cls.kind: cls
    for cls in (
        InteractionStart,
        InteractionEnd,
        UserTurnStart,
        UserMessage,
        MessageStart,
        MessageDelta,
        MessageEnd,
        ToolSelect,
        ToolExecuting,
        ToolCompleted,
        ToolStreamPart,
        SystemMessage,
        Media,
        SubsessionStart,
        SubsessionEnd,
        Resume,
        Checkpoint,
    )
}


def event_to_json(event: SessionEvent) -> dict[str, Any]:
    """The JSON form of an event, as out-of-process adapters receive it (protocol 1).

    ``{"type": kind, "session_id": ..., "parent_session_id": ..., <the event's fields>}``; a
    tool call is ``{"id", "name", "arguments" (raw JSON text), "input" (parsed, or null)}``, a
    result ``{"tool_call_id", "content", "is_error"}``, a resume's history a list of
    provider-shaped messages (``{"role", "content": [blocks]}``).
    """
    data: dict[str, Any] = {"type": event.kind}
    for f in fields(event):
        name = f.name
        if name == "line":
            continue
        value = getattr(event, name)
        if name in ("calls",):
            value = [_call_json(c) for c in value]
        elif name == "results":
            value = [
                {"tool_call_id": r.tool_call_id, "content": r.content, "is_error": r.is_error}
                for r in value
            ]
        elif name == "history":
            value = [m.to_json() for m in value]
        data[name] = value
    return data


def _call_json(call: ToolCall) -> dict[str, Any]:
    try:
        parsed = json.loads(call.arguments) if call.arguments else None
    except ValueError:
        parsed = None
    return {"id": call.id, "name": call.name, "arguments": call.arguments, "input": parsed}
