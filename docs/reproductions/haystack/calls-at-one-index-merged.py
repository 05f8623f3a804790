"""Haystack's OpenAIChatGenerator, streaming, without the harness: parallel calls sent at one
index become one call, the names joined and the arguments back to back, under the last id.

    python docs/reproductions/haystack/calls-at-one-index-merged.py

prints, with haystack-ai 3.4.1:

    [ToolCall(tool_name='current_timelist_events', arguments={'days': 7}, id='call_cal', extra=None)]
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.utils import Secret


def body(*deltas: dict[str, Any], finish: str | None = "tool_calls", done: bool = True) -> bytes:
    """Chat Completions chunks, one per delta (the last with the finish reason), then [DONE]."""
    lines = []
    for n, delta in enumerate(deltas):
        reason = finish if n == len(deltas) - 1 else None
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def call(
    index: int | None, call_id: str | None, name: str | None, arguments: str
) -> dict[str, Any]:
    delta: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        delta["index"] = index
    if call_id:
        delta["id"], delta["type"] = call_id, "function"
    if name:
        delta["function"]["name"] = name
    return {"tool_calls": [delta]}


ROLE = {"role": "assistant", "content": None}


def reply(data: bytes) -> Any:
    """The reply of OpenAIChatGenerator.run with a streaming callback, over a transport that
    answers with ``data``."""
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=data
        )
    )
    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("offline"),
        model="gpt-4o",
        max_retries=0,
        http_client_kwargs={"transport": transport},
    )
    result = generator.run([ChatMessage.from_user("go")], streaming_callback=lambda chunk: None)
    return result["replies"][0]


merged = reply(
    body(
        ROLE,
        call(0, "call_now", "current_time", ""),
        call(0, "call_cal", "list_events", '{"days": 7}'),
    )
)
print(merged.tool_calls)
assert [(c.id, c.tool_name, c.arguments) for c in merged.tool_calls] == [
    ("call_cal", "current_timelist_events", {"days": 7})
], merged.tool_calls
