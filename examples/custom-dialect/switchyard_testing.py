"""Switchyard under streamharness: the codec that writes a canonical turn in Switchyard's wire
format (and reads a recorded body back), and the driver adapter around our ``TurnReader``.

``conftest.py`` registers the codec; ``pyproject.toml`` names ``make_adapter``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from harness import (
    ArgumentsDelta,
    BlockStart,
    BlockStop,
    CycleDelta,
    CycleStart,
    CycleStop,
    DriverOutput,
    ErrorReport,
    Ping,
    StreamError,
    TextDelta,
    TextOut,
    ThinkingDelta,
    ToolCallOut,
    TurnEnd,
    TurnEvent,
    WireChunk,
    WireError,
)

from switchyard import Failed, Finished, Text, ToolCall, TurnReader

QUIRKS = {
    "heartbeats": 'a {"op": "hb"} line after every third event while an upstream model is slow',
    "batched_lines": "three lines per chunk: under load the gateway flushes its buffer, not each event",
}
#: canonical stop reason -> Switchyard's
REASONS = {
    "end_turn": "done",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "stop_sequence": "stop_sequence",
}
KINDS = {"text": "text", "thinking": "reasoning", "tool_use": "tool"}
#: and back (typed Any: each value is one of the harness's literal names)
CANONICAL_REASONS: dict[str, Any] = {v: k for k, v in REASONS.items()}
CANONICAL_KINDS: dict[str, Any] = {v: k for k, v in KINDS.items()}


class SwitchyardCodec:
    """Switchyard's wire format for the harness: one JSON line per canonical event."""

    name = "switchyard-ndjson"
    quirks = QUIRKS

    def can_express(self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        if any(isinstance(e, BlockStart) and e.block == "server_tool_use" for e in turn):
            return "Switchyard runs server-side tools itself and never streams them"
        return None

    def encode(
        self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        wanted = set(quirks)
        lines: list[WireChunk] = []
        for i, event in enumerate(turn):
            lines.append(WireChunk(json.dumps(_record(event)) + "\n", i))
            if "heartbeats" in wanted and i % 3 == 2:
                lines.append(WireChunk('{"op": "hb"}\n', i, carries=False))
        if "batched_lines" not in wanted:
            return tuple(lines)
        batches = [lines[n : n + 3] for n in range(0, len(lines), 3)]
        # a chunk stands for the last event it holds
        return tuple(
            WireChunk("".join(c.data for c in b), b[-1].origin, any(c.carries for c in b))
            for b in batches
        )

    def decode(self, body: str, *, source: str) -> tuple[TurnEvent, ...]:
        out = []
        for number, text in enumerate(body.splitlines(), start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
                out.append(_event(record, number))
            except (ValueError, KeyError, TypeError) as exc:
                raise WireError(source, number, f"not a Switchyard event: {exc}") from None
        return tuple(out)


def _record(event: TurnEvent) -> dict[str, Any]:
    if isinstance(event, CycleStart):
        return {"op": "start", "message": event.message_id}
    if isinstance(event, BlockStart):
        record: dict[str, Any] = {"op": "open", "part": event.index, "kind": KINDS[event.block]}
        if event.block == "tool_use":
            record.update(call=event.id, tool=event.name)
        return record
    if isinstance(event, TextDelta):
        return {"op": "text", "part": event.index, "text": event.text}
    if isinstance(event, ThinkingDelta):
        return {"op": "reasoning", "part": event.index, "text": event.text}
    if isinstance(event, ArgumentsDelta):
        return {"op": "args", "part": event.index, "json": event.fragment}
    if isinstance(event, BlockStop):
        return {"op": "close", "part": event.index}
    if isinstance(event, CycleDelta):
        return {"op": "stop", "reason": REASONS[event.stop_reason]}
    if isinstance(event, CycleStop):
        return {"op": "end"}
    if isinstance(event, StreamError):
        return {"op": "error", "type": event.error_type, "message": event.message}
    return {"op": "hb"}  # Ping


def _event(record: dict[str, Any], line: int) -> TurnEvent:
    op = record["op"]
    if op == "start":
        return CycleStart(message_id=record["message"], line=line)
    if op == "open":
        block = CANONICAL_KINDS[record["kind"]]
        call, tool = record.get("call", ""), record.get("tool", "")
        return BlockStart(index=record["part"], block=block, id=call, name=tool, line=line)
    if op == "text":
        return TextDelta(index=record["part"], text=record["text"], line=line)
    if op == "reasoning":
        return ThinkingDelta(index=record["part"], text=record["text"], line=line)
    if op == "args":
        return ArgumentsDelta(index=record["part"], fragment=record["json"], line=line)
    if op == "close":
        return BlockStop(index=record["part"], line=line)
    if op == "stop":
        return CycleDelta(stop_reason=CANONICAL_REASONS[record["reason"]], line=line)
    if op == "end":
        return CycleStop(line=line)
    if op == "hb":
        return Ping(line=line)
    if op == "error":
        return StreamError(error_type=record["type"], message=record["message"], line=line)
    raise KeyError(f"unknown op {op!r}")


class SwitchyardDriver:
    """Our ``TurnReader`` as a pull-style driver adapter: it reads the chunks the harness hands
    it and says what the reader emitted, in the harness's terms."""

    layers = ("driver",)
    dialect = SwitchyardCodec.name

    def __init__(self, reader: TurnReader) -> None:
        self.reader = reader

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for event in self.reader.read(chunks):
            if isinstance(event, Text):
                yield TextOut(event.text)
            elif isinstance(event, ToolCall):
                yield ToolCallOut(event.id, event.name, event.arguments, event.complete)
            elif isinstance(event, Finished):
                yield TurnEnd(CANONICAL_REASONS.get(event.reason, event.reason))
            elif isinstance(event, Failed):
                yield ErrorReport(f"{event.type}: {event.message}")


class EndsAtFirstEnd(TurnReader):
    """The bug of our 0.3 release, kept to show the harness catches it: every ``end`` line
    ended the turn, also the one after a ``tool_calls`` stop."""

    def turn_ends(self, reason: str) -> bool:
        return True


def make_adapter() -> SwitchyardDriver:
    # SWITCHYARD_BUG=ends-at-first-end replays the library against the 0.3 reader
    buggy = os.environ.get("SWITCHYARD_BUG") == "ends-at-first-end"
    return SwitchyardDriver(EndsAtFirstEnd() if buggy else TurnReader())
