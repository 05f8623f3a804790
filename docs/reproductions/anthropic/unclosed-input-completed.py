"""The anthropic SDK's MessageStream, without the harness: tool-use input that stops before its
closing brace is handed over at content_block_stop as a complete-looking input, with nothing
marking it incomplete.

    python docs/reproductions/anthropic/unclosed-input-completed.py

prints, with anthropic 2.12.0:

    '{"ticket_id": 42, "fields": ["title", "status"]' -> {'ticket_id': 42, 'fields': ['title', 'status']}
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import anthropic


def event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def body(fragments: list[str]) -> bytes:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "any",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_ticket", "input": {}}
    deltas = [
        event(
            "content_block_delta",
            index=0,
            delta={"type": "input_json_delta", "partial_json": fragment},
        )
        for fragment in fragments
    ]
    return "".join(
        [
            event("message_start", message=message),
            event("content_block_start", index=0, content_block=block),
            *deltas,
            event("content_block_stop", index=0),
            event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 5}),
            event("message_stop"),
        ]
    ).encode()


def offline_client(data: bytes) -> anthropic.Anthropic:
    """A client whose every request is answered with the body (httpx, or httpx2 in recent SDK
    releases: whichever the SDK's own client is built on)."""
    base = next(c for c in anthropic.DefaultHttpxClient.__mro__ if c.__module__.startswith("httpx"))
    httpx = importlib.import_module(base.__module__.partition(".")[0])
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=data
        )
    )
    http = anthropic.DefaultHttpxClient(transport=transport)
    return anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)


def tool_input(fragments: list[str]) -> Any:
    """The input of the tool_use block as content_block_stop hands it over."""
    client = offline_client(body(fragments))
    with client.messages.stream(
        model="any", max_tokens=16, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        for item in stream:
            if item.type == "content_block_stop":
                return item.content_block.input
    return None


if __name__ == "__main__":
    fragments = ['{"ticket_id": 42, ', '"fields": ["title", "status"]']
    got = tool_input(fragments)
    print(repr("".join(fragments)), "->", got)
    assert got == {"ticket_id": 42, "fields": ["title", "status"]}, (
        "the SDK no longer completes an unclosed input"
    )
