"""AG-UI (Agent-User Interaction protocol): JSON events with a ``type``, each in one SSE
``data:`` line, from ``RUN_STARTED`` to ``RUN_FINISHED``.

One canonical turn is one run; each message cycle is one step inside it::

    canonical                       AG-UI wire
    first message_start of a run    RUN_STARTED {threadId, runId}
    message_start                   STEP_STARTED {stepName: message_id}
    block_start text                TEXT_MESSAGE_START {messageId, role: assistant}
    text_delta                      TEXT_MESSAGE_CONTENT {messageId, delta}
    block_stop (text)               TEXT_MESSAGE_END {messageId}
    block_start thinking            THINKING_START, THINKING_TEXT_MESSAGE_START
    thinking_delta                  THINKING_TEXT_MESSAGE_CONTENT {delta}
    block_stop (thinking)           THINKING_TEXT_MESSAGE_END, THINKING_END
    block_start tool_use            TOOL_CALL_START {toolCallId, toolCallName, parentMessageId}
    arguments_delta                 TOOL_CALL_ARGS {toolCallId, delta}
    block_stop (tool_use)           TOOL_CALL_END {toolCallId}
    message_delta                   STEP_FINISHED {stepName}, then the END events of blocks the
                                    step cut short (so the run still closes everything)
    message_stop after tool_use     nothing: the next STEP_STARTED continues the run
    message_stop, any other reason  CUSTOM {name: "stop_reason", value} unless end_turn, then
                                    RUN_FINISHED {threadId, runId}
    error                           RUN_ERROR {message, code}: the run ends there
    ping                            an SSE comment (``: ping``)

A step's stop reason is read from what follows its ``STEP_FINISHED``: another step (or the end of
the stream) means ``tool_use``; ``RUN_FINISHED`` means ``end_turn``, or the reason of the
``CUSTOM`` stop_reason event before it (``max_tokens``, ``stop_sequence``). AG-UI events carry no
block index: a decoder numbers a step's blocks as they start, messages by ``messageId``, tool
calls by ``toolCallId`` (so parallel calls may interleave their ``TOOL_CALL_ARGS``). The first
text block of a cycle has the cycle's message id as its ``messageId``, later ones ``<id>.<n>``.

**Where a call ends.** At its ``TOOL_CALL_END``, or at its step's end. Some servers omit
``TOOL_CALL_END`` (the ``no_tool_call_end`` quirk), so while a run has sent none, a call also ends
at the next text or thinking start, and at the next ``TOOL_CALL_START`` if it has arguments (a
call without any may be one of parallel calls that all start before their arguments interleave).
The decoder and the reference driver (``harness.adapters.driver.ag_ui``) read calls so.
``can_express(turn, quirks)`` refuses the turns this rule would misread: a block that starts,
before the run's first ``TOOL_CALL_END``, while a call it would end is open; and under
``no_tool_call_end``, a call whose next event does not end it (a stream cut right after it, or
an argument-less call followed by the next ``TOOL_CALL_START``).

**Chunks.** One event each, origins in order. Ping comments and the noise of the quirks
(``STATE_*``, ``MESSAGES_SNAPSHOT``, ``TOOL_CALL_RESULT``) carry nothing of the turn
(``carries=False``). Under ``interleaved_args`` the chunks moved ahead of a call's
``TOOL_CALL_END`` keep the origin of the group's first event, so each call is complete exactly at
its own end; without ``TOOL_CALL_END``, at the next chunk that carries the turn.

``decode`` also reads streams without steps (a run's content is then one cycle, stopped by
``RUN_FINISHED``), the newer ``REASONING_*`` events, and skips what carries nothing the turn
has: ``STATE_*``, ``MESSAGES_SNAPSHOT``, ``ACTIVITY_*``, ``RAW``, other ``CUSTOM`` events,
``TOOL_CALL_RESULT``. ``RUN_ERROR`` is the turn's ``StreamError`` and ends it. Unknown event
types are ``WireError``s at their line; so are the ``*_CHUNK`` convenience events, which the AG-UI client expands before use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.codecs.text import ASCII_ESCAPES_QUIRK, LONE_CR_QUIRK, line_ends, sse_data
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.wire import WireError, json_data, parse_sse
from harness.wire.sse import LINE_END

QUIRKS = {
    "crlf": (
        "CRLF line ends, as servers framing with sse-starlette write by default "
        "(hey-api/hey-api#3054, iOfficeAI/aionrs#134)"
    ),
    "lone_cr": LONE_CR_QUIRK,
    "ascii_escapes": ASCII_ESCAPES_QUIRK,
    "messages_snapshot": (
        "a MESSAGES_SNAPSHOT after each step repeating the run's text and tool calls under fresh "
        "message ids: a driver must not emit the calls again (ag-ui-protocol/ag-ui#1920)"
    ),
    "interleaved_args": (
        "parallel calls all start, then their TOOL_CALL_ARGS interleave, then each ends with its "
        "own TOOL_CALL_END"
    ),
    "state_events": "a STATE_SNAPSHOT after RUN_STARTED and STATE_DELTA noise between events",
    "no_tool_call_end": (
        "TOOL_CALL_END omitted: a call ends at the next TOOL_CALL_START, text or thinking start, "
        "or the step's end"
    ),
    "tool_call_results": "a TOOL_CALL_RESULT for each call after a tool_use step (the server ran the tools)",
    "reasoning_events": (
        "thinking as REASONING_START, REASONING_MESSAGE_START/CONTENT/END and REASONING_END, "
        "which replace the deprecated THINKING_* events (pydantic/pydantic-ai#4868, "
        "ag-ui-protocol/ag-ui#2045)"
    ),
    "raw_events": (
        "a RAW event with the framework's own event before each content event, and that event "
        "again as 'rawEvent' on the text and tool call events, as the LangGraph integration "
        "sends (ag-ui-protocol/ag-ui#2600, #2244)"
    ),
    "node_step_names": (
        "every step named after the graph node that ran it ('model'), not the message: "
        "consecutive steps share a name (ag-ui-protocol/ag-ui#2463)"
    ),
}

THREAD_ID = "thread_harness"
#: the CUSTOM event that carries a stop reason other than end_turn and tool_use
STOP_REASON_EVENT = "stop_reason"

#: events a decoder skips: they carry nothing of the canonical turn
NOISE = frozenset(
    {
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "RAW",
        "TOOL_CALL_RESULT",
        "REASONING_ENCRYPTED_VALUE",
    }
)
#: events that end a block; after its step has finished they close what the step cut short
CLOSERS = frozenset(
    {
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "THINKING_TEXT_MESSAGE_END",
        "THINKING_END",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    }
)
THINKING_OPENERS = frozenset(
    {"THINKING_START", "THINKING_TEXT_MESSAGE_START", "REASONING_START", "REASONING_MESSAGE_START"}
)
THINKING_CONTENT = frozenset({"THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"})
THINKING_CLOSERS = frozenset({"THINKING_END", "REASONING_END"})
#: what ends every open tool call (a step's end, or content after the calls while no
#: TOOL_CALL_END has been sent); the next TOOL_CALL_START ends those with arguments
CALL_ENDERS = frozenset(
    {
        "STEP_STARTED",
        "STEP_FINISHED",
        "RUN_FINISHED",
        "TEXT_MESSAGE_START",
        "THINKING_START",
        "THINKING_TEXT_MESSAGE_START",
        "REASONING_START",
        "REASONING_MESSAGE_START",
    }
)
_CHUNK_EVENTS = frozenset({"TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_MESSAGE_CHUNK"})


#: what a server sends besides the turn: chunks that carry nothing of it
_NOT_THE_TURN = frozenset(
    {"STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "TOOL_CALL_RESULT", "RAW"}
)
#: the step name of every step under node_step_names
NODE_STEP = "model"
#: the framework event a content event was translated from, as a RAW event repeats it
_RAW_SOURCES = {
    "TEXT_MESSAGE_CONTENT": "on_chat_model_stream",
    "TOOL_CALL_ARGS": "on_chat_model_stream",
    "THINKING_TEXT_MESSAGE_CONTENT": "on_chat_model_stream",
    "REASONING_MESSAGE_CONTENT": "on_chat_model_stream",
}


def _sse(payload: dict[str, Any], origin: int, quirks: frozenset[str]) -> WireChunk:
    return WireChunk(
        sse_data(payload, quirks), origin, carries=payload["type"] not in _NOT_THE_TURN
    )


@dataclass
class _Block:
    kind: dv.BlockKind
    #: messageId of a text message, toolCallId of a call (empty for thinking)
    wire_id: str
    name: str = ""
    parts: list[str] = field(default_factory=list)
    open: bool = True


class AGUICodec:
    name = "ag-ui"
    quirks = QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        """None, or why the AG-UI wire cannot carry the turn exactly (with these quirks): its
        shape (``_shape_problem``), or a call whose end the wire does not show where it is
        (``_reading_problem``)."""
        quirks = frozenset(quirks)
        return _shape_problem(turn) or _reading_problem(turn, quirks, self.encode)

    # -- encode ----------------------------------------------------------------------------------

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        encoder = _Encoder(frozenset(quirks))
        for index, origin in _wire_order(turn, "interleaved_args" in encoder.quirks):
            encoder.event(turn[index], origin)
        return tuple(encoder.out)

    # -- decode ----------------------------------------------------------------------------------

    def decode(self, body: str, *, source: str) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded AG-UI stream (see the module's docstring)."""
        return _Decoder(source).run(_items(body, source))


