"""The OpenAI Agents SDK's Chat Completions model with ``buffer_streamed_tool_calls=True`` on two
parallel calls streamed at one index (as Groq and index-rewriting gateways send them), without
the harness: the buffer keys calls by index alone, so it hands over one function call, with the
last call's id and name and both calls' arguments back to back.

    python docs/reproductions/openai-agents-buffered/calls-at-one-index-merged.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    index 0 for both: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

import asyncio
import importlib
import json

from agents import ModelSettings, ModelTracing, OpenAIChatCompletionsModel
from openai import AsyncOpenAI, DefaultAsyncHttpxClient

# the httpx flavour (httpx or httpx2) the SDK's client is built on
httpx = importlib.import_module(
    next(c.__module__ for c in DefaultAsyncHttpxClient.__mro__ if c.__module__.startswith("httpx"))
)


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
    """A whole call, at index 0."""
    function = {"name": "write_file", "arguments": arguments}
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}


def body():
    """Two whole calls, each with its own id, both at index 0."""
    return "".join(
        [
            chunk({"role": "assistant", "content": None}),
            chunk(call("call_1", '{"path": "a.rs"}')),
            chunk(call("call_2", '{"path": "b.rs"}')),
            chunk({}, finish="tool_calls"),
            "data: [DONE]\n\n",
        ]
    ).encode()


async def function_calls(data):
    """The calls a user of the model's stream gets at response.output_item.done."""

    def answer(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    http = DefaultAsyncHttpxClient(transport=httpx.MockTransport(answer))
    client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
    model = OpenAIChatCompletionsModel("gpt-4o", client, buffer_streamed_tool_calls=True)
    stream = model.stream_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)
    found = []
    async for event in stream:
        if event.type == "response.output_item.done" and event.item.type == "function_call":
            found.append((event.item.call_id, event.item.name, event.item.arguments))
    return found


merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = asyncio.run(function_calls(body()))
print("index 0 for both:", at_one_index)
assert at_one_index == merged, at_one_index
