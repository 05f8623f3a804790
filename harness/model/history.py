"""Provider-neutral persisted history: user and assistant messages made of content blocks.

The shape follows the Anthropic Messages API (``tool_use`` in an assistant message, its
``tool_result`` in the next user message), which is also what a reconnecting client receives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """The model's reasoning; ``signature`` is the provider's opaque proof of it (the Messages
    API's ``signature``), empty when the stream carried none."""

    text: str
    signature: str = ""


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False


Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    role: Literal["user", "assistant"]
    blocks: tuple[Block, ...]

    def to_json(self) -> dict[str, object]:
        content: list[dict[str, object]] = []
        for block in self.blocks:
            if isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, ThinkingBlock):
                thinking: dict[str, object] = {"type": "thinking", "thinking": block.text}
                if block.signature:
                    thinking["signature"] = block.signature
                content.append(thinking)
            elif isinstance(block, ToolUseBlock):
                content.append(
                    {
                        "type": "tool_use",
                        "id": block.id,
                        "name": block.name,
                        "input": json.loads(block.arguments),
                    }
                )
            else:
                content.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": block.tool_use_id,
                        "content": block.content,
                        "is_error": block.is_error,
                    }
                )
        return {"role": self.role, "content": content}
