"""Haystack's OpenAIChatGenerator, streaming, without the harness: a call delta without an
index, or a delta with text and a call's start together, makes run() raise ValueError.

    python docs/reproductions/haystack/call-deltas-rejected.py

prints, with haystack-ai 3.4.1:

    no index: ValueError: If `tool_call`, `tool_call_result` or `reasoning` is set, `index` must also be set.
    text beside a call's start: ValueError: Only one of `content`, `tool_call`, `tool_call_result` or `reasoning` may be set in a StreamingChunk.
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


def raised(data: bytes) -> str:
    try:
        reply(data)
    except ValueError as exc:
        return f"ValueError: {exc}"
    raise AssertionError("run() returned a reply")


no_index = raised(body(ROLE, call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}')))
print("no index:", no_index)
assert "`index` must also be set" in no_index

beside_text = raised(
    body(
        ROLE,
        {"content": "Checking.", **call(0, "call_fc", "get_forecast", "")},
        call(0, None, None, '{"city": "Oslo"}'),
    )
)
print("text beside a call's start:", beside_text.split(" Got ")[0])
assert "Only one of `content`, `tool_call`" in beside_text
