"""Canonical driver-layer traces: one turn of a model's stream, provider-neutral.

A turn is one or more message cycles. Each cycle starts a message, streams content blocks (text,
thinking, tool_use) by index, says why it stopped, and stops; a cycle that stopped for
``tool_use`` is followed by the next cycle of the same turn. Codecs (``harness.codecs``) render a
turn into each provider's wire chunks and read wire chunks back into it; rules compare what a
driver emitted with the turn.

A turn may also end in a server error (``StreamError``): the server reports that it failed
mid-stream, and nothing follows; the turn has no clean end.

What a driver emits (``DriverOutput``): text as it streams, each tool call once it is complete
(with its raw argument text and whether that text parses), and the end of the turn, or the
error that ended the stream (``ErrorReport``; raising is the same outcome).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

#: server_tool_use: a tool the provider ran itself (web search): shown, never run by the client
BlockKind = Literal["text", "thinking", "tool_use", "server_tool_use"]
StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence"]
STOP_REASONS: tuple[str, ...] = ("end_turn", "tool_use", "max_tokens", "stop_sequence")
#: the stop reason of a turn end reported by a driver whose library does not say why the turn
#: ended: the end is checked (once, not too early), the reason is not
UNKNOWN_REASON = "unknown"


def stop_reason(value: str) -> StopReason:
    """A provider's stop reason in canonical form (anything else, e.g. pause_turn, ends the turn)."""
    return value if value in STOP_REASONS else "end_turn"  # type: ignore[return-value]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEvent:
    kind: ClassVar[str] = ""
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CycleStart(TurnEvent):
    """A message cycle starts (``message_start`` on the wire)."""

    kind: ClassVar[str] = "message_start"
    message_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockStart(TurnEvent):
    kind: ClassVar[str] = "block_start"
    index: int
    block: BlockKind
    id: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta(TurnEvent):
    kind: ClassVar[str] = "text_delta"
    index: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingDelta(TurnEvent):
    kind: ClassVar[str] = "thinking_delta"
    index: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentsDelta(TurnEvent):
    """A fragment of a tool call's JSON arguments."""

    kind: ClassVar[str] = "arguments_delta"
    index: int
    fragment: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockStop(TurnEvent):
    kind: ClassVar[str] = "block_stop"
    index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CycleDelta(TurnEvent):
    """Why the cycle stopped (``message_delta``); a ``tool_use`` stop does not end the turn."""

    kind: ClassVar[str] = "message_delta"
    stop_reason: StopReason


@dataclass(frozen=True, slots=True, kw_only=True)
class CycleStop(TurnEvent):
    """The cycle ends (``message_stop``)."""

    kind: ClassVar[str] = "message_stop"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(TurnEvent):
    kind: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamError(TurnEvent):
    """The server reports an error mid-stream (Anthropic's ``error`` event, an OpenAI error
    object, Responses' ``response.failed``, AG-UI's ``RUN_ERROR``): the stream ends there, with no
    stop reason and no stop, and whatever was open is not complete."""

    kind: ClassVar[str] = "error"
    #: the provider's error type, e.g. ``overloaded_error``, ``server_error``
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass(frozen=True, slots=True)
class WireChunk:
    """What a driver reads: the raw text of one server-sent event (or JSON chunk) as the body
    carries it, with the index of the canonical event it came from, so a rule can say which
    event a driver was at."""

    data: str
    #: index of the canonical event up to which the turn is told once this chunk is read: the
    #: event that produced it, except where a codec's wire runs ahead of the turn's order
    origin: int
    #: False for a chunk that carries nothing of the turn (a keep-alive comment)
    carries: bool = True
    #: the canonical event this chunk itself carries, where ``origin`` lags behind it (-1: the
    #: same as ``origin``)
    event: int = -1

    @property
    def carried(self) -> int:
        """The canonical event this chunk carries."""
        return self.origin if self.event < 0 else self.event

    @property
    def delivered(self) -> tuple[WireChunk, ...]:
        """The whole chunks a driver has once it read this one: itself."""
        return (self,)


