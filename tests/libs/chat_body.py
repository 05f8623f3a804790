"""Bodies and offline clients for the direct reproductions: OpenAI Chat Completions chunks, one
per delta, the last with the finish reason, then [DONE]."""

from __future__ import annotations

import json
from typing import Any

from harness.adapters.libs._offline import http_module


def body(*deltas: dict[str, Any], finish: str = "tool_calls") -> bytes:
    chunks = [{"role": "assistant", "content": None}, *deltas]
    lines = []
    for n, delta in enumerate(chunks):
        last = n == len(chunks) - 1
        choice = {"index": 0, "delta": delta, "finish_reason": finish if last else None}
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [choice],
        }
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def call(
    index: int | None, call_id: str | None, name: str | None, arguments: str
) -> dict[str, Any]:
    delta: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        delta["index"] = index
    if call_id:
        delta["id"] = call_id
        delta["type"] = "function"
    if name:
        delta["function"]["name"] = name
    return {"tool_calls": [delta]}


def offline_client(client_class: type, data: bytes) -> Any:
    """An SDK's default HTTP client (``DefaultHttpxClient`` or its async twin) whose transport
    answers every request with the body; built on whichever httpx flavour the SDK uses."""
    httpx = http_module(client_class)

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    return client_class(transport=httpx.MockTransport(answer))