def _shape_problem(turn: Sequence[dv.TurnEvent]) -> str | None:
    """Well-formed cycles (the last one may be cut short), blocks numbered as they start."""
    in_cycle = False
    stopping: str | None = None  # the stop reason given, until message_stop
    kinds: dict[int, dv.BlockKind] = {}  # the cycle's open blocks
    run_ids: set[str] = set()  # the ids of the run's tool calls
    started = 0
    for n, event in enumerate(turn):
        where = f"event {n} ({event.kind})"
        if isinstance(event, dv.Ping):
            if stopping == "tool_use":
                return (
                    f"{where}: a ping between a tool_use stop reason and message_stop has no "
                    "place on the AG-UI wire (both are the step's STEP_FINISHED)"
                )
        elif isinstance(event, dv.CycleStart):
            if in_cycle or stopping is not None:
                return f"{where}: a message starts before the previous one stopped"
            in_cycle, kinds, started = True, {}, 0
        elif isinstance(event, dv.CycleStop):
            if stopping is None:
                return f"{where}: a message stops without a stop reason (message_delta)"
            if stopping != "tool_use":
                run_ids = set()  # the run is over; the next message starts another
            stopping = None
        elif isinstance(event, dv.StreamError):
            return None  # the run's error ends the stream, whatever was open
        elif not in_cycle:
            return f"{where}: outside a message cycle, or after the message's stop reason"
        elif isinstance(event, dv.CycleDelta):
            in_cycle, stopping = False, event.stop_reason
        elif isinstance(event, dv.BlockStart):
            if event.index != started:
                return (
                    f"{where}: block {event.index} is the cycle's block number {started}; AG-UI "
                    "events carry no index, so blocks count up from 0 as they start"
                )
            started += 1
            if event.block == "thinking" and "thinking" in kinds.values():
                return (
                    f"{where}: two thinking blocks open at once (AG-UI thinking events have no id)"
                )
            if event.block == "tool_use":
                if event.id in run_ids:
                    return (
                        f"{where}: a second tool call with the id {event.id!r} in one run; "
                        "AG-UI tells a run's calls apart by toolCallId"
                    )
                run_ids.add(event.id)
            kinds[event.index] = event.block
        elif isinstance(event, (dv.TextDelta, dv.ThinkingDelta, dv.ArgumentsDelta)):
            wanted = dv.delta_block(event)
            if kinds.get(event.index) != wanted:
                return f"{where}: block {event.index} is not an open {wanted} block"
            if not isinstance(event, dv.ArgumentsDelta) and not event.text:
                return f"{where}: AG-UI content deltas are never empty"
        elif isinstance(event, dv.BlockStop) and kinds.pop(event.index, None) is None:
            return f"{where}: block {event.index} is not open"
    if stopping is not None:
        return "the last message has a stop reason but never stops (no message_stop)"
    return None


