"""Strands Agents over Anthropic Messages: a body cut in the middle of a tool use's input ends
the model's message as a finished end_turn turn, the cut call dropped.

The body stops after the input fragment '{"path": "notes/todo.md", "content": "- re' (no
content_block_stop, message_delta or message_stop), as a dropped connection leaves it. Strands'
AnthropicModel yields no messageStop, and the event loop's process_stream falls back to
end_turn: the user sees a finished, empty answer and nothing says the stream broke
(strands-agents/harness-sdk#4334).

Run: python docs/reproductions/strands-anthropic/stream-end-taken-as-end-turn.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

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
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": []}
USAGE = {"input_tokens": 1, "output_tokens": 1}
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
BODY = (
    event({"type": "message_start", "message": {**MESSAGE, "usage": USAGE}})
    + event({"type": "content_block_start", "index": 0, "content_block": TOOL_USE})
    + event(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {
                "type": "input_json_delta",
                "partial_json": '{"path": "notes/todo.md", "content": "- re',
            },
        }
    )
).encode()  # and the connection drops


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
    print("stop reason:", stop_reason)
    print("content:", message["content"])
    assert stop_reason == "end_turn"
    assert message["content"] == []


asyncio.run(main())
