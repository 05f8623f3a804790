"""Strands Agents over OpenAI Chat Completions: arguments that lost their closing brace (as
vLLM's hermes parser sends them) reach the tool as {}.

The call's arguments are '{"ticket_id": 42, "fields": ["title", "status"]' and the choice
finishes with tool_calls. The event loop's process_stream cannot parse them and replaces them
with {}, with only a logged warning: an agent runs get_ticket with no arguments and the model is
not told its call was broken (strands-agents/harness-sdk#2051).

Run: python docs/reproductions/strands-openai/unparsable-input-becomes-empty.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'call_tk', 'name': 'get_ticket', 'input': {}}
"""

import asyncio
import json
import logging

import httpx
import openai
from strands.event_loop.streaming import stream_messages
from strands.models.openai import OpenAIModel

logging.disable(logging.WARNING)  # the warning is all Strands says; the result is what counts


def chunk(delta: dict, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


CALL = {"index": 0, "id": "call_tk", "type": "function"}
ARGUMENTS = '{"ticket_id": 42, "fields": ["title", "status"]'
BODY = (
    chunk({"role": "assistant", "content": None})
    + chunk({"tool_calls": [{**CALL, "function": {"name": "get_ticket", "arguments": ARGUMENTS}}]})
    + chunk({}, finish="tool_calls")
    + "data: [DONE]\n\n"
).encode()


async def main() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)

    http = openai.DefaultAsyncHttpxClient(transport=httpx.MockTransport(answer))
    model = OpenAIModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="gpt-4o",
    )
    messages = [{"role": "user", "content": [{"text": "go"}]}]
    async for event in stream_messages(model, None, messages, []):
        if "stop" in event:
            stop_reason, message, _, _ = event["stop"]
    (use,) = [block["toolUse"] for block in message["content"] if "toolUse" in block]
    print("stop reason:", stop_reason)
    print("tool use:", use)
    assert stop_reason == "tool_use"
    assert use["input"] == {}


asyncio.run(main())