def _reading_problem(
    turn: Sequence[dv.TurnEvent],
    quirks: frozenset[str],
    encode: Callable[[Sequence[dv.TurnEvent], frozenset[str]], tuple[WireChunk, ...]],
) -> str | None:
    """A tool call whose end a client cannot read where the turn has it.

    The reading rule (``harness.adapters.driver.ag_ui``): a call ends at its TOOL_CALL_END or its
    step's end; while the run has sent no TOOL_CALL_END (a server may omit them), also at a text
    or thinking start, and at the next TOOL_CALL_START if it has arguments. So before the run's
    first TOOL_CALL_END no block may start while a call it would end is still open; and without
    TOOL_CALL_END, the event after each call must be one that ends it.
    """
    no_ends = "no_tool_call_end" in quirks
    ends_sent = False  # a TOOL_CALL_END has been on the wire in this run
    open_calls: dict[int, tuple[str, bool]] = {}  # index -> (id, has arguments)
    stops: list[tuple[int, str, bool]] = []  # each call's block_stop: (event, id, has arguments)
    reason = "end_turn"
    for n, event in enumerate(turn):
        if isinstance(event, dv.CycleStart):
            open_calls = {}
        elif isinstance(event, dv.BlockStart):
            ended = [
                call_id
                for call_id, has_arguments in open_calls.values()
                if has_arguments or event.block != "tool_use"
            ]
            if ended and not ends_sent:
                return (
                    f"event {n}: block {event.index} starts while the tool call {ended[0]!r} is "
                    "open, before the run has sent any TOOL_CALL_END: on the AG-UI wire that "
                    "reads as the call's end (a server may omit TOOL_CALL_END)"
                )
            if event.block == "tool_use":
                open_calls[event.index] = (event.id, False)
        elif isinstance(event, dv.ArgumentsDelta) and event.index in open_calls:
            open_calls[event.index] = (open_calls[event.index][0], True)
        elif isinstance(event, dv.BlockStop) and event.index in open_calls:
            call_id, has_arguments = open_calls.pop(event.index)
            stops.append((n, call_id, has_arguments))
            ends_sent = ends_sent or not no_ends
        elif isinstance(event, dv.CycleDelta):
            reason = event.stop_reason
            ends_sent = ends_sent or (bool(open_calls) and not no_ends)  # the step's close-outs
            open_calls = {}
        elif isinstance(event, dv.CycleStop) and reason != "tool_use":
            ends_sent = False  # the run is over
    if not no_ends:
        return None
    chunks = [c for c in encode(turn, quirks) if c.carries]  # origins in order
    at = 0
    for n, call_id, has_arguments in stops:
        while at < len(chunks) and chunks[at].origin < n:
            at += 1
        after = chunks[at] if at < len(chunks) else None
        if after is None:
            return (
                f"event {n}: without TOOL_CALL_END nothing says the tool call {call_id!r} "
                "ended: the stream is cut after it"
            )
        kind = str(json.loads(after.data.removeprefix("data: "))["type"])
        if kind == "TOOL_CALL_START" and not has_arguments:
            return (
                f"event {n}: without TOOL_CALL_END the tool call {call_id!r}, which has no "
                "arguments, is followed by TOOL_CALL_START, which does not end it: parallel "
                "calls may all start before their arguments"
            )
        if kind not in CALL_ENDERS and kind != "TOOL_CALL_START":
            return (
                f"event {n}: without TOOL_CALL_END the tool call {call_id!r} is followed by "
                f"{kind}, which does not end it"
            )
    return None


