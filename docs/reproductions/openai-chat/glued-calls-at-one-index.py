"""The openai SDK's chat.completions.stream, without the harness: parallel calls sent at one
index, each with its own id (as Groq and Ollama through LiteLLM send them), are glued into one
call whose id, name and arguments are the two calls' back to back.

    python docs/reproductions/openai-chat/glued-calls-at-one-index.py

prints, with openai 3.54.0:

    events:                 [('call_1call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    get_final_completion(): [('call_1call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import openai


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    """One chat.completion.chunk as a data: line."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "any",
        "choices": [choice],
    }
    return f"data: {json.dumps(data)}\n\n"


def offline_client(data: bytes) -> openai.OpenAI:
    """A client whose every request is answered with the body (httpx, or httpx2 in recent SDK
    releases: whichever the SDK's own client is built on)."""
    base = next(c for c in openai.DefaultHttpxClient.__mro__ if c.__module__.startswith("httpx"))
    httpx = importlib.import_module(base.__module__.partition(".")[0])
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=data
        )
    )
    http = openai.DefaultHttpxClient(transport=transport)
    return openai.OpenAI(api_key="offline", max_retries=0, http_client=http)


def handed_over(chunks: list[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The calls (id, name, arguments) as a user of the stream's events gets them, at each
    tool_calls.function.arguments.done event, and as get_final_completion() holds them."""
    client = offline_client(("".join(chunks) + "data: [DONE]\n\n").encode())
    done = []
    with client.chat.completions.stream(
        model="any", messages=[{"role": "user", "content": "go"}]
    ) as stream:
        for event in stream:
            if event.type == "tool_calls.function.arguments.done":
                message = stream.current_completion_snapshot.choices[0].message
                done.append((message.tool_calls[event.index].id, event.name, event.arguments))
        message = stream.get_final_completion().choices[0].message
    final = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    return done, final


ROLE = chunk({"role": "assistant", "content": None})
CHUNKS = [
    ROLE,
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": '{"path": "a.rs"}'},
                }
            ]
        }
    ),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": '{"path": "b.rs"}'},
                }
            ]
        }
    ),
    chunk({}, finish="tool_calls"),
]

if __name__ == "__main__":
    done, final = handed_over(CHUNKS)
    print("events:                ", done)
    print("get_final_completion():", final)
    glued = [("call_1call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')]
    assert done == final == glued, "the SDK no longer glues calls sent at one index"
