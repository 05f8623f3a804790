"""The openai SDK's chat.completions.stream, without the harness: call deltas without an index
(as Gemini's OpenAI-compatible endpoint and Ollama send them) crash the stream with TypeError,
since the accumulator uses the index as a list position (openai/openai-python#2806).

    python docs/reproductions/openai-chat/crash-without-index.py

prints, with openai 3.54.0:

    no index: the stream raised TypeError: list indices must be integers or slices, not NoneType
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


def raised(chunks: list[str]) -> tuple[type[Exception], str] | None:
    """What reading the stream to its end raises (None: nothing)."""
    client = offline_client(("".join(chunks) + "data: [DONE]\n\n").encode())
    try:
        with client.chat.completions.stream(
            model="any", messages=[{"role": "user", "content": "go"}]
        ) as stream:
            stream.until_done()
    except Exception as exc:
        return type(exc), str(exc)
    return None


ROLE = chunk({"role": "assistant", "content": None})
CHUNKS = [
    ROLE,
    chunk(
        {
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": '},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"function": {"arguments": '"Paris"}'}}]}),
    chunk({}, finish="tool_calls"),
]

if __name__ == "__main__":
    error = raised(CHUNKS)
    print("no index: the stream raised", error and f"{error[0].__name__}: {error[1]}")
    assert error and error[0] is TypeError, "the SDK now takes a call delta without an index"