@dataclass(frozen=True, slots=True)
class ByteRead:
    """What a driver that reads bytes (``reads = "bytes"``) gets from one read: a slice of the
    UTF-8 body, cut anywhere (``harness.wire.chunking``). ``origin``, ``carries`` and ``event``
    mean what they mean for a ``WireChunk``, for the chunks this read completes (``parts``: an
    event is delivered by the read that holds its last byte); a read that completes none
    carries nothing and keeps the origin of the read before it."""

    data: bytes
    origin: int
    carries: bool = False
    event: int = -1
    parts: tuple[WireChunk, ...] = ()

    @property
    def carried(self) -> int:
        return self.origin if self.event < 0 else self.event

    @property
    def delivered(self) -> tuple[WireChunk, ...]:
        """The chunks whose last byte this read holds."""
        return self.parts


#: one read of a driver: a whole chunk, or a slice of the body's bytes
Read = WireChunk | ByteRead


TURN_EVENT_TYPES: dict[str, type[TurnEvent]] = {
    cls.kind: cls
    for cls in (
        CycleStart,
        BlockStart,
        TextDelta,
        ThinkingDelta,
        ArgumentsDelta,
        BlockStop,
        CycleDelta,
        CycleStop,
        Ping,
        StreamError,
    )
}


def delta_block(event: TextDelta | ThinkingDelta | ArgumentsDelta) -> BlockKind:
    """The kind of block a delta streams into."""
    if isinstance(event, TextDelta):
        return "text"
    return "thinking" if isinstance(event, ThinkingDelta) else "tool_use"


def turn_event_to_json(event: TurnEvent) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event.kind}
    for f in fields(event):
        if f.name != "line":
            data[f.name] = getattr(event, f.name)
    return data


# -- what a driver emits ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextOut:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallOut:
    id: str
    name: str
    arguments: str
    #: the driver's verdict: the arguments are complete, valid JSON
    valid: bool


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """The turn ended, for ``stop_reason``: one of ``STOP_REASONS``, or ``UNKNOWN_REASON`` when
    the library the driver uses does not say why (rather than a reason made up)."""

    stop_reason: str = UNKNOWN_REASON


@dataclass(frozen=True, slots=True)
class Refusal:
    """The driver will not go on with this stream: its input is corrupt (e.g. a tool call's
    arguments do not parse), and it says so instead of guessing. Raising a clear error is the
    same outcome. Safe on corrupt input; on legal input it is a crash by another name."""

    reason: str


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """The stream failed: the server reported an error, or the body ended before the turn did
    (a cut connection). The driver passes that on instead of a turn end; raising is the same
    outcome."""

    message: str


DriverOutput = TextOut | ToolCallOut | TurnEnd | Refusal | ErrorReport


