"""pydantic-ai on a Chat Completions body whose two parallel calls both stream at index 0, each
with its own id (as Groq sends them), without the harness: the parts manager keys calls by
index, so the user gets one call with both names, both argument objects and the last id.

    python docs/reproductions/pydantic-ai/same-index-calls-merged.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    calls: [('call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

import asyncio
import json

import httpx
from openai import AsyncOpenAI
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.messages import PartEndEvent, ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def chunk(delta, finish=None):
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n"


def call(call_id, arguments):
    function = {"name": "write_file", "arguments": arguments}
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}


body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk(call("call_1", '{"path": "a.rs"}')),
        chunk(call("call_2", '{"path": "b.rs"}')),  # the second call, at the same index
        chunk({}, "tool_calls"),
        "data: [DONE]\n\n",
    ]
)


def handler(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


async def main():
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = AsyncOpenAI(api_key="x", max_retries=0, http_client=http)
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    calls = []
    async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
        async for event in stream:
            if isinstance(event, PartEndEvent) and isinstance(event.part, ToolCallPart):
                part = event.part
                calls.append((part.tool_call_id, part.tool_name, part.args))
    print("calls:", calls)
    assert calls == [("call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')]


asyncio.run(main())
