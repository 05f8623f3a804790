"""Strands Agents over Anthropic Messages: a tool use's input that lost its closing brace
reaches the tool as {}.

The input fragments add up to '{"ticket_id": 42, "fields": ["title", "status"]' and the message
stops for tool_use. Strands passes the raw fragments on (not the SDK's lenient parse), and the
event loop's process_stream, which cannot parse them, replaces them with {}, with only a logged
warning: an agent runs get_ticket with no arguments and the model is not told its call was
broken (strands-agents/harness-sdk#2051).

Run: python docs/reproductions/strands-anthropic/unparsable-input-becomes-empty.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'toolu_tk', 'name': 'get_ticket', 'input': {}}
"""

import asyncio
import json
import logging

import anthropic
import httpx
from strands.event_loop.streaming import stream_messages
from strands.models.anthropic import AnthropicModel

logging.disable(logging.WARNING)  # the warning is all Strands says; the result is what counts


def event(data: dict) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def fragment(text: str) -> str:
    delta = {"type": "input_json_delta", "partial_json": text}
    return event({"type": "content_block_delta", "index": 0, "delta": delta})


MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": []}
USAGE = {"input_tokens": 1, "output_tokens": 1}
TOOL_USE = {"type": "tool_use", "id": "toolu_tk", "name": "get_ticket", "input": {}}
BODY = (
    event({"type": "message_start", "message": {**MESSAGE, "usage": USAGE}})
    + event({"type": "content_block_start", "index": 0, "content_block": TOOL_USE})
    + fragment('{"ticket_id": 42, ')
    + fragment('"fields": ["title", "status"]')
    + event({"type": "content_block_stop", "index": 0})
    + event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        }
    )
    + event({"type": "message_stop"})
).encode()


async def main() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)

    http = anthropic.DefaultAsyncHttpxClient(transport=httpx.MockTransport(answer))
    model = AnthropicModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="claude-sonnet-4-5",
        max_tokens=1024,
    )
    messages = [{"role": "user", "content": [{"text": "go"}]}]
    async for streamed in stream_messages(model, None, messages, []):
        if "stop" in streamed:
            stop_reason, message, _, _ = streamed["stop"]
    (use,) = [block["toolUse"] for block in message["content"] if "toolUse" in block]
    print("stop reason:", stop_reason)
    print("tool use:", use)
    assert stop_reason == "tool_use"
    assert use["input"] == {}


asyncio.run(main())
