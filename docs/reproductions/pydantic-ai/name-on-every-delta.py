"""pydantic-ai on a Chat Completions body that repeats the tool name on every delta of a call
(as llama.cpp's server did), without the harness: with an index the name is concatenated onto
the call's; with no index as well, each delta that carries the name starts a call of its own,
under an id pydantic-ai makes up.

    python docs/reproductions/pydantic-ai/name-on-every-delta.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0 (the made-up ids differ on each run):

    with an index: [('call_fr', 'final_resultfinal_resultfinal_result', '{"answer": 42}')]
    with no index: [('call_fr', 'final_result', ''), ('pyd_ai_...', 'final_result', '{"answer": '), ('pyd_ai_...', 'final_result', '42}')]
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


def body(with_index):
    """One call whose three deltas all name it; the first also carries its id."""
    deltas = [chunk({"role": "assistant"})]
    for n, arguments in enumerate(["", '{"answer": ', "42}"]):
        call = {"function": {"name": "final_result", "arguments": arguments}}
        if with_index:
            call["index"] = 0
        if n == 0:
            call.update(id="call_fr", type="function")
        deltas.append(chunk({"tool_calls": [call]}))
    return "".join([*deltas, chunk({}, "tool_calls"), "data: [DONE]\n\n"])


async def calls(data):
    def handler(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = AsyncOpenAI(api_key="x", max_retries=0, http_client=http)
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    found = []
    async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
        async for event in stream:
            if isinstance(event, PartEndEvent) and isinstance(event.part, ToolCallPart):
                part = event.part
                found.append((part.tool_call_id, part.tool_name, part.args))
    return found


indexed = asyncio.run(calls(body(with_index=True).encode()))
print("with an index:", indexed)
assert indexed == [("call_fr", "final_resultfinal_resultfinal_result", '{"answer": 42}')]

unindexed = asyncio.run(calls(body(with_index=False).encode()))
print("with no index:", unindexed)
assert [(name, args) for _, name, args in unindexed] == [
    ("final_result", ""),
    ("final_result", '{"answer": '),
    ("final_result", "42}"),
]
assert unindexed[0][0] == "call_fr" and all(i.startswith("pyd_ai_") for i, _, _ in unindexed[1:])
