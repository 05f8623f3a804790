"""The OpenAI Agents SDK's Chat Completions model with ``buffer_streamed_tool_calls=True`` on a
call whose deltas carry no index (as Gemini's OpenAI-compatible endpoint and Ollama send them),
without the harness: the buffer rebuilds the call as a ``ChoiceDeltaToolCall`` with
``index=None``, which pydantic rejects, so the stream raises a ``ValidationError`` once the body
has ended, and the call, complete in the body, never reaches the user.

    python docs/reproductions/openai-agents-buffered/calls-without-index-crash.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    events before the error: ['response.created']
    raised: ValidationError: 1 validation error for ChoiceDeltaToolCall
"""

import asyncio
import importlib
import json

import pydantic
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


# one whole call with an id and a name, and no index field
call = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [call]}),
        chunk({}, finish="tool_calls"),
        "data: [DONE]\n\n",
    ]
).encode()


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


async def main():
    http = DefaultAsyncHttpxClient(transport=httpx.MockTransport(answer))
    client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
    model = OpenAIChatCompletionsModel("gpt-4o", client, buffer_streamed_tool_calls=True)
    stream = model.stream_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)
    seen = []
    try:
        async for event in stream:
            seen.append(event.type)
    except pydantic.ValidationError as exc:
        print("events before the error:", seen)
        print(f"raised: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        return
    raise AssertionError(f"the stream ended without an error: {seen}")


asyncio.run(main())
