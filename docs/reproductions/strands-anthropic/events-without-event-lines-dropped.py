"""Strands Agents over Anthropic Messages: events sent as data: lines without their event:
lines (as some Anthropic-compatible proxies send them) are all dropped, and the answer ends as
an empty end_turn.

The anthropic SDK under Strands dispatches a stream's events by their event: name, so a body of
data: lines alone passes nothing on, and the event loop's process_stream, which saw no
messageStop, reports an empty message that ended with end_turn: the text "Hello!" is lost and
nothing says so (the TypeScript SDK does the same: openclaw/openclaw#37571).

Run: python docs/reproductions/strands-anthropic/events-without-event-lines-dropped.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

    text: ''
    stop reason: end_turn
    content: []
"""

import asyncio
import json
import logging

import anthropic
import httpx
from strands.event_loop.streaming import stream_messages
from strands.models.anthropic import AnthropicModel

logging.disable(logging.WARNING)  # Strands logs that usage is unavailable; the result counts


def event(data: dict) -> str:
    return f"data: {json.dumps(data)}\n\n"  # no "event: ..." line before it


MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": []}
USAGE = {"input_tokens": 1, "output_tokens": 1}
BODY = (
    event({"type": "message_start", "message": {**MESSAGE, "usage": USAGE}})
    + event(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    )
    + event(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Hello!"},
        }
    )
    + event({"type": "content_block_stop", "index": 0})
    + event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 2},
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
    text = ""
    async for streamed in stream_messages(model, None, messages, []):
        if "data" in streamed:
            text += streamed["data"]
        if "stop" in streamed:
            stop_reason, message, _, _ = streamed["stop"]
    print("text:", repr(text))
    print("stop reason:", stop_reason)
    print("content:", message["content"])
    assert text == ""
    assert stop_reason == "end_turn"
    assert message["content"] == []


asyncio.run(main())
