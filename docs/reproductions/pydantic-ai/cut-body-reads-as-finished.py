"""pydantic-ai on a Chat Completions body cut in the middle of a call's arguments (no
finish_reason, no [DONE]), without the harness: the streamed response hands the partial call
over at its PartEndEvent, as finished, and reports finish_reason 'stop'.

    python docs/reproductions/pydantic-ai/cut-body-reads-as-finished.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    PartEndEvent: ToolCallPart(tool_name='write_file', args='{"path": "notes/todo.md", "content": "- re', tool_call_id='call_1')
    finish_reason: stop
"""

import asyncio
import json

import httpx
from openai import AsyncOpenAI
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.messages import PartEndEvent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def chunk(delta):
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return f"data: {json.dumps(data)}\n\n"


def arguments(text):
    return {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}


header = {"index": 0, "id": "call_1", "type": "function"}
body = "".join(
    [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [{**header, "function": {"name": "write_file", "arguments": ""}}]}),
        chunk(arguments('{"path": "notes/todo.md", ')),
        chunk(arguments('"content": "- re')),
    ]
)  # the connection closes here: no finish_reason, no [DONE]


def handler(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


async def main():
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = AsyncOpenAI(api_key="x", max_retries=0, http_client=http)
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    ended = []
    async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
        async for event in stream:
            if isinstance(event, PartEndEvent):
                print("PartEndEvent:", event.part)
                ended.append(event.part)
        response = stream.get()
    print("finish_reason:", response.finish_reason)
    assert [part.args for part in ended] == ['{"path": "notes/todo.md", "content": "- re']
    assert response.finish_reason == "stop", "the cut body no longer reads as finished"


asyncio.run(main())
