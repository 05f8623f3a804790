"""The openai SDK's chat.completions.stream, without the harness: a turn cut by max_tokens
(finish_reason 'length') makes get_final_completion() raise LengthFinishReasonError, though the
request asked for no response_format and no strict tools to parse; reading the stream itself
raises nothing (openai/openai-python#3589, an open pull request, would raise only when there is
something to parse).

    python docs/reproductions/openai-chat-final/length-finish-raises.py

prints, with openai 3.54.0:

    the stream: read to its end, 2 text deltas
    get_final_completion(): raised LengthFinishReasonError
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
    chunk({"content": "The migration adds "}),
    chunk({"content": "a column"}),
    chunk({}, finish="length"),
]

if __name__ == "__main__":
    client = offline_client(("".join(CHUNKS) + "data: [DONE]\n\n").encode())
    with client.chat.completions.stream(
        model="any", messages=[{"role": "user", "content": "go"}]
    ) as stream:
        texts = [e for e in stream if e.type == "content.delta" and e.delta]
        print(f"the stream: read to its end, {len(texts)} text deltas")
        try:
            stream.get_final_completion()
            error = None
        except openai.LengthFinishReasonError as exc:
            error = type(exc).__name__
    print("get_final_completion(): raised", error)
    assert error == "LengthFinishReasonError", "get_final_completion() no longer raises"
