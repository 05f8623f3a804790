"""Strands Agents over OpenAI Chat Completions: two parallel calls sent at one index (as Groq
and index-rewriting gateways send them) become one tool use whose input is {}.

Each call has its own id; both come at index 0. Strands' OpenAIModel groups call deltas by
index, so it emits one tool use with the first call's id and name and both argument objects
back to back, which the event loop's process_stream cannot parse and replaces with {}: an agent
runs write_file once, with no arguments, and the second call is lost.

Run: python docs/reproductions/strands-openai/calls-merged-by-index.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    tool uses: [{'toolUseId': 'call_1', 'name': 'write_file', 'input': {}}]
"""

import asyncio
import json
import logging

import httpx
import openai
from strands.event_loop.streaming import stream_messages
from strands.models.openai import OpenAIModel

logging.disable(logging.WARNING)  # Strands logs the parse failure; the result is what counts


def chunk(delta: dict, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


def call(call_id: str, path: str) -> dict:
    function = {"name": "write_file", "arguments": json.dumps({"path": path})}
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}


BODY = (
    chunk({"role": "assistant", "content": None})
    + chunk(call("call_1", "a.rs"))
    + chunk(call("call_2", "b.rs"))
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
            _, message, _, _ = event["stop"]
    uses = [block["toolUse"] for block in message["content"] if "toolUse" in block]
    print("tool uses:", uses)
    assert uses == [{"toolUseId": "call_1", "name": "write_file", "input": {}}]


asyncio.run(main())
