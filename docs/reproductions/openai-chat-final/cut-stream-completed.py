"""The openai SDK's chat.completions.stream, without the harness: a body that ends mid-stream,
with neither a finish_reason nor [DONE], right after a call's header, raises nothing, and
get_final_completion() returns the message as it stood: the call with empty arguments, its
finish_reason None the only sign that the model never finished it.

    python docs/reproductions/openai-chat-final/cut-stream-completed.py

prints, with openai 3.54.0:

    get_final_completion(): [('toolu_01Cut', 'write_file', '')], finish_reason None
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


CHUNKS = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": ""}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "toolu_01Cut",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": ""},
                }
            ]
        }
    ),
    # the connection closes here: no finish_reason, no [DONE]
]

if __name__ == "__main__":
    client = offline_client("".join(CHUNKS).encode())
    with client.chat.completions.stream(
        model="any", messages=[{"role": "user", "content": "go"}]
    ) as stream:
        choice = stream.get_final_completion().choices[0]
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()]
    print(f"get_final_completion(): {calls}, finish_reason {choice.finish_reason}")
    assert calls == [("toolu_01Cut", "write_file", "")], "the cut message is no longer returned"
