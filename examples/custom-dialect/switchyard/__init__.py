"""Client side of Switchyard, our model gateway: reading its streamed turns."""

from switchyard.stream import Finished, Text, ToolCall, TurnReader

__all__ = ["Finished", "Text", "ToolCall", "TurnReader"]