# -- encoding ------------------------------------------------------------------------------------


def _wire_order(turn: Sequence[dv.TurnEvent], interleave: bool) -> list[tuple[int, int]]:
    """(event index, chunk origin) in the order the wire sends the events.

    With ``interleave``, each run of two or more consecutive complete tool calls (with distinct
    ids: the wire tells calls apart by id) is sent as all their starts, then their argument
    fragments round-robin, then their ends in order. The moved events keep the origin of the
    run's first event, so origins stay in order and each call is complete exactly at its own
    TOOL_CALL_END.
    """
    order: list[tuple[int, int]] = []
    n = 0
    while n < len(turn):
        calls: list[tuple[int, list[int], int]] = []  # (start, fragments, stop)
        ids: set[str] = set()
        at = n
        while interleave and (call := _complete_call(turn, at)) is not None:
            call_id = getattr(turn[call[0]], "id", "")
            if call_id in ids:
                break
            ids.add(call_id)
            calls.append(call)
            at = call[2] + 1
        if len(calls) < 2:
            order.append((n, n))
            n += 1
            continue
        first = calls[0][0]
        order += [(start, first) for start, _, _ in calls]
        for k in range(max(len(fragments) for _, fragments, _ in calls)):
            order += [(fragments[k], first) for _, fragments, _ in calls if k < len(fragments)]
        order += [(stop, stop) for _, _, stop in calls]
        n = at
    return order


def _complete_call(turn: Sequence[dv.TurnEvent], at: int) -> tuple[int, list[int], int] | None:
    """A tool call streamed whole from ``at``: its start, its fragments and its stop."""
    start = turn[at] if at < len(turn) else None
    if not (isinstance(start, dv.BlockStart) and start.block == "tool_use"):
        return None
    fragments: list[int] = []
    for n in range(at + 1, len(turn)):
        event = turn[n]
        if isinstance(event, dv.ArgumentsDelta) and event.index == start.index:
            fragments.append(n)
        elif isinstance(event, dv.BlockStop) and event.index == start.index:
            return at, fragments, n
        else:
            return None
    return None