@dataclass(frozen=True, slots=True)
class DriverObservation:
    """What a driver emitted in one replay: its outputs, in order, and what it raised (None if
    nothing)."""

    dialect: str
    outputs: tuple[DriverOutput, ...]
    raised: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Plain data in a stable order, for snapshots: runs of text joined, each tool call with
        its arguments as emitted, the turn end or refusal, and the error if the driver raised.
        (Read counts are not kept: they depend on how the stream was cut, not on the driver.)"""
        emitted: list[dict[str, Any]] = []
        for output in self.outputs:
            if isinstance(output, TextOut):
                if emitted and "text" in emitted[-1]:
                    emitted[-1]["text"] += output.text
                else:
                    emitted.append({"text": output.text})
            elif isinstance(output, ToolCallOut):
                call = {"name": output.name, "id": output.id, "arguments": output.arguments}
                emitted.append({"tool_call": call | {"valid": output.valid}})
            elif isinstance(output, TurnEnd):
                emitted.append({"turn_end": output.stop_reason})
            elif isinstance(output, ErrorReport):
                emitted.append({"error": output.message})
            else:
                emitted.append({"refusal": output.reason})
        data: dict[str, Any] = {"dialect": self.dialect, "emitted": emitted}
        if self.raised is not None:
            data["raised"] = self.raised
        return data


class MalformedOutput(ValueError):
    pass


def coerce_output(value: Any, position: int) -> DriverOutput:
    """One emitted item: our classes, or dicts ``{"type": "text" | "tool_call" | "turn_end" |
    "refusal" | "error", ...}``."""
    if isinstance(value, (TextOut, ToolCallOut, TurnEnd, Refusal, ErrorReport)):
        return value
    where = f"output {position}"
    if not isinstance(value, Mapping):
        raise MalformedOutput(
            f"{where} is {type(value).__name__}; expected an object with a 'type'"
        )
    kind = value.get("type")

    def text(key: str) -> str:
        item = value.get(key)
        if not isinstance(item, str):
            raise MalformedOutput(f"{where}.{key} should be a string, got {item!r}")
        return item

    if kind == "text":
        return TextOut(text("text"))
    if kind == "tool_call":
        valid = value.get("valid")
        if not isinstance(valid, bool):
            raise MalformedOutput(f"{where}.valid should be true or false, got {valid!r}")
        return ToolCallOut(text("id"), text("name"), text("arguments"), valid)
    if kind == "turn_end":
        if value.get("stop_reason") is None:  # left out or null: the library does not say
            return TurnEnd(UNKNOWN_REASON)
        return TurnEnd(text("stop_reason"))
    if kind == "refusal":
        return Refusal(text("reason"))
    if kind == "error":
        return ErrorReport(text("message"))
    raise MalformedOutput(
        f"{where}.type is {kind!r}; expected text, tool_call, turn_end, refusal or error"
    )


# -- what the turn says ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectedCall:
    """A tool_use block as the turn streams it."""

    cycle: int
    index: int
    id: str
    name: str
    arguments: str
    #: trace positions: the block's start, and the event after which the call is complete
    start: int
    complete: int
    #: run by the provider itself: it does not make the turn wait for tool results
    server: bool = False
    #: the message stopped for max_tokens (or the stream failed: an error, a cut body) before the
    #: call's block did: the call never finished, and a driver may drop it or pass it on (its
    #: arguments judged as they are)
    cut: bool = False

    @functools.cached_property
    def valid(self) -> bool:
        """Strict: the whole argument text parses as a JSON object (an empty text counts as {}).
        Parsed once: every quirk case of a scenario shares its facts (``turn_facts``), and two
        rules ask in each (50 MB of arguments took a second a case to parse twice)."""
        if self.arguments == "":
            return True
        try:
            return isinstance(json.loads(self.arguments), dict)
        except ValueError:
            return False


@dataclass(frozen=True)
class TurnFacts:
    calls: tuple[ExpectedCall, ...]
    #: the text blocks' whole texts, in order, and where each started
    texts: tuple[tuple[int, str], ...]
    #: trace positions of every message_stop, and which one ends the turn
    stops: tuple[int, ...]
    final_stop: int
    final_reason: str
    #: False when the stream ends while the turn goes on (its last cycle stopped for tool_use)
    ended: bool = True
    #: trace positions of the events that carry content a consumer could pass on: text and
    #: thinking, argument fragments, a call's start; the rest (stops, pings, empty deltas) is
    #: framing, and reading it is never what makes an emission late
    content: frozenset[int] = frozenset()
    #: the final stop reason as the server sent it (``final_reason`` says tool_use when the
    #: final message holds tool calls although the server said otherwise)
    sent_reason: str = "end_turn"
    #: trace position of the error that ended the stream (``StreamError``), if one did: the
    #: turn then has no end, and the calls open at it are ``cut``
    error: int | None = None
    #: the stream ends inside a message, before its stop reason: a body cut short, which a
    #: driver may report as an error (``ErrorReport``) or leave unended
    cut_short: bool = False


def turn_facts(trace: Iterable[TurnEvent]) -> TurnFacts:
    """What the turn says a correct driver emits, derived from its canonical events. A turn
    given as the same tuple as the last time (a scenario's, in each of its quirk cases) gets the
    same facts again, not worked out again: its calls' and texts' whole text is joined from
    every fragment (tens of megabytes in a large turn)."""
    if type(trace) is tuple:
        last = _LAST_FACTS.get("turn")
        if last is not None and last[0] is trace:
            return last[1]
        facts = _turn_facts(trace)
        _LAST_FACTS["turn"] = (trace, facts)
        return facts
    return _turn_facts(trace)


#: the last turn (a tuple) whose facts were asked for, and its facts
_LAST_FACTS: dict[str, tuple[tuple[TurnEvent, ...], TurnFacts]] = {}


def _turn_facts(trace: Iterable[TurnEvent]) -> TurnFacts:
    events = list(trace)
    calls: list[ExpectedCall] = []
    texts: list[tuple[int, str]] = []
    open_calls: dict[int, dict[str, Any]] = {}
    open_text: dict[int, list[Any]] = {}
    stops: list[int] = []
    cycle, reason, final_stop, final_reason = 0, "end_turn", len(events) - 1, "end_turn"
    sent_reason = "end_turn"
    ended = True
    error: int | None = None
    in_message = False  # a message started and has no stop reason yet

    def close_call(index: int, at: int, cut: bool = False) -> None:
        call = open_calls.pop(index)
        calls.append(
            ExpectedCall(
                cycle,
                index,
                call["id"],
                call["name"],
                "".join(call["parts"]),
                call["start"],
                at,
                call["server"],
                cut,
            )
        )

    for i, event in enumerate(events):
        if isinstance(event, CycleStart):
            open_calls.clear()
            open_text.clear()
            in_message = True
        elif isinstance(event, BlockStart):
            if event.block in ("tool_use", "server_tool_use"):
                open_calls[event.index] = {
                    "id": event.id,
                    "name": event.name,
                    "parts": [],
                    "start": i,
                    "server": event.block == "server_tool_use",
                }
            elif event.block == "text":
                open_text[event.index] = [i, []]
        elif isinstance(event, ArgumentsDelta) and event.index in open_calls:
            open_calls[event.index]["parts"].append(event.fragment)
        elif isinstance(event, TextDelta) and event.index in open_text:
            open_text[event.index][1].append(event.text)
        elif isinstance(event, BlockStop):
            if event.index in open_calls:
                close_call(event.index, i)
            if event.index in open_text:
                start, parts = open_text.pop(event.index)
                texts.append((start, "".join(parts)))
        elif isinstance(event, CycleDelta):
            reason = event.stop_reason
            in_message = False
            for index in sorted(open_calls):  # the calls end with the message
                close_call(index, i, cut=event.stop_reason == "max_tokens")
            for index in sorted(open_text):
                start, parts = open_text.pop(index)
                texts.append((start, "".join(parts)))
        elif isinstance(event, CycleStop):
            stops.append(i)
            if reason != "tool_use":
                called = any(call.cycle == cycle and not call.server for call in calls)
                # a final stop with tool calls in its message (vercel/workflow#1387): the
                # tools still have to run, so the turn ends for tool use
                final_stop = i
                sent_reason = reason
                final_reason = "tool_use" if called and reason != "max_tokens" else reason
                break
            cycle += 1
        elif isinstance(event, StreamError):
            # the stream fails here: what was open never finished, and the turn never ends
            for index in sorted(open_calls):
                close_call(index, i, cut=True)
            error = final_stop = i
            ended = False
            final_reason = sent_reason = "error"
            break
    else:  # the stream ends while the turn goes on: a driver reads all of it
        ended = False
        sent_reason = reason
        called = any(call.cycle == cycle and not call.server for call in calls)
        final_reason = "tool_use" if called and reason != "max_tokens" else reason
    for index in sorted(open_text):  # a cut stream: its text still came out
        start, parts = open_text.pop(index)
        texts.append((start, "".join(parts)))
    texts.sort()
    content = frozenset(i for i, event in enumerate(events) if _carries_content(event))
    return TurnFacts(
        tuple(calls),
        tuple(texts),
        tuple(stops),
        final_stop,
        final_reason,
        ended,
        content,
        sent_reason,
        error,
        ended is False and error is None and in_message,
    )


def _carries_content(event: TurnEvent) -> bool:
    if isinstance(event, (TextDelta, ThinkingDelta)):
        return event.text != ""
    if isinstance(event, ArgumentsDelta):
        return event.fragment != ""
    return isinstance(event, BlockStart) and event.block in ("tool_use", "server_tool_use")
