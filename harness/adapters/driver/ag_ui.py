"""The correct pull-style driver for AG-UI event streams (``harness.codecs.ag_ui``).

One turn is one run: the driver reads from ``RUN_STARTED`` across every step (message cycle)
and stops exactly at ``RUN_FINISHED``. Text is emitted as ``TEXT_MESSAGE_CONTENT`` arrives;
tool calls are kept by ``toolCallId`` (parallel calls may interleave their ``TOOL_CALL_ARGS``)
and each is emitted once, when it is complete:

- at its ``TOOL_CALL_END``;
- at the end of its step (``STEP_FINISHED``, ``STEP_STARTED``, ``RUN_FINISHED``): a call the
  step cut short, or one whose server never sends ``TOOL_CALL_END``;
- while the run has sent no ``TOOL_CALL_END`` at all (a server that omits them, as the
  ``no_tool_call_end`` quirk does), also at the next text or thinking start, or at the next
  ``TOOL_CALL_START`` for the open calls that already have arguments. A call without arguments
  yet stays open there: parallel calls may all start before their arguments interleave, so only
  the step's end tells it ended. Once a ``TOOL_CALL_END`` has been seen, only ends are trusted.

``MESSAGES_SNAPSHOT`` repeats what the run streamed, under fresh message ids
(ag-ui-protocol/ag-ui#1920): it is never a source of calls or text. A ``TOOL_CALL_START`` for an
id the run already started is a replay of that call and changes nothing. ``STATE_*``,
``TOOL_CALL_RESULT``, ``RAW``, ``CUSTOM`` (but the ``stop_reason`` one, which names the turn's
stop reason), thinking and unknown events emit nothing. A run that finishes with tool calls in
its last step ends for ``tool_use`` (unless ``max_tokens`` cut it), whatever stop reason it
names: the tools still have to run (vercel/workflow#1387 dropped the calls of a run that
finished for 'stop'). ``RUN_ERROR`` ends the stream: the driver reports the error
(``ErrorReport``), not a turn end, dropping the calls still open (they are not complete); so
does a body that ends inside a step (cut).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from harness.adapters.driver.reference import CUT_SHORT, closing, events, strict_json
from harness.codecs.ag_ui import STOP_REASON_EVENT
from harness.model.driver import (
    DriverOutput,
    ErrorReport,
    TextOut,
    ToolCallOut,
    TurnEnd,
    stop_reason,
)

#: the start of text or thinking: calls streamed before it are complete (if ends are omitted)
CONTENT_STARTS = frozenset(
    {
        "TEXT_MESSAGE_START",
        "THINKING_START",
        "THINKING_TEXT_MESSAGE_START",
        "REASONING_START",
        "REASONING_MESSAGE_START",
    }
)
STEP_ENDS = frozenset({"STEP_STARTED", "STEP_FINISHED"})


@dataclass
class Call:
    id: str
    name: str
    parts: list[str] = field(default_factory=list)


class AGUIDriver:
    """AG-UI events in SSE ``data:`` lines, across the run's steps until ``RUN_FINISHED``."""

    layers = ("driver",)
    dialect = "ag-ui"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.run(chunks))

    def run(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.open: dict[str, Call] = {}  # open calls by toolCallId, in the order they started
        self.started: set[str] = set()
        self.ends_sent = False  # the server has sent a TOOL_CALL_END: it is trusted from now on
        reason = "end_turn"
        called = False  # the current step (or a run without steps) started a tool call
        in_step = False  # a step started and has not finished
        for _name, data in events(chunks):
            if not isinstance(data, dict):
                continue
            kind = data.get("type")
            if kind == "TEXT_MESSAGE_CONTENT":
                delta = data.get("delta")
                if isinstance(delta, str) and delta:
                    yield TextOut(delta)
            elif kind == "TOOL_CALL_START":
                call_id = str(data.get("toolCallId", ""))
                if call_id in self.started:
                    continue  # a replay of a call the run already started
                if not self.ends_sent:
                    yield from self.complete(only_with_arguments=True)
                self.started.add(call_id)
                called = True
                self.open[call_id] = Call(call_id, str(data.get("toolCallName", "")))
            elif kind == "TOOL_CALL_ARGS":
                call = self.open.get(str(data.get("toolCallId", "")))
                delta = data.get("delta")
                if call is not None and isinstance(delta, str):
                    call.parts.append(delta)
            elif kind == "TOOL_CALL_END":
                self.ends_sent = True
                yield from self.emit(self.open.pop(str(data.get("toolCallId", "")), None))
            elif kind in CONTENT_STARTS:
                if not self.ends_sent:
                    yield from self.complete()
            elif kind in STEP_ENDS:
                yield from self.complete()
                in_step = kind == "STEP_STARTED"
                if in_step:
                    called = False
            elif kind == "CUSTOM" and data.get("name") == STOP_REASON_EVENT:
                reason = stop_reason(str(data.get("value")))
            elif kind == "RUN_FINISHED":
                yield from self.complete()
                # a run that ends with tool calls in its last step: the tools still have to run
                yield TurnEnd("tool_use" if called and reason != "max_tokens" else reason)
                return
            elif kind == "RUN_ERROR":
                self.open.clear()
                message = data.get("message")
                yield ErrorReport(f"{data.get('code') or 'RUN_ERROR'}: {message}")
                return
            # MESSAGES_SNAPSHOT, STATE_*, TOOL_CALL_RESULT, thinking content, RAW, other
            # CUSTOM events, RUN_STARTED, anything unknown: nothing to emit
        if in_step:  # the body ended inside a step: it was cut
            yield ErrorReport(CUT_SHORT)

    def complete(self, *, only_with_arguments: bool = False) -> Iterator[DriverOutput]:
        """Emit the open calls (those with arguments, or all), in the order they started."""
        for call in list(self.open.values()):
            if call.parts or not only_with_arguments:
                yield from self.emit(self.open.pop(call.id))

    def emit(self, call: Call | None) -> Iterator[DriverOutput]:
        if call is not None:  # an end for a call not open (repeated, or unknown) changes nothing
            arguments = "".join(call.parts)
            yield ToolCallOut(call.id, call.name, arguments, strict_json(arguments))
