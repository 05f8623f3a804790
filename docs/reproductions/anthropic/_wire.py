"""What the anthropic scripts share: the Messages body builders, and what the SDK's
MessageStream hands over on a body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anthropic

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _anthropic_wire import START, end, fragment, sse, stop, text, text_start, tool_start
from _offline_http import http_client

__all__ = [
    "START",
    "end",
    "fragment",
    "handed_over",
    "sse",
    "stop",
    "text",
    "text_start",
    "tool_input",
    "tool_start",
]


def handed_over(data: str) -> list[Any]:
    """Every event client.messages.stream hands its user on the body."""
    http = http_client(anthropic.DefaultHttpxClient, data)
    client = anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)
    with client.messages.stream(
        model="any", max_tokens=16, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        return list(stream)


def tool_input(fragments: list[str]) -> Any:
    """The input of a tool_use block sent in these fragments, as content_block_stop hands it
    over."""
    data = sse(
        START,
        tool_start(0, "toolu_1", "get_ticket"),
        *(fragment(0, piece) for piece in fragments),
        stop(0),
        *end("tool_use"),
    )
    return next(e.content_block.input for e in handed_over(data) if e.type == "content_block_stop")
