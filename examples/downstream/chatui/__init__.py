"""chatui-core: the event processing behind our chat UI."""

from chatui.model import ChatMessage, ChatSession, ToolCall, ToolResult, ToolStreamState
from chatui.processor import EventStreamProcessor
from chatui.tool_calls import ToolCallManager, ToolNotification

__all__ = [
    "ChatMessage",
    "ChatSession",
    "EventStreamProcessor",
    "ToolCall",
    "ToolCallManager",
    "ToolNotification",
    "ToolResult",
    "ToolStreamState",
]
