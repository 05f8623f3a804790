"""pydantic-ai on a Chat Completions body cut in the middle of a call's arguments (no
finish_reason, no [DONE]), without the harness: the streamed response hands the partial call
over as finished and reports finish_reason 'stop'.

    python docs/reproductions/pydantic_ai_cut_mid_arguments.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0 (among the events):

    event: PartEndEvent ToolCallPart(tool_name='write_file', args='{"path": "notes/todo.md", "content": "- re', tool_call_id='call_1')
    finish_reason: stop
"""

import asyncio
import json

import httpx
from openai import AsyncOpenAI
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def chunk(delta, finish=None):
    return (
        "data: "
        + json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )
        + "\n\n"
    )


body = "".join(
    [
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "write_file", "arguments": ""},
                    }
                ]
            }
        ),
        chunk(
            {"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "notes/todo.md", '}}]}
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"content": "- re'}}]}),
    ]
)  # the connection closes here: no finish_reason, no [DONE]


def handler(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


async def main():
    client = AsyncOpenAI(
        api_key="x",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
        async for event in stream:
            print("event:", type(event).__name__, getattr(event, "part", None))
        response = stream.get()
        print("finish_reason:", response.finish_reason)
        print("parts:", response.parts)


asyncio.run(main())
