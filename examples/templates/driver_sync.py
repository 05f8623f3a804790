"""A minimal driver-layer adapter for OpenAI Chat Completions: copy it, and put your stream
reader inside.

    python -m pytest --harness-adapter=driver_sync:make_adapter

``drive`` gets an iterator of chunks, each one whole server-sent event as the body carries it
(``'data: {...}\\n\\n'``, the last ``'data: [DONE]\\n\\n'``), and yields what the driver emits:
text as it streams, each tool call once it is complete, then the end of the turn. The turn ends
with the body, at ``[DONE]`` (or the last chunk, where a server leaves it out), not at the
``finish_reason``: a read cancelled between the two leaves the turn unended. A stream that
fails (an error object mid-stream, or a body cut before its ``finish_reason``) ends in an
``ErrorReport`` instead: the turn did not end, and a call still streaming is not complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness import ErrorReport, TextOut, ToolCallOut, TurnEnd

Output = TextOut | ToolCallOut | TurnEnd | ErrorReport

#: the wire's finish reasons in canonical form
STOP_REASONS = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}


class ChatReader:
    """The stream reader, without I/O: fed one chunk at a time, it says what to emit (so the
    sync and the async driver share it)."""

    def __init__(self) -> None:
        self.calls: dict[Any, dict[str, str]] = {}  # the stream's key of a call -> its parts
        self.open_key: Any = None
        self.finish: str | None = None  # the finish_reason: the stop to report at the end
        self.done = False  # the body ended: read no further

    def read(self, chunk: str) -> list[Output]:
        data = "".join(line[5:].strip() for line in chunk.splitlines() if line.startswith("data:"))
        if data == "[DONE]":
            return self.end(marked=True)
        if not data:
            return []  # a comment or a keep-alive
        payload = json.loads(data)
        if "error" in payload:  # the server's error mid-stream: the stream ends with it
            self.done = True
            return [ErrorReport(str(payload["error"]))]
        out: list[Output] = []
        for choice in payload.get("choices") or []:  # usage chunks have none
            delta = choice.get("delta") or {}
            if delta.get("content"):
                out.append(TextOut(delta["content"]))
            for part in delta.get("tool_calls") or []:
                key = part.get("index", part.get("id") or self.open_key)
                if key != self.open_key and self.open_key in self.calls:
                    out.append(_complete(self.calls.pop(self.open_key)))  # the next call ends it
                self.open_key = key
                call = self.calls.setdefault(key, {"id": "", "name": "", "arguments": ""})
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["name"] = function.get("name") or call["name"]
                call["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                out.extend(self._complete_all())  # the calls are complete; the turn is not over
                self.finish = choice["finish_reason"]
        return out

    def end(self, marked: bool = False) -> list[Output]:
        """The body ended (``[DONE]``, or no more chunks): the turn ends here, once; unless
        the body ended with neither a ``finish_reason`` nor ``[DONE]``: then it was cut."""
        self.done = True
        if self.finish is None and not marked:
            return [ErrorReport("the stream ended before the turn did")]
        stop = STOP_REASONS.get(self.finish or "stop", "end_turn")
        return [*self._complete_all(), TurnEnd(stop)]

    def _complete_all(self) -> list[Output]:
        out: list[Output] = [_complete(call) for call in self.calls.values()]
        self.calls.clear()
        return out


def _complete(call: dict[str, str]) -> ToolCallOut:
    try:
        json.loads(call["arguments"] or "{}")
        valid = True
    except ValueError:
        valid = False  # cut short or corrupt: say so, never guess
    return ToolCallOut(call["id"], call["name"], call["arguments"], valid)


class ChatDriver:
    layers = ("driver",)
    dialect = "openai-chat"

    def drive(self, chunks: Iterator[str]) -> Iterator[Output]:
        reader = ChatReader()
        try:
            for chunk in chunks:  # a cancellation raises out of this read: let it
                yield from reader.read(chunk)
                if reader.done:
                    break
            if not reader.done:
                yield from reader.end()  # the body ended without [DONE]
        finally:
            chunks.close()  # type: ignore[attr-defined]  # however drive ends


def make_adapter() -> ChatDriver:
    return ChatDriver()
