"""Client side of Switchyard, our model gateway: reading its streamed turns."""

from switchyard.stream import Failed, Finished, Text, ToolCall, TurnReader

__all__ = ["Failed", "Finished", "Text", "ToolCall", "TurnReader"]
