"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: parallel calls at
one index (or with none) become one call, ids, names and arguments joined; an id repeated on a
later delta is appended to the first.

    python docs/reproductions/autogen/calls-keyed-by-index-ids-joined.py

prints, with autogen-ext 0.7.5:

    at index 0: [FunctionCall(id='call_1call_2', arguments='{"path": "a.rs"}{"path": "b.rs"}', name='write_filewrite_file')]
    without an index: [FunctionCall(id='call_1call_2', arguments='{"path": "a.rs"}{"path": "b.rs"}', name='write_filewrite_file')]
    id repeated: [FunctionCall(id='call_k1call_k1', arguments='{"key": "a"}', name='kv_get')]
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


for label, index in (("at index 0", 0), ("without an index", None)):
    _, merged = stream(
        body(
            ROLE,
            call(index, "call_1", "write_file", '{"path": "a.rs"}'),
            call(index, "call_2", "write_file", '{"path": "b.rs"}'),
        )
    )
    print(f"{label}:", merged.content)
    assert [(c.id, c.name) for c in merged.content] == [("call_1call_2", "write_filewrite_file")]

_, repeated = stream(
    body(ROLE, call(0, "call_k1", "kv_get", '{"key": '), call(0, "call_k1", None, '"a"}'))
)
print("id repeated:", repeated.content)
assert [c.id for c in repeated.content] == ["call_k1call_k1"], repeated.content
