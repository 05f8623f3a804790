"""What the strands-anthropic scripts share: the Messages body builders, and what Strands'
event loop makes of AnthropicModel's stream of a body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anthropic
from strands.models.anthropic import AnthropicModel

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _anthropic_wire import START, end, fragment, sse, stop, text, text_start, tool_start
from _offline_http import http_client
from _strands import streamed, tool_uses

__all__ = [
    "START",
    "end",
    "fragment",
    "sse",
    "stop",
    "streamed_over",
    "text",
    "text_start",
    "tool_start",
    "tool_uses",
]


def streamed_over(data: str) -> tuple[str, str, dict[str, Any]]:
    """The text streamed, the stop reason and the message the event loop hands over."""
    http = http_client(anthropic.DefaultAsyncHttpxClient, data)
    model = AnthropicModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="claude-sonnet-4-5",
        max_tokens=1024,
    )
    return streamed(model)
