"""The OpenAI Agents SDK's Chat Completions model on two parallel calls streamed at one index
(as Groq and index-rewriting gateways send them), and on two sent with no index (as Gemini's
OpenAI-compatible endpoint and Ollama send them), without the harness: the stream handler keys
calls by index alone, so each time it hands over one function call, with the last call's id and
name and both calls' arguments back to back.

    python docs/reproductions/openai-agents/calls-at-one-index-merged.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    index 0 for both: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    no index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
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


def call(call_id, arguments, index):
    delta = {"id": call_id, "type": "function"}
    delta["function"] = {"name": "write_file", "arguments": arguments}
    if index is not None:
        delta["index"] = index
    return {"tool_calls": [delta]}


def body(index):
    """Two whole calls, each with its own id, both at ``index`` (None: no index field)."""
    return "".join(
        [
            chunk({"role": "assistant", "content": None}),
            chunk(call("call_1", '{"path": "a.rs"}', index)),
            chunk(call("call_2", '{"path": "b.rs"}', index)),
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
    model = OpenAIChatCompletionsModel("gpt-4o", client)
    stream = model.stream_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)
    found = []
    async for event in stream:
        if event.type == "response.output_item.done" and event.item.type == "function_call":
            found.append((event.item.call_id, event.item.name, event.item.arguments))
    return found


merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = asyncio.run(function_calls(body(0)))
print("index 0 for both:", at_one_index)
without_index = asyncio.run(function_calls(body(None)))
print("no index:", without_index)
assert at_one_index == merged, at_one_index
assert without_index == merged, without_index
