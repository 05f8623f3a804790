"""OpenAI Chat Completions bodies, as every OpenAI-compatible server streams them: one
chat.completion.chunk per data: line, then data: [DONE]. The standard library only, so that the
scripts of every library on that wire build their bodies alike (a folder's ``_wire.py`` puts
docs/reproductions on sys.path and passes these on)."""

from __future__ import annotations

import json
from typing import Any

#: the first delta of an answer
ROLE: dict[str, Any] = {"role": "assistant", "content": None}
DONE = "data: [DONE]\n\n"


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    """One chat.completion.chunk, its one choice carrying ``delta``, as a data: line."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [choice],
    }
    return f"data: {json.dumps(data)}\n\n"


def body(*deltas: dict[str, Any], finish: str | None = "tool_calls", done: bool = True) -> str:
    """A chunk per delta, the last with the finish reason, then [DONE]. A finish of its own, after
    the last delta, is an empty delta ``{}`` at the end; ``finish=None, done=False`` is a body cut
    after its last delta."""
    last = len(deltas) - 1
    chunks = [chunk(delta, finish if n == last else None) for n, delta in enumerate(deltas)]
    return "".join(chunks) + (DONE if done else "")


def call(
    index: int | None, call_id: str | None, name: str | None, arguments: str | None = None
) -> dict[str, Any]:
    """A delta with one call delta. An ``index`` of None leaves the field out (as Gemini's
    compatible endpoint and Ollama send it); an id comes with ``"type": "function"``; a name or
    arguments of None are left out of the function."""
    function: dict[str, Any] = {}
    if name:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    delta: dict[str, Any] = {}
    if index is not None:
        delta["index"] = index
    if call_id:
        delta["id"], delta["type"] = call_id, "function"
    delta["function"] = function
    return {"tool_calls": [delta]}
