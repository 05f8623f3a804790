"""Strands Agents over OpenAI Chat Completions: a body cut in the middle of a call's arguments
ends the model's message as a finished tool_use turn, the call's input {}.

The body stops after '{"path": "notes/todo.md", "content": "- re' (no finish_reason, no [DONE]),
as a dropped connection leaves it. Strands' OpenAIModel ends the message with end_turn, the event
loop's process_stream makes that tool_use because the message holds a tool use, and the
half-sent input, which does not parse, becomes {}: an agent runs write_file with no arguments.

Run: python docs/reproductions/strands-openai/cut-stream-runs-the-cut-call.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'call_1', 'name': 'write_file', 'input': {}}
"""

import asyncio
import json
import logging

import httpx
import openai
from strands.event_loop.streaming import stream_messages
from strands.models.openai import OpenAIModel

logging.disable(logging.WARNING)  # Strands logs the parse failure; the result is what counts


def chunk(delta: dict) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


CALL = {"index": 0, "id": "call_1", "type": "function"}
BODY = (
    chunk({"role": "assistant", "content": None})
    + chunk({"tool_calls": [{**CALL, "function": {"name": "write_file", "arguments": ""}}]})
    + chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "notes/todo.md", '}}]})
    + chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"content": "- re'}}]})
).encode()  # and the connection drops


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
