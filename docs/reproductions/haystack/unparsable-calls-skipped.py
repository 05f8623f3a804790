"""Haystack's OpenAIChatGenerator, streaming, without the harness: a call whose arguments do
not parse is left out of the reply, with only a logged warning; parallel calls sent at one
index are merged, do not parse, and the reply holds no call.

    python docs/reproductions/haystack/unparsable-calls-skipped.py

prints, with haystack-ai 3.4.1 (and Haystack's warnings on stderr):

    arguments cut before the closing brace: tool_calls []
    two calls at index 0: tool_calls []
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


cut = reply(body(ROLE, call(0, "call_tk", "get_ticket", '{"ticket_id": 42')))
print("arguments cut before the closing brace: tool_calls", cut.tool_calls)
assert cut.tool_calls == [], cut.tool_calls

merged = reply(
    body(
        ROLE,
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
)
print("two calls at index 0: tool_calls", merged.tool_calls)
assert merged.tool_calls == [], merged.tool_calls
