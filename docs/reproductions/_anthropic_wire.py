"""Anthropic Messages bodies: each event an ``event:`` line and a ``data:`` line, or the data:
line alone, as some Anthropic-compatible proxies send them. The standard library only, so that
the scripts of every library on that wire build their bodies alike (a folder's ``_wire.py`` puts
docs/reproductions on sys.path and passes these on)."""

from __future__ import annotations

import json
from typing import Any

#: message_start: the message before its content
START: dict[str, Any] = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}


def sse(*events: dict[str, Any], event_lines: bool = True) -> str:
    """The events as a body: each one's ``event:`` line (unless ``event_lines`` is False) and its
    ``data:`` line."""
    lines = []
    for event in events:
        if event_lines:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event)}\n\n")
    return "".join(lines)


def text_start(index: int) -> dict[str, Any]:
    block = {"type": "text", "text": ""}
    return {"type": "content_block_start", "index": index, "content_block": block}


def text(index: int, piece: str) -> dict[str, Any]:
    delta = {"type": "text_delta", "text": piece}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def tool_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def fragment(index: int, partial_json: str) -> dict[str, Any]:
    """A piece of a tool use's input."""
    delta = {"type": "input_json_delta", "partial_json": partial_json}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def end(reason: str) -> tuple[dict[str, Any], ...]:
    """message_delta with the stop reason, then message_stop."""
    delta = {"stop_reason": reason, "stop_sequence": None}
    return (
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    )
