"""The chat model the UI renders: sessions of messages, with tool calls attached to messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCall:
    id: str
    name: str
    input: Any = None  # raw JSON text on live events, a parsed object in stored history


@dataclass
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool = False


@dataclass
class ChatMessage:
    id: str
    role: str  # "user", "assistant" or "system"
    content: str = ""
    is_thought: bool = False
    format: str = "text"  # "text" or "media" (role "system" only)
    streaming: bool = False
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: dict[str, ToolResult] = field(default_factory=dict)

    @property
    def can_carry_tools(self) -> bool:
        return self.role == "assistant"  # thoughts are assistant messages too

    def attach(self, calls: list[tuple[ToolCall, ToolResult | None]]) -> None:
        for call, result in calls:
            self.tool_calls.append(call)
            if result is not None:
                self.tool_results[call.id] = result


@dataclass
class ToolStreamState:
    """One streamed tool call or delegation (a ToolCallResponse), accumulated by call_id."""

    call_id: str
    event_type: str
    tool_name: str
    tool_response: str = ""
    summary: str = ""
    accumulated_stream: str = ""
    is_complete: bool = False


@dataclass
class ChatSession:
    session_id: str
    parent_session_id: str | None = None
    messages: list[ChatMessage] = field(default_factory=list)
    #: index in ``messages`` where the current interaction began
    interaction_start: int = 0
    #: the message whose deltas are arriving
    streaming: ChatMessage | None = None
    #: completed calls waiting for this session's next assistant/thought message
    pending_tool_calls: list[tuple[ToolCall, ToolResult | None]] = field(default_factory=list)
    tool_streams: dict[str, ToolStreamState] = field(default_factory=dict)

    def new_interaction(self) -> None:
        self.interaction_start = len(self.messages)
        self.pending_tool_calls.clear()
