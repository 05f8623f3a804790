"""Haystack's OpenAIChatGenerator, streaming, without the harness: a tool name repeated on
every delta is appended each time.

    python docs/reproductions/haystack/name-on-every-delta-joined.py

prints, with haystack-ai 3.4.1:

    [ToolCall(tool_name='final_resultfinal_result', arguments={'a': 1}, id='call_fr', extra=None)]
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


joined = reply(
    body(ROLE, call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
)
print(joined.tool_calls)
assert [c.tool_name for c in joined.tool_calls] == ["final_resultfinal_result"], joined.tool_calls
