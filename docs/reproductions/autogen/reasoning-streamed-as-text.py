"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: reasoning_content
comes out as str chunks, like the answer's text, marked only by <think> tags.

    python docs/reproductions/autogen/reasoning-streamed-as-text.py

prints, with autogen-ext 0.7.5:

    chunks ['<think>The user wants the forecast.', '</think>', 'Let me check.']
    thought 'The user wants the forecast.'
"""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import httpx2  # the HTTP client the openai SDK 3 is built on
from autogen_core.models import UserMessage
from autogen_ext.models.openai import OpenAIChatCompletionClient
from openai import DefaultAsyncHttpxClient

warnings.simplefilter("ignore")  # AutoGen warns of an empty result; the output says it all


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n"


def body(*deltas: dict[str, Any], finish: str | None = "tool_calls", done: bool = True) -> str:
    """Chat Completions chunks, one per delta (the last with the finish reason), then [DONE]."""
    last = len(deltas) - 1
    lines = [chunk(d, finish if n == last else None) for n, d in enumerate(deltas)]
    return "".join(lines) + ("data: [DONE]\n\n" if done else "")


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


def stream(data: str) -> tuple[list[str], Any]:
    """What create_stream yields over a transport that answers with ``data``: the str chunks,
    and the CreateResult."""

    async def run() -> tuple[list[str], Any]:
        transport = httpx2.MockTransport(
            lambda request: httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=data.encode()
            )
        )
        client = OpenAIChatCompletionClient(
            model="gpt-4o",
            api_key="offline",
            max_retries=0,
            http_client=DefaultAsyncHttpxClient(transport=transport),
        )
        texts, result = [], None
        async for item in client.create_stream([UserMessage(content="go", source="user")]):
            if isinstance(item, str):
                texts.append(item)
            else:
                result = item
        await client.close()
        return texts, result

    return asyncio.run(run())


texts, result = stream(
    body(
        ROLE,
        {"reasoning_content": "The user wants the forecast."},
        {"content": "Let me check."},
        finish="stop",
    )
)
print("chunks", texts)
print("thought", repr(result.thought))
assert texts == ["<think>The user wants the forecast.", "</think>", "Let me check."], texts
