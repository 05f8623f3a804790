"""The openai SDK's chat.completions.stream, without the harness: a call whose first delta
arrives in the chunk that carries finish_reason never gets its
tool_calls.function.arguments.done event, so a user who acts on those events never sees it,
though get_final_completion() holds it. Shown with each call whole in one chunk, the finish on
the last (OpenRouter relaying Gemini, Dynamo), and with a call without arguments whose only
delta carries the finish (vLLM's finish on the last delta).

    python docs/reproductions/openai-chat/calls-never-handed-over.py

prints, with openai 3.54.0:

    whole calls, the finish on the last: events name ['call_1'], get_final_completion() ['call_1', 'call_2']
    a call without arguments, with the finish: events name [], get_final_completion() ['call_list']
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


def call(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {
        "tool_calls": [{"index": index, "id": call_id, "type": "function", "function": function}]
    }


CASES = {
    "whole calls, the finish on the last": [
        ROLE,
        chunk(call(0, "call_1", "write_file", '{"path": "a.rs"}')),
        chunk(call(1, "call_2", "write_file", '{"path": "b.rs"}'), finish="tool_calls"),
    ],
    "a call without arguments, with the finish": [
        ROLE,
        chunk({"content": "Listing the open incidents."}),
        chunk(call(0, "call_list", "list_incidents", ""), finish="tool_calls"),
    ],
}

if __name__ == "__main__":
    for what, chunks in CASES.items():
        done, final = handed_over(chunks)
        named, held = [c[0] for c in done], [c[0] for c in final]
        print(f"{what}: events name {named}, get_final_completion() {held}")
        assert named == held[:-1], "the SDK now hands the last call over at its done event"
