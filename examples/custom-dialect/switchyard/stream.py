"""Switchyard streams a model's turn as newline-delimited JSON, one event per line:

    {"op": "start", "message": "msg_1"}                  a message cycle starts
    {"op": "open", "part": 0, "kind": "text"}            a part opens: text, reasoning or tool
    {"op": "open", "part": 1, "kind": "tool", "call": "call_1", "tool": "read_file"}
    {"op": "text", "part": 0, "text": "Let me look."}    text (or "reasoning") streams
    {"op": "args", "part": 1, "json": "{\"path\": "}     a fragment of a tool call's arguments
    {"op": "close", "part": 1}                           the part is complete
    {"op": "stop", "reason": "tool_calls"}               why the cycle stopped
    {"op": "end"}                                        the cycle ends
    {"op": "hb"}                                         keep-alive
    {"op": "error", "type": "api_error", "message": "..."}  the upstream failed: the stream ends

After a ``tool_calls`` stop the same turn goes on with the next cycle; any other stop ends it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # the raw JSON text, as streamed
    complete: bool  # the arguments parse as a JSON object


@dataclass(frozen=True)
class Finished:
    reason: str  # done, tool_calls, length or stop_sequence


@dataclass(frozen=True)
class Failed:
    """The upstream failed mid-turn: the turn has no end, and the parts still open are lost."""

    type: str
    message: str


Event = Text | ToolCall | Finished | Failed


@dataclass
class _Part:
    kind: str
    call: str = ""
    tool: str = ""
    fragments: list[str] = field(default_factory=list)
    closed: bool = False


def _complete(arguments: str) -> bool:
    if arguments == "":
        return True  # a call without arguments
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False


def records(chunks: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Each JSON line of the body, however the network cut it into chunks."""
    pending = ""
    for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            if line.strip():
                yield json.loads(line)
    if pending.strip():
        yield json.loads(pending)


class TurnReader:
    """Reads one turn: text as it streams, each tool call once its part closes, then the end.

    Reading stops at the end of the turn, and the stream is closed however reading ends.
    """

    def read(self, chunks: Iterable[str]) -> Iterator[Event]:
        try:
            yield from self.turn(records(chunks))
        finally:
            close = getattr(chunks, "close", None)
            if callable(close):
                close()

    def turn(self, lines: Iterator[dict[str, Any]]) -> Iterator[Event]:
        parts: dict[int, _Part] = {}
        reason, called = "done", False
        for line in lines:
            op = line.get("op")
            if op == "start":
                parts, called = {}, False
            elif op == "open":
                parts[line["part"]] = _Part(
                    line["kind"], line.get("call", ""), line.get("tool", "")
                )
            elif op == "text" and line["part"] in parts:
                yield Text(line["text"])
            elif op == "args" and line["part"] in parts:
                parts[line["part"]].fragments.append(line["json"])
            elif op == "close":
                call = self.close(parts.get(line["part"]))
                if call is not None:
                    called = True
                    yield call
            elif op == "stop":
                reason = line["reason"]
                for index in sorted(parts):  # cut short (length): the open calls end here
                    call = self.close(parts[index])
                    if call is not None:
                        called = True
                        yield call
            elif op == "end" and self.turn_ends(reason):
                # "done" although the model called tools: the tools still have to run
                yield Finished("tool_calls" if called and reason == "done" else reason)
                return
            elif op == "error":
                yield Failed(str(line.get("type", "")), str(line.get("message", "")))
                return
            # reasoning, hb and events newer than this client: nothing to show

    def turn_ends(self, reason: str) -> bool:
        return reason != "tool_calls"

    def close(self, part: _Part | None) -> ToolCall | None:
        if part is None or part.closed:
            return None
        part.closed = True
        if part.kind != "tool":
            return None
        arguments = "".join(part.fragments)
        return ToolCall(part.call, part.tool, arguments, _complete(arguments))
