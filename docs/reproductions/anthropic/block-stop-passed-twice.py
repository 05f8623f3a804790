"""The anthropic SDK's MessageStream, without the harness: a content_block_stop sent twice for one
tool_use block (as a LiteLLM proxy did, BerriAI/litellm#37273) is passed on twice, each time
with the finished block, so a user who runs tools at content_block_stop runs the tool twice.

    python docs/reproductions/anthropic/block-stop-passed-twice.py

prints, with anthropic 2.12.0:

    content_block_stop toolu_1 git_branch {'name': 'fix/login-timeout'}
    content_block_stop toolu_1 git_branch {'name': 'fix/login-timeout'}
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import anthropic


def event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "any",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
BODY = "".join(
    [
        event("message_start", message=MESSAGE),
        event(
            "content_block_start",
            index=0,
            content_block={"type": "tool_use", "id": "toolu_1", "name": "git_branch", "input": {}},
        ),
        event(
            "content_block_delta",
            index=0,
            delta={"type": "input_json_delta", "partial_json": '{"name": "fix/login-timeout"}'},
        ),
        event("content_block_stop", index=0),
        event("content_block_stop", index=0),  # the same block's stop, again
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 5}),
        event("message_stop"),
    ]
).encode()


def offline_client(data: bytes) -> anthropic.Anthropic:
    """A client whose every request is answered with the body (httpx, or httpx2 in recent SDK
    releases: whichever the SDK's own client is built on)."""
    base = next(c for c in anthropic.DefaultHttpxClient.__mro__ if c.__module__.startswith("httpx"))
    httpx = importlib.import_module(base.__module__.partition(".")[0])
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=data
        )
    )
    http = anthropic.DefaultHttpxClient(transport=transport)
    return anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)


if __name__ == "__main__":
    stops = []
    with offline_client(BODY).messages.stream(
        model="any", max_tokens=16, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        for item in stream:
            if item.type == "content_block_stop" and item.content_block.type == "tool_use":
                block = item.content_block
                print("content_block_stop", block.id, block.name, block.input)
                stops.append(block.id)
    assert stops == ["toolu_1", "toolu_1"], "the SDK no longer hands the block over twice"
