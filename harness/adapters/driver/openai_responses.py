"""The reference driver for OpenAI Responses streams (``openai-responses``).

Text comes out as it streams (``response.output_text.delta``, and a refusal's
``response.refusal.delta``); a message item that streamed nothing gives its whole text at its
``response.output_item.done``. A function call is an output item: it is known by its
``item_id`` (by ``output_index`` on an event without one), so parallel calls whose argument
deltas interleave stay apart. Each call is emitted once, as soon as it is complete: at its
``response.function_call_arguments.done`` or ``response.output_item.done``, whichever comes
first, or, on a stream without those events, when the response ends. The turn ends at
``response.completed`` (stop_reason ``tool_use`` when the response held function calls,
``end_turn`` otherwise) or ``response.incomplete`` (``max_tokens`` for ``max_output_tokens``, the
calls cut short emitted with their arguments as they are and reported invalid); the driver stops
reading there. A stream that ends before either is cut: nothing more is emitted, not even the
end of the turn. ``response.failed`` and ``error`` raise ``ResponseFailed``.

Reasoning items, tools the server runs (web search, file search, MCP...) and custom tools
(free-form input) are not emitted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.adapters.driver.reference import CUT_SHORT, closing, events, strict_json
from harness.model.driver import DriverOutput, ErrorReport, TextOut, ToolCallOut, TurnEnd

_TERMINAL = ("response.completed", "response.incomplete")


class ResponseFailed(RuntimeError):
    """The server reported that the response failed (``response.failed`` or ``error``)."""


@dataclass
class Call:
    item_id: str
    position: int | None
    call_id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    emitted: bool = False


class OpenAIResponsesDriver:
    """OpenAI Responses SSE: one response, calls keyed by item id, emitted once when done."""

    layers = ("driver",)
    dialect = "openai-responses"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.response(chunks))

    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.calls: dict[str, Call] = {}
        self.positions: dict[int, Call] = {}
        self.texts: set[str] = set()  # message items that streamed text
        self.emitted = 0
        self.finished = False
        for name, data in events(chunks):
            if not isinstance(data, dict):
                continue
            kind = data.get("type") or name
            if not isinstance(kind, str):
                continue
            yield from self.event(kind, data)
            if self.finished:
                return  # the response ended: reading on would wait for another one
        yield ErrorReport(CUT_SHORT)  # the body ended without the response's terminal event

    def event(self, kind: str, data: dict[str, Any]) -> Iterator[DriverOutput]:
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") == "function_call":
                self.added(item, data.get("output_index"))
        elif kind == "response.function_call_arguments.delta":
            yield from self.arguments(self.find(data), str(data.get("delta") or ""))
        elif kind == "response.function_call_arguments.done":
            call = self.find(data)
            if not call.parts and data.get("arguments"):
                call.parts.append(str(data["arguments"]))
            yield from self.complete(call)
        elif kind == "response.output_item.done":
            yield from self.item_done(data.get("item") or {}, data.get("output_index"))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            self.texts.add(str(data.get("item_id")))
            if data.get("delta"):
                yield TextOut(str(data["delta"]))
        elif kind in _TERMINAL:
            yield from self.finish(kind, data.get("response") or {})
        elif kind in ("response.failed", "error"):
            response = data.get("response") or {}
            raise ResponseFailed(str(response.get("error") or data.get("message") or data))
        # response.created, in_progress, content parts, reasoning, server tools: nothing to emit

    def added(self, item: dict[str, Any], position: Any) -> Call:
        call = Call(
            str(item.get("id") or ""),
            position if isinstance(position, int) else None,
            str(item.get("call_id") or ""),
            str(item.get("name") or ""),
        )
        if item.get("arguments"):  # a call added whole
            call.parts.append(str(item["arguments"]))
        self.calls[call.item_id] = call
        if call.position is not None:
            self.positions[call.position] = call
        return call

    def find(self, data: dict[str, Any]) -> Call:
        """The call an event is about: by item id, by output index without one, else a call the
        stream never added (its id and name may come with its output_item.done)."""
        item_id = data.get("item_id")
        if isinstance(item_id, str) and item_id in self.calls:
            return self.calls[item_id]
        position = data.get("output_index")
        if item_id is None and isinstance(position, int) and position in self.positions:
            return self.positions[position]
        return self.added({"id": item_id or ""}, position)

    def arguments(self, call: Call, fragment: str) -> Iterator[DriverOutput]:
        if not call.emitted:
            call.parts.append(fragment)
        yield from ()

    def item_done(self, item: dict[str, Any], position: Any) -> Iterator[DriverOutput]:
        if item.get("type") == "function_call":
            call = self.find({"item_id": item.get("id"), "output_index": position})
            call.call_id = call.call_id or str(item.get("call_id") or "")
            call.name = call.name or str(item.get("name") or "")
            if not call.parts and item.get("arguments"):
                call.parts.append(str(item["arguments"]))
            yield from self.complete(call)
        elif item.get("type") == "message" and str(item.get("id")) not in self.texts:
            text = "".join(
                str(part.get("text") or part.get("refusal") or "")
                for part in item.get("content") or ()
                if isinstance(part, dict)
            )
            if text:  # a message told whole, not streamed
                yield TextOut(text)

    def complete(self, call: Call) -> Iterator[DriverOutput]:
        if call.emitted:
            return  # the second done event of a call changes nothing
        call.emitted = True
        self.emitted += 1
        arguments = "".join(call.parts)
        yield ToolCallOut(call.call_id, call.name, arguments, strict_json(arguments))

    def finish(self, kind: str, response: dict[str, Any]) -> Iterator[DriverOutput]:
        for item in response.get("output") or ():  # calls, or arguments, only it lists
            if not isinstance(item, dict) or item.get("type") != "function_call":
                continue
            call = self.calls.get(str(item.get("id") or ""))
            if call is None:
                self.added(item, None)
            elif not call.parts and not call.emitted and item.get("arguments"):
                call.parts.append(str(item["arguments"]))
        yield from self.flush()
        if kind == "response.incomplete":
            details = response.get("incomplete_details") or {}
            reason = "max_tokens" if details.get("reason") == "max_output_tokens" else "end_turn"
        else:
            reason = "tool_use" if self.emitted else "end_turn"
        self.finished = True
        yield TurnEnd(reason)

    def flush(self) -> Iterator[DriverOutput]:
        """The response ended: every call not yet emitted is complete (or cut) now."""
        for call in list(self.calls.values()):
            yield from self.complete(call)