class _Encoder:
    def __init__(self, quirks: frozenset[str]) -> None:
        self.quirks = quirks
        self.out: list[WireChunk] = []
        self.runs = 0
        self.run_open = False
        self.message_id = ""
        self.blocks: dict[int, _Block] = {}
        self.texts = 0
        self.reason = "end_turn"
        self.snapshot: list[dict[str, Any]] = []  # the run's messages so far, as a server has them
        self.changes = 0

    def send(self, payload: dict[str, Any], origin: int) -> None:
        if "raw_events" in self.quirks:
            kind = payload["type"]
            if kind in _RAW_SOURCES:
                raw = {"event": _RAW_SOURCES[kind], "run_id": self.run_id, "data": {}}
                self.out.append(_sse({"type": "RAW", "event": raw}, origin, self.quirks))
            if kind.startswith(("TEXT_MESSAGE_", "TOOL_CALL_")):
                payload = {**payload, "rawEvent": {"event": "on_chat_model_stream"}}
        self.out.append(_sse(payload, origin, self.quirks))

    @property
    def step_name(self) -> str:
        return NODE_STEP if "node_step_names" in self.quirks else self.message_id

    def event(self, event: dv.TurnEvent, origin: int) -> None:
        if isinstance(event, dv.Ping):
            self.out.append(WireChunk(line_ends(": ping\n\n", self.quirks), origin, carries=False))
            return
        before = len(self.out)
        ended = False
        if isinstance(event, dv.CycleStart):
            self.start(event, origin)
        elif isinstance(event, dv.BlockStart):
            self.block_start(event, origin)
        elif isinstance(event, dv.TextDelta):
            block = self.blocks.get(event.index)
            if block is not None:
                block.parts.append(event.text)
            message_id = block.wire_id if block else self.message_id
            self.send(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": event.text},
                origin,
            )
        elif isinstance(event, dv.ThinkingDelta):
            block = self.blocks.get(event.index)
            if block is not None and block.wire_id:  # a reasoning message
                content = {"type": "REASONING_MESSAGE_CONTENT", "messageId": block.wire_id}
                self.send(content | {"delta": event.text}, origin)
            else:
                self.send({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": event.text}, origin)
        elif isinstance(event, dv.ArgumentsDelta):
            block = self.blocks.get(event.index)
            if block is not None:
                block.parts.append(event.fragment)
            call_id = block.wire_id if block else ""
            self.send(
                {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": event.fragment}, origin
            )
        elif isinstance(event, dv.BlockStop):
            block = self.blocks.get(event.index)
            if block is not None and block.open:
                self.close(block, origin)
        elif isinstance(event, dv.CycleDelta):
            self.finish_step(event, origin)
        elif isinstance(event, dv.CycleStop):
            ended = self.stop(origin)
        elif isinstance(event, dv.StreamError):
            error = {"type": "RUN_ERROR", "message": event.message, "code": event.error_type}
            self.send(error, origin)
            self.run_open, ended = False, True
        if "state_events" in self.quirks and len(self.out) > before and not ended:
            self.changes += 1
            if self.changes % 2 == 0:
                patch = [{"op": "replace", "path": "/events", "value": self.changes}]
                self.send({"type": "STATE_DELTA", "delta": patch}, origin)

    def start(self, event: dv.CycleStart, origin: int) -> None:
        if not self.run_open:
            self.runs += 1
            self.run_open = True
            self.snapshot = []
            run = {"type": "RUN_STARTED", "threadId": THREAD_ID, "runId": self.run_id}
            self.send(run, origin)
            if "state_events" in self.quirks:
                self.send({"type": "STATE_SNAPSHOT", "snapshot": {"events": 0}}, origin)
        self.message_id = event.message_id
        self.blocks = {}
        self.texts = 0
        self.reason = "end_turn"
        self.send({"type": "STEP_STARTED", "stepName": self.step_name}, origin)

    @property
    def run_id(self) -> str:
        return f"run_{self.runs}"

    def block_start(self, event: dv.BlockStart, origin: int) -> None:
        if event.block == "tool_use":
            block = _Block("tool_use", event.id, event.name)
            self.send(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": event.id,
                    "toolCallName": event.name,
                    "parentMessageId": self.message_id,
                },
                origin,
            )
        elif event.block == "thinking" and "reasoning_events" in self.quirks:
            block = _Block("thinking", f"{self.message_id}.reasoning{event.index}")
            self.send({"type": "REASONING_START", "messageId": block.wire_id}, origin)
            start = {"type": "REASONING_MESSAGE_START", "messageId": block.wire_id}
            self.send(start | {"role": "reasoning"}, origin)
        elif event.block == "thinking":
            block = _Block("thinking", "")
            self.send({"type": "THINKING_START"}, origin)
            self.send({"type": "THINKING_TEXT_MESSAGE_START"}, origin)
        else:
            wire_id = self.message_id if self.texts == 0 else f"{self.message_id}.{self.texts}"
            self.texts += 1
            block = _Block("text", wire_id)
            self.send(
                {"type": "TEXT_MESSAGE_START", "messageId": wire_id, "role": "assistant"}, origin
            )
        self.blocks[event.index] = block

    def close(self, block: _Block, origin: int) -> None:
        block.open = False
        if block.kind == "text":
            self.send({"type": "TEXT_MESSAGE_END", "messageId": block.wire_id}, origin)
        elif block.kind == "thinking" and block.wire_id:
            self.send({"type": "REASONING_MESSAGE_END", "messageId": block.wire_id}, origin)
            self.send({"type": "REASONING_END", "messageId": block.wire_id}, origin)
        elif block.kind == "thinking":
            self.send({"type": "THINKING_TEXT_MESSAGE_END"}, origin)
            self.send({"type": "THINKING_END"}, origin)
        elif "no_tool_call_end" not in self.quirks:
            self.send({"type": "TOOL_CALL_END", "toolCallId": block.wire_id}, origin)

    def finish_step(self, event: dv.CycleDelta, origin: int) -> None:
        self.reason = event.stop_reason
        self.send({"type": "STEP_FINISHED", "stepName": self.step_name}, origin)
        for index in sorted(self.blocks):  # what the stop cut short still ends, after the step
            if self.blocks[index].open:
                self.close(self.blocks[index], origin)
        if "messages_snapshot" in self.quirks:
            self.snapshot.append(self.assistant_message())
            self.send({"type": "MESSAGES_SNAPSHOT", "messages": list(self.snapshot)}, origin)

    def assistant_message(self) -> dict[str, Any]:
        """The step's message as a server stores it: a fresh id (ag-ui-protocol/ag-ui#1920), the
        text, the calls."""
        blocks = [self.blocks[i] for i in sorted(self.blocks)]
        message: dict[str, Any] = {
            "id": f"snapshot-{self.runs}-{len(self.snapshot)}",
            "role": "assistant",
        }
        text = "".join("".join(b.parts) for b in blocks if b.kind == "text")
        if text:
            message["content"] = text
        calls = [
            {
                "id": b.wire_id,
                "type": "function",
                "function": {"name": b.name, "arguments": "".join(b.parts)},
            }
            for b in blocks
            if b.kind == "tool_use"
        ]
        if calls:
            message["toolCalls"] = calls
        return message

    def stop(self, origin: int) -> bool:
        """The message stops; True when that finishes the run."""
        if self.reason == "tool_use":
            if "tool_call_results" in self.quirks:
                for block in self.blocks.values():
                    if block.kind == "tool_use":
                        self.send(
                            {
                                "type": "TOOL_CALL_RESULT",
                                "messageId": f"{block.wire_id}.result",
                                "toolCallId": block.wire_id,
                                "content": "ok",
                                "role": "tool",
                            },
                            origin,
                        )
            return False
        if self.reason != "end_turn":
            self.send({"type": "CUSTOM", "name": STOP_REASON_EVENT, "value": self.reason}, origin)
        self.send({"type": "RUN_FINISHED", "threadId": THREAD_ID, "runId": self.run_id}, origin)
        self.run_open = False
        return True


# -- decoding ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    line: int
    #: the event's JSON object, or None for a comment (a ping)
    data: dict[str, Any] | None

    @property
    def type(self) -> str:
        return str(self.data.get("type")) if self.data is not None else ""


def _items(body: str, source: str) -> list[_Item]:
    """The stream's events and its comment-only blocks (pings), in order."""
    items = [_Item(line, None) for line in _comment_blocks(body)]
    for event in parse_sse(body, source=source):
        data = json_data(event)
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise WireError(
                source,
                event.line,
                f"expected an AG-UI event (a JSON object with a 'type'), got {data!r}",
            )
        items.append(_Item(event.line, data))
    items.sort(key=lambda item: item.line)
    return items


def _comment_blocks(body: str) -> list[int]:
    """The first line of each SSE block that holds only comments (``parse_sse`` drops them)."""
    if body.startswith("\ufeff"):
        body = body[1:]
    found: list[int] = []
    start: int | None = None
    comments_only = True
    for number, line in enumerate(LINE_END.split(body), start=1):
        if not line:
            if start is not None and comments_only:
                found.append(start)
            start, comments_only = None, True
            continue
        if start is None:
            start = number
        if not line.startswith(":"):
            comments_only = False
    if start is not None and comments_only:
        found.append(start)
    return found


class _Decoder:
    def __init__(self, source: str) -> None:
        self.source = source
        self.out: list[dv.TurnEvent] = []
        self.in_cycle = False
        self.step: str | None = None  # the step that opened the cycle (None: a run without steps)
        self.blocks: dict[tuple[str, str], int] = {}  # open ("text", messageId) / ("tool", id)
        self.thinking: int | None = None
        self.next_index = 0
        self.awaiting_stop = False  # the step finished with a final reason; message_stop follows
        self.reason: str | None = None  # a CUSTOM stop reason inside a run without steps
        self.ends_sent = False  # the run has sent a TOOL_CALL_END: calls end only there
        self.with_arguments: set[int] = set()  # open tool calls that have arguments
        self.ended_early: set[str] = set()  # calls the reading rule ended without TOOL_CALL_END

    def field(self, item: _Item, key: str, default: str | None = None) -> str:
        assert item.data is not None
        value = item.data.get(key, default)
        if not isinstance(value, str):
            raise WireError(
                self.source, item.line, f"{item.type} should have a string {key!r}, got {value!r}"
            )
        return value

    def optional(self, item: _Item, key: str) -> str:
        """A field that may be missing or null."""
        assert item.data is not None
        return "" if item.data.get(key) is None else self.field(item, key)

    def run(self, items: list[_Item]) -> tuple[dv.TurnEvent, ...]:
        self.failed = False
        for n, item in enumerate(items):
            self.item(item, items[n + 1 :])
            if self.failed:
                break  # nothing of the turn follows the run's error
        return tuple(self.out)

    def item(self, item: _Item, rest: list[_Item]) -> None:
        kind, line = item.type, item.line
        if item.data is None:
            self.out.append(dv.Ping(line=line))
        elif kind == "STEP_STARTED":
            if not self.in_cycle:  # a step inside the cycle's step is part of it
                name = self.field(item, "stepName", "")
                self.open_cycle(name, line)
                self.step = name
        elif kind == "STEP_FINISHED":
            if (
                self.in_cycle
                and self.step is not None
                and self.field(item, "stepName", "") == self.step
            ):
                reason = _final_reason(rest)
                self.out.append(dv.CycleDelta(stop_reason=reason, line=line))
                if reason == "tool_use":
                    self.out.append(dv.CycleStop(line=line))
                else:
                    self.awaiting_stop = True
                self.close_cycle()
        elif kind == "TEXT_MESSAGE_START":
            message_id = self.field(item, "messageId")
            self.ensure_cycle(message_id, line)
            self.end_calls(line)
            self.blocks[("text", message_id)] = self.new_block("text", line)
        elif kind == "TEXT_MESSAGE_CONTENT":
            index = self.open_block(item, "text", "messageId")
            self.out.append(dv.TextDelta(index=index, text=self.field(item, "delta"), line=line))
        elif kind == "TEXT_MESSAGE_END":
            self.stop_block(("text", self.field(item, "messageId", "")), line)
        elif kind == "TOOL_CALL_START":
            call_id = self.field(item, "toolCallId")
            self.ensure_cycle(self.optional(item, "parentMessageId"), line)
            if ("tool", call_id) not in self.blocks:  # a repeated start changes nothing
                self.end_calls(line, only_with_arguments=True)
                self.blocks[("tool", call_id)] = self.new_block(
                    "tool_use", line, id=call_id, name=self.field(item, "toolCallName")
                )
        elif kind == "TOOL_CALL_ARGS":
            index = self.open_block(item, "tool", "toolCallId")
            self.with_arguments.add(index)
            self.out.append(
                dv.ArgumentsDelta(index=index, fragment=self.field(item, "delta"), line=line)
            )
        elif kind == "TOOL_CALL_END":
            self.ends_sent = True
            self.stop_block(("tool", self.field(item, "toolCallId", "")), line)
        elif kind in THINKING_OPENERS:
            if self.thinking is None:
                self.ensure_cycle(self.optional(item, "messageId"), line)
                self.end_calls(line)
                self.thinking = self.new_block("thinking", line)
        elif kind in THINKING_CONTENT:
            if self.thinking is None:
                self.ensure_cycle(self.optional(item, "messageId"), line)
                self.end_calls(line)
                self.thinking = self.new_block("thinking", line)
            delta = self.field(item, "delta")
            self.out.append(dv.ThinkingDelta(index=self.thinking, text=delta, line=line))
        elif kind in THINKING_CLOSERS:
            if self.thinking is not None:
                self.out.append(dv.BlockStop(index=self.thinking, line=line))
                self.thinking = None
        elif kind in CLOSERS:
            pass  # the end of a thinking message inside its thinking block
        elif kind == "CUSTOM" and item.data.get("name") == STOP_REASON_EVENT:
            reason = dv.stop_reason(str(item.data.get("value")))
            if self.awaiting_stop:
                self.out.append(dv.CycleStop(line=line))
                self.awaiting_stop = False
            elif self.in_cycle:
                self.reason = reason
        elif kind == "RUN_FINISHED":
            self.ends_sent = False
            if self.awaiting_stop:
                self.out.append(dv.CycleStop(line=line))
                self.awaiting_stop = False
            elif self.in_cycle:  # a run without steps: its content was one cycle
                reason = dv.stop_reason(self.reason or "end_turn")
                self.out.append(dv.CycleDelta(stop_reason=reason, line=line))
                self.out.append(dv.CycleStop(line=line))
                self.close_cycle()
            self.reason = None
        elif kind == "RUN_STARTED":
            self.ends_sent = False
        elif kind == "RUN_ERROR":
            self.ensure_cycle("", line)
            code, message = item.data.get("code"), item.data.get("message")
            self.out.append(
                dv.StreamError(error_type=str(code or ""), message=str(message or ""), line=line)
            )
            self.failed = True  # the run ends with its error
        elif kind in _CHUNK_EVENTS:
            raise WireError(
                self.source,
                line,
                f"{kind} is a convenience event that the AG-UI client expands into "
                "START/CONTENT/END events; record the expanded stream",
            )
        elif kind not in NOISE and kind != "CUSTOM":
            raise WireError(self.source, line, f"unknown AG-UI event type {kind!r}")

    def open_cycle(self, message_id: str, line: int) -> None:
        self.out.append(dv.CycleStart(message_id=message_id, line=line))
        self.in_cycle = True
        self.step = None
        self.blocks = {}
        self.with_arguments = set()
        self.thinking = None
        self.next_index = 0

    def ensure_cycle(self, message_id: str, line: int) -> None:
        if not self.in_cycle:
            self.open_cycle(message_id, line)

    def close_cycle(self) -> None:
        self.in_cycle = False
        self.step = None
        self.blocks = {}
        self.with_arguments = set()
        self.thinking = None

    def new_block(self, kind: dv.BlockKind, line: int, **extra: str) -> int:
        index = self.next_index
        self.next_index += 1
        self.out.append(dv.BlockStart(index=index, block=kind, line=line, **extra))
        return index

    def open_block(self, item: _Item, kind: str, key: str) -> int:
        wire_id = self.field(item, key)
        index = self.blocks.get((kind, wire_id))
        if index is None:
            what = "text message" if kind == "text" else "tool call"
            why = (
                ": the run has sent no TOOL_CALL_END, so the content that followed the call ended it"
                if kind == "tool" and wire_id in self.ended_early
                else ""
            )
            raise WireError(
                self.source,
                item.line,
                f"{item.type} for the {what} {wire_id!r}, which is not open{why}",
            )
        return index

    def end_calls(self, line: int, *, only_with_arguments: bool = False) -> None:
        """The reading rule for servers that omit TOOL_CALL_END: until the run sends one, the
        next content ends the open calls (the next call only those with arguments)."""
        if self.ends_sent:
            return
        for key, index in list(self.blocks.items()):
            if key[0] == "tool" and (index in self.with_arguments or not only_with_arguments):
                self.stop_block(key, line)
                self.ended_early.add(key[1])

    def stop_block(self, key: tuple[str, str], line: int) -> None:
        index = self.blocks.pop(key, None)
        if index is not None:  # an end after the step finished closes what was cut short
            self.with_arguments.discard(index)
            self.out.append(dv.BlockStop(index=index, line=line))


def _final_reason(rest: list[_Item]) -> dv.StopReason:
    """A finished step's stop reason, from what follows it: another step or the end of the
    stream continues the run (tool_use); RUN_FINISHED ends it, for the reason a CUSTOM
    stop_reason event gives, else end_turn."""
    for item in rest:
        if item.data is None or item.type in NOISE or item.type in CLOSERS:
            continue
        if item.type == "CUSTOM":
            if item.data.get("name") == STOP_REASON_EVENT:
                return dv.stop_reason(str(item.data.get("value")))
            continue
        if item.type in ("RUN_FINISHED", "RUN_ERROR"):
            return "end_turn"
        return "tool_use"
    return "tool_use"
