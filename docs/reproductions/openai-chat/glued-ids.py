"""The openai SDK's chat.completions.stream, without the harness: a call id repeated on every
delta, or changed on a later one, is concatenated onto the first, so the call answers to an id
the server never issued.

    python docs/reproductions/openai-chat/glued-ids.py

prints, with openai 3.54.0:

    id repeated: events [('call_k1call_k1', 'kv_get', '{"key": "a"}')], final [('call_k1call_k1', 'kv_get', '{"key": "a"}')]
    id changed: events [('chatcmpl-tool-1toolcall0', 'read', '{"p": 1}')], final [('chatcmpl-tool-1toolcall0', 'read', '{"p": 1}')]
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


def call(call_id: str, name: str | None, arguments: str) -> str:
    function = {"arguments": arguments} | ({"name": name} if name else {})
    delta = {"index": 0, "id": call_id, "type": "function", "function": function}
    return chunk({"tool_calls": [delta]})


CASES = {
    "id repeated": (
        [call("call_k1", "kv_get", '{"key": '), call("call_k1", None, '"a"}')],
        ("call_k1call_k1", "kv_get", '{"key": "a"}'),
    ),
    "id changed": (
        [call("chatcmpl-tool-1", "read", ""), call("toolcall0", None, '{"p": 1}')],
        ("chatcmpl-tool-1toolcall0", "read", '{"p": 1}'),
    ),
}

if __name__ == "__main__":
    for what, (calls, glued) in CASES.items():
        done, final = handed_over([ROLE, *calls, chunk({}, finish="tool_calls")])
        print(f"{what}: events {done}, final {final}")
        assert done == final == [glued], "the SDK no longer glues the ids"
