"""OpenAI Responses streaming (SSE): typed events ``event: response.<...>`` whose data repeats the
``type`` and carries a ``sequence_number``. One response is one message cycle; it ends with
``response.completed`` or ``response.incomplete`` (no ``[DONE]``).

Each content block is one output item, at ``output_index`` = the canonical block index (the
loader numbers blocks 0, 1, 2... so this is the item's position in ``response.output``):

========================  =====================================================================
canonical                 wire
========================  =====================================================================
message_start             ``response.created``, ``response.in_progress`` (response id =
                          message id)
block_start text          ``response.output_item.added`` (a ``message`` item ``msg_...``),
                          ``response.content_part.added`` (an ``output_text`` part)
text_delta                ``response.output_text.delta``
block_stop text           ``response.output_text.done``, ``response.content_part.done``,
                          ``response.output_item.done``
block_start thinking      ``response.output_item.added`` (a ``reasoning`` item ``rs_...``),
                          ``response.reasoning_summary_part.added``
thinking_delta            ``response.reasoning_summary_text.delta``
block_stop thinking       ``response.reasoning_summary_text.done``,
                          ``response.reasoning_summary_part.done``, ``response.output_item.done``
block_start tool_use      ``response.output_item.added`` (a ``function_call`` item ``fc_...``
                          whose ``call_id`` is the canonical id)
arguments_delta           ``response.function_call_arguments.delta`` (``item_id``,
                          ``output_index``)
block_stop tool_use       ``response.function_call_arguments.done``, ``response.output_item.done``
message_delta             nothing of its own: the Responses API has no stop reason on the wire
message_delta + stop      ``response.completed`` (end_turn, or tool_use when it holds function
                          calls) or ``response.incomplete`` with ``incomplete_details.reason``
                          ``max_output_tokens`` (max_tokens); the final output and usage in it
error                     ``response.failed`` with the error in ``response.error`` (or, quirk
                          ``error_event``, an ``error`` event); the stream ends there
========================  =====================================================================

A chunk's ``origin`` is the canonical event up to which the wire has told the whole turn once the
chunk is read: an event that no chunk carries (a block's end under ``no_done_events``) is told
only by the response's terminal event, and a chunk that runs ahead of the turn's order (an
interleaved call) does not move it. For the plain encoding this is the event that produced the
chunk, as in the other dialects.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.codecs.text import (
    ASCII_ESCAPES_QUIRK,
    CRLF_GATEWAY_QUIRK,
    LONE_CR_QUIRK,
    sse_data,
)
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.wire import WireError, json_data, parse_sse

QUIRKS = {
    "crlf": CRLF_GATEWAY_QUIRK,
    "lone_cr": LONE_CR_QUIRK,
    "ascii_escapes": ASCII_ESCAPES_QUIRK,
    "obfuscation": "an 'obfuscation' padding field on every delta event, as real traffic has",
    "no_done_events": (
        "no *.done events (function_call_arguments.done, output_item.done, output_text.done, "
        "...): a call's end shows only at response.completed, and a driver must not depend on "
        "them; gateway-only: gateways bridging Chat Completions to Responses "
        "(router-for-me/CLIProxyAPI#4860), LlamaStack (ogx-ai/ogx#5309)"
    ),
    "interleaved_calls": (
        "consecutive function_call items stream together: all are added, their argument deltas "
        "alternate by output_index, then each is done (parallel calls told apart by "
        "output_index / item_id)"
    ),
    "keepalive": (
        "{'type': 'keepalive'} events between the others, as OpenAI sends on long requests "
        "(openai/openai-node#1964, openai/openai-java#767)"
    ),
    "arguments_done_only": (
        "no function_call_arguments.delta: a call's arguments arrive whole in its "
        "function_call_arguments.done, as gpt-5.3-codex-spark sends them (BerriAI/litellm#27144)"
    ),
    "no_event_lines": (
        "data: lines without the 'event:' line before them; gateway-only: custom SSE gateways "
        "in front of the Responses API (ranxianglei/billion-context#549)"
    ),
    "error_event": (
        "a failure mid-stream sent as an 'error' event (code, message) instead of "
        "response.failed, as OpenAI sends server_is_overloaded (editor-code-assistant/eca#559)"
    ),
}

MODEL = "gpt-4.1-2025-04-14"
_CREATED_AT = 1732000000

#: events that carry nothing the canonical turn has (their content shows in other events)
_IGNORED = frozenset(
    {
        "response.in_progress",
        "response.queued",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.done",
        "keepalive",
    }
)
#: event families of items that are not canonical blocks: tools the server runs itself, audio,
#: and custom tools (free-form input, not JSON arguments)
_IGNORED_FAMILIES = (
    "response.file_search_call.",
    "response.web_search_call.",
    "response.image_generation_call.",
    "response.code_interpreter_call.",
    "response.code_interpreter_call_code.",
    "response.mcp_call.",
    "response.mcp_call_arguments.",
    "response.mcp_list_tools.",
    "response.custom_tool_call_input.",
    "response.apply_patch_call_operation_diff.",
    "response.audio.",
)
_ITEM_BLOCKS: dict[str, dv.BlockKind] = {
    "message": "text",
    "reasoning": "thinking",
    "function_call": "tool_use",
}
_EVENT_BLOCKS: dict[type[dv.TurnEvent], dv.BlockKind] = {
    dv.TextDelta: "text",
    dv.ThinkingDelta: "thinking",
    dv.ArgumentsDelta: "tool_use",
}
_DELTA_BLOCKS: dict[str, dv.BlockKind] = {
    "response.output_text.delta": "text",
    "response.refusal.delta": "text",
    "response.reasoning_summary_text.delta": "thinking",
    "response.reasoning_text.delta": "thinking",
    "response.function_call_arguments.delta": "tool_use",
}


def ignored(kind: str) -> bool:
    """Whether a Responses event type is known and carries nothing a canonical turn has."""
    return kind in _IGNORED or kind.startswith(_IGNORED_FAMILIES)


def item_text(item: dict[str, Any]) -> str:
    """The whole text of a finished ``message`` (its parts) or ``reasoning`` item (its summary)."""
    parts = item.get("content") if item.get("type") == "message" else item.get("summary")
    return "".join(
        str(part.get("text") or part.get("refusal") or "")
        for part in parts or ()
        if isinstance(part, dict)
    )


@dataclass
class _Item:
    position: int
    block: dv.BlockKind
    item_id: str
    call_id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    stopped: bool = False
    #: the parts joined, and how many parts that was
    _joined: tuple[int, str] = (0, "")

    @property
    def text(self) -> str:
        """The parts so far as one text: joined once for all the events that repeat it (a
        finished text is in three events and the terminal one, each a copy of the turn's
        text), which then also share one object and its hash."""
        if self._joined[0] != len(self.parts):
            self._joined = (len(self.parts), "".join(self.parts))
        return self._joined[1]

    def json(self) -> dict[str, Any]:
        text = self.text
        status = "completed" if self.stopped else "in_progress"
        if self.block == "tool_use":
            return {
                "id": self.item_id,
                "type": "function_call",
                "status": status,
                "arguments": text,
                "call_id": self.call_id,
                "name": self.name,
            }
        if self.block == "thinking":
            summary = [{"type": "summary_text", "text": text}] if self.stopped and text else []
            return {"id": self.item_id, "type": "reasoning", "summary": summary}
        content = [_text_part(text)] if self.stopped else []
        return {
            "id": self.item_id,
            "type": "message",
            "status": status,
            "content": content,
            "role": "assistant",
        }

    def final(self) -> dict[str, Any]:
        """The item as the terminal event lists it (an unfinished item is incomplete)."""
        data = self.json()
        if self.block == "text":
            data["content"] = [_text_part(self.text)]
        elif self.block == "thinking" and self.text:
            data["summary"] = [{"type": "summary_text", "text": self.text}]
        if "status" in data and not self.stopped:
            data["status"] = "incomplete"
        return data


@dataclass
class _Wire:
    kind: str
    payload: dict[str, Any]
    origin: int
    #: output_index of the function_call item it belongs to (what interleaved_calls reorders)
    call: int | None = None
    #: canonical events it tells besides its own (argument deltas folded into a done event)
    tells: tuple[int, ...] = ()
    carries: bool = True


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def reasoning_item_id(response_id: str, position: int) -> str:
    """The id of the reasoning item the codec writes for a thinking block at ``position`` of
    response ``response_id`` (what a client sends back to keep its reasoning)."""
    return _item_id("rs", response_id, position)


def _item_id(prefix: str, response_id: str, position: int, key: str = "") -> str:
    digest = hashlib.sha256(f"{response_id}/{position}/{key}".encode()).hexdigest()[:32]
    return f"{prefix}_{digest}{position:02d}"


def _obfuscation(seed: str) -> str:
    """Deterministic padding like the real field's (a random string that evens out lengths)."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(letters[b % len(letters)] for b in digest[: max(2, 16 - len(seed) % 16)])


class OpenAIResponsesCodec:
    name = "openai-responses"
    quirks = QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        if not turn or not isinstance(turn[0], dv.CycleStart):
            return "a Responses stream starts with response.created; this turn does not start a message"
        cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
        if cycles > 1:
            return f"a Responses stream carries one response (one message cycle); this turn has {cycles}"
        if any(isinstance(e, dv.Ping) for e in turn):
            return "Responses streams have no ping events"
        blocks: dict[int, dv.BlockKind] = {}
        stopped: set[int] = set()
        reason: str | None = None
        for n, event in enumerate(turn):
            if reason is not None and not isinstance(event, dv.CycleStop):
                return (
                    "the stop reason and the stop are one event here (response.completed or "
                    "response.incomplete); this turn has events between them"
                )
            if isinstance(event, dv.BlockStart):
                if event.index in blocks:
                    return f"block {event.index} starts twice; each output item is added once"
                blocks[event.index] = event.block
            elif isinstance(
                event, (dv.TextDelta, dv.ThinkingDelta, dv.ArgumentsDelta, dv.BlockStop)
            ):
                wanted = _EVENT_BLOCKS.get(type(event))
                index = event.index
                if index not in blocks or index in stopped:
                    return f"event {n} ({event.kind}) is for block {index}, which is not open"
                if wanted is not None and blocks[index] != wanted:
                    return f"event {n} ({event.kind}) is for block {index}, a {blocks[index]} block"
                if isinstance(event, dv.BlockStop):
                    stopped.add(index)
            elif isinstance(event, dv.CycleDelta):
                reason = event.stop_reason
                calls = any(kind == "tool_use" for kind in blocks.values())
                if reason == "stop_sequence":
                    return "the Responses API has no stop sequences (no stop_sequence stop)"
                if reason == "tool_use" and not calls:
                    return "a response stops for tool_use only by holding function calls; this one has none"
                if reason == "end_turn" and calls:
                    return (
                        "a completed response that holds function calls stops for tool_use "
                        "(the wire has no stop reason); this turn says end_turn"
                    )
            elif isinstance(event, dv.CycleStop):
                if reason is None:
                    return "response.completed carries the stop reason; this turn stops without one"
                if n != len(turn) - 1:
                    return (
                        "a Responses stream ends at response.completed; this turn goes on after it"
                    )
        if reason is not None and not isinstance(turn[-1], dv.CycleStop):
            return "this turn gives a stop reason but never stops; the Responses stream says both at once"
        failed = any(isinstance(e, dv.StreamError) for e in turn)
        if failed and "no_done_events" in frozenset(quirks) and "tool_use" in blocks.values():
            return (
                "without *.done events a call's end shows only at response.completed: a "
                "failure leaves every call of the response unfinished"
            )
        return None

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        wire: list[_Wire] = []
        items: dict[int, _Item] = {}
        response_id = "resp_harness"
        reason: str = "end_turn"
        for i, event in enumerate(turn):
            if isinstance(event, dv.CycleStart):
                response_id = event.message_id
                for kind in ("response.created", "response.in_progress"):
                    wire.append(
                        _Wire(kind, {"response": self._response(response_id, "in_progress")}, i)
                    )
            elif isinstance(event, dv.BlockStart):
                item = self._item(event, response_id)
                items[event.index] = item
                call = item.position if item.block == "tool_use" else None
                added = {"output_index": item.position, "item": item.json()}
                wire.append(_Wire("response.output_item.added", added, i, call))
                part = {"item_id": item.item_id, "output_index": item.position}
                if item.block == "text":
                    part |= {"content_index": 0, "part": _text_part("")}
                    wire.append(_Wire("response.content_part.added", part, i))
                elif item.block == "thinking":
                    part |= {"summary_index": 0, "part": {"type": "summary_text", "text": ""}}
                    wire.append(_Wire("response.reasoning_summary_part.added", part, i))
            elif isinstance(event, (dv.TextDelta, dv.ThinkingDelta, dv.ArgumentsDelta)):
                open_item = items.get(event.index)
                if open_item is None:
                    continue  # a delta for no block (can_express refuses the turn)
                piece = event.fragment if isinstance(event, dv.ArgumentsDelta) else event.text
                open_item.parts.append(piece)
                wire.append(self._delta(open_item, piece, i, quirks))
            elif isinstance(event, dv.BlockStop):
                stopping = items.get(event.index)
                if stopping is None or stopping.stopped:
                    continue  # no such block, or stopped already (can_express refuses both)
                stopping.stopped = True
                wire.extend(self._done(stopping, i))
            elif isinstance(event, dv.CycleDelta):
                reason = event.stop_reason
            elif isinstance(event, dv.CycleStop):
                output = [items[k].final() for k in sorted(items, key=lambda k: items[k].position)]
                if reason == "max_tokens":
                    response = self._response(response_id, "incomplete", output)
                    response["incomplete_details"] = {"reason": "max_output_tokens"}
                    wire.append(_Wire("response.incomplete", {"response": response}, i))
                else:
                    response = self._response(response_id, "completed", output)
                    wire.append(_Wire("response.completed", {"response": response}, i))
            elif isinstance(event, dv.StreamError):
                error = {"code": event.error_type, "message": event.message}
                if "error_event" in quirks:
                    wire.append(_Wire("error", {**error, "param": None}, i))
                else:
                    output = [
                        items[k].final() for k in sorted(items, key=lambda k: items[k].position)
                    ]
                    response = self._response(response_id, "failed", output)
                    response["error"] = error
                    wire.append(_Wire("response.failed", {"response": response}, i))
                break  # the stream ends with the failure
        if "interleaved_calls" in quirks:
            wire = _interleave(wire)
        if "arguments_done_only" in quirks:
            wire = _arguments_at_done(wire)
        if "no_done_events" in quirks:
            wire = [w for w in wire if not w.kind.endswith(".done")]
        if "keepalive" in quirks:
            wire = _keepalives(wire)
        origins = _watermarks(wire, len(turn))
        out: list[WireChunk] = []
        for number, (w, origin) in enumerate(zip(wire, origins, strict=True)):
            payload = {"type": w.kind, **w.payload, "sequence_number": number}
            name = None if "no_event_lines" in quirks else w.kind
            text = sse_data(payload, quirks, event=name)
            out.append(WireChunk(text, origin, w.carries, event=w.origin))
        return tuple(out)

    def _response(
        self, response_id: str, status: str, output: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        done = status != "in_progress"
        return {
            "id": response_id,
            "object": "response",
            "created_at": _CREATED_AT,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "model": MODEL,
            "output": output or [],
            "parallel_tool_calls": True,
            "usage": (
                {
                    "input_tokens": 12,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 42,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 54,
                }
                if done
                else None
            ),
        }

    def _item(self, event: dv.BlockStart, response_id: str) -> _Item:
        if event.block == "tool_use":
            item_id = _item_id("fc", response_id, event.index, event.id)
            return _Item(event.index, "tool_use", item_id, event.id, event.name)
        prefix = "rs" if event.block == "thinking" else "msg"
        return _Item(event.index, event.block, _item_id(prefix, response_id, event.index))

    def _delta(self, item: _Item, piece: str, origin: int, quirks: frozenset[str]) -> _Wire:
        payload: dict[str, Any] = {"item_id": item.item_id, "output_index": item.position}
        if item.block == "text":
            kind = "response.output_text.delta"
            payload |= {"content_index": 0, "delta": piece, "logprobs": []}
        elif item.block == "thinking":
            kind = "response.reasoning_summary_text.delta"
            payload |= {"summary_index": 0, "delta": piece}
        else:
            kind = "response.function_call_arguments.delta"
            payload["delta"] = piece
        if "obfuscation" in quirks:
            payload["obfuscation"] = _obfuscation(f"{item.item_id}/{len(item.parts)}/{piece}")
        call = item.position if item.block == "tool_use" else None
        return _Wire(kind, payload, origin, call)

    def _done(self, item: _Item, origin: int) -> list[_Wire]:
        text = item.text
        base = {"item_id": item.item_id, "output_index": item.position}
        item_done = _Wire(
            "response.output_item.done",
            {"output_index": item.position, "item": item.json()},
            origin,
            item.position if item.block == "tool_use" else None,
        )
        if item.block == "tool_use":
            arguments = _Wire(
                "response.function_call_arguments.done",
                {**base, "arguments": text},
                origin,
                item.position,
            )
            return [arguments, item_done]
        if item.block == "thinking":
            summary = {"type": "summary_text", "text": text}
            return [
                _Wire(
                    "response.reasoning_summary_text.done",
                    {**base, "summary_index": 0, "text": text},
                    origin,
                ),
                _Wire(
                    "response.reasoning_summary_part.done",
                    {**base, "summary_index": 0, "part": summary},
                    origin,
                ),
                item_done,
            ]
        return [
            _Wire(
                "response.output_text.done",
                {**base, "content_index": 0, "text": text, "logprobs": []},
                origin,
            ),
            _Wire(
                "response.content_part.done",
                {**base, "content_index": 0, "part": _text_part(text)},
                origin,
            ),
            item_done,
        ]

    def decode(self, body: str, *, source: str) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of one recorded response.

        Block index = ``output_index``. Items that are not canonical blocks (tools the server
        runs, custom tools, audio) and events that only repeat what others carry (``*.done``
        of parts and texts, ``content_part.*``, annotations, ``response.in_progress``) are
        skipped; a text, reasoning or call item that streamed no deltas takes its text from
        its ``output_item.done`` (or the call's ``function_call_arguments.done``, or else the
        terminal event's output). A block ends
        at ``function_call_arguments.done`` or ``output_item.done``, whichever comes first; the
        terminal event closes no block (an item cut by ``max_output_tokens`` stays open, as the
        canonical turn has it). An ``error`` or ``response.failed`` event is the turn's
        ``StreamError`` and ends it (an ``error`` right after ``response.failed``, or the other
        way round, says the same failure again). An unknown event type, a delta for an item
        never added and anything else after the terminal event are a ``WireError`` at their
        line.
        """
        reader = _Reader(source)
        for event in parse_sse(body, source=source):
            reader.read(event.line, json_data(event), event.event)
        return tuple(reader.out)


class _Reader:
    """The decoder's state while it reads one response."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.out: list[dv.TurnEvent] = []
        self.blocks: dict[int, dv.BlockKind] = {}
        self.by_item: dict[str, int] = {}
        self.open: set[int] = set()
        self.streamed: set[int] = set()
        self.started = self.ended = self.failed = False

    def error(self, line: int, message: str) -> WireError:
        return WireError(self.source, line, message)

    def block_of(self, item_id: Any, position: Any, kind: str, line: int) -> int:
        """The block of an event's item: by ``item_id``, or by ``output_index`` without one."""
        if isinstance(item_id, str) and item_id in self.by_item:
            return self.by_item[item_id]
        if item_id is None and isinstance(position, int) and position in self.blocks:
            return position
        raise self.error(line, f"{kind} for an item the stream never added ({item_id!r})")

    def read(self, line: int, data: Any, name: str | None) -> None:
        if not isinstance(data, dict):
            raise self.error(line, f"expected a JSON object, got {data!r}")
        kind = data.get("type") or name
        if not isinstance(kind, str):
            raise self.error(line, "the event has no type")
        if kind in ("error", "response.failed"):
            if not self.failed:
                self.failed = self.ended = True
                error = data if kind == "error" else (data.get("response") or {}).get("error")
                error = error if isinstance(error, dict) else {"message": error}
                self.out.append(
                    dv.StreamError(
                        error_type=str(error.get("code") or error.get("type") or ""),
                        message=str(error.get("message") or ""),
                        line=line,
                    )
                )
            return
        if self.ended:
            raise self.error(line, f"{kind} after the response ended")
        if kind == "response.created":
            if self.started:
                raise self.error(line, "a second response.created: one stream is one response")
            self.started = True
            response = data.get("response") or {}
            self.out.append(dv.CycleStart(message_id=str(response.get("id", "")), line=line))
        elif not self.started and not ignored(kind):
            raise self.error(line, f"{kind} before response.created")
        elif kind == "response.output_item.added":
            self.added(line, data)
        elif kind in _DELTA_BLOCKS:
            self.delta(line, kind, data)
        elif kind == "response.function_call_arguments.done":
            index = self.block_of(data.get("item_id"), data.get("output_index"), kind, line)
            self.stop(line, index, "tool_use", str(data.get("arguments") or ""))
        elif kind == "response.output_item.done":
            item = data.get("item") or {}
            block = _ITEM_BLOCKS.get(str(item.get("type")))
            if block is not None:
                index = self.block_of(item.get("id"), data.get("output_index"), kind, line)
                text = str(item.get("arguments") or "") if block == "tool_use" else item_text(item)
                self.stop(line, index, block, text)
        elif kind in ("response.completed", "response.incomplete"):
            self.finish(line, kind, data.get("response") or {})
        elif not ignored(kind):
            raise self.error(line, f"unknown event type {kind!r}")

    def added(self, line: int, data: dict[str, Any]) -> None:
        item = data.get("item") or {}
        block = _ITEM_BLOCKS.get(str(item.get("type")))
        if block is None:
            return  # a tool the server runs, a custom tool: not a canonical block
        position = data.get("output_index", len(self.blocks))
        if not isinstance(position, int) or position in self.blocks:
            raise self.error(line, f"output_index {position!r} is not a new item")
        self.blocks[position] = block
        self.by_item[str(item.get("id", ""))] = position
        self.open.add(position)
        if block != "tool_use":
            self.out.append(dv.BlockStart(index=position, block=block, line=line))
            return
        call_id, name = str(item.get("call_id", "")), str(item.get("name", ""))
        self.out.append(
            dv.BlockStart(index=position, block=block, id=call_id, name=name, line=line)
        )
        if item.get("arguments"):  # a call added whole
            self.streamed.add(position)
            self.out.append(
                dv.ArgumentsDelta(index=position, fragment=str(item["arguments"]), line=line)
            )

    def delta(self, line: int, kind: str, data: dict[str, Any]) -> None:
        index = self.block_of(data.get("item_id"), data.get("output_index"), kind, line)
        if self.blocks[index] != _DELTA_BLOCKS[kind]:
            raise self.error(line, f"{kind} for a {self.blocks[index]} item")
        if index not in self.open:
            raise self.error(line, f"{kind} after its item was done")
        self.streamed.add(index)
        piece = str(data.get("delta", ""))
        if self.blocks[index] == "tool_use":
            self.out.append(dv.ArgumentsDelta(index=index, fragment=piece, line=line))
        elif self.blocks[index] == "thinking":
            self.out.append(dv.ThinkingDelta(index=index, text=piece, line=line))
        else:
            self.out.append(dv.TextDelta(index=index, text=piece, line=line))

    def stop(self, line: int, index: int, block: dv.BlockKind, whole: str) -> None:
        """The item is done (the second done event of a call changes nothing); an item that
        streamed nothing is told whole here."""
        if index not in self.open:
            return
        if self.blocks[index] != block:
            raise self.error(line, f"the end of a {block} item at a {self.blocks[index]} item")
        if index not in self.streamed and whole:
            self.streamed.add(index)
            if block == "tool_use":
                self.out.append(dv.ArgumentsDelta(index=index, fragment=whole, line=line))
            elif block == "thinking":
                self.out.append(dv.ThinkingDelta(index=index, text=whole, line=line))
            else:
                self.out.append(dv.TextDelta(index=index, text=whole, line=line))
        self.open.discard(index)
        self.out.append(dv.BlockStop(index=index, line=line))

    def finish(self, line: int, kind: str, response: dict[str, Any]) -> None:
        for item in response.get("output") or ():
            # a call still open that streamed nothing: its arguments as the output lists them
            index = self.by_item.get(str(item.get("id"))) if isinstance(item, dict) else None
            if (
                index in self.open
                and index not in self.streamed
                and self.blocks[index] == "tool_use"
                and item.get("arguments")
            ):
                self.streamed.add(index)
                fragment = str(item["arguments"])
                self.out.append(dv.ArgumentsDelta(index=index, fragment=fragment, line=line))
        if kind == "response.incomplete":
            details = response.get("incomplete_details") or {}
            reason = "max_tokens" if details.get("reason") == "max_output_tokens" else "end_turn"
        else:
            listed = any(
                isinstance(o, dict) and o.get("type") == "function_call"
                for o in response.get("output") or ()
            )
            calls = listed or "tool_use" in self.blocks.values()
            reason = "tool_use" if calls else "end_turn"
        self.out.append(dv.CycleDelta(stop_reason=dv.stop_reason(reason), line=line))
        self.out.append(dv.CycleStop(line=line))
        self.ended = True


def _interleave(wire: list[_Wire]) -> list[_Wire]:
    """Runs of consecutive function_call events of two or more items: the items' additions
    first, then their argument deltas in turn (by output_index), then their ends in order."""
    out: list[_Wire] = []
    n = 0
    while n < len(wire):
        if wire[n].call is None:
            out.append(wire[n])
            n += 1
            continue
        end = n
        while end < len(wire) and wire[end].call is not None:
            end += 1
        run = wire[n:end]
        order: list[int] = []
        for w in run:
            if w.call not in order:
                order.append(w.call)  # type: ignore[arg-type]
        heads = [w for w in run if w.kind == "response.output_item.added"]
        deltas = {c: [w for w in run if w.call == c and w.kind.endswith(".delta")] for c in order}
        tails = [
            w
            for c in order
            for w in run
            if w.call == c
            and w.kind != "response.output_item.added"
            and not w.kind.endswith(".delta")
        ]
        out.extend(heads)
        for step in range(max((len(d) for d in deltas.values()), default=0)):
            out.extend(d[step] for d in deltas.values() if step < len(d))
        out.extend(tails)
        n = end
    return out


def _arguments_at_done(wire: list[_Wire]) -> list[_Wire]:
    """Without argument deltas: each call's function_call_arguments.done tells its fragments."""
    folded: dict[int | None, list[int]] = {}
    out: list[_Wire] = []
    for w in wire:
        if w.kind == "response.function_call_arguments.delta":
            folded.setdefault(w.call, []).append(w.origin)
            continue
        if w.kind == "response.function_call_arguments.done":
            w = dataclasses.replace(w, tells=(*w.tells, *folded.pop(w.call, ())))
        out.append(w)
    return out


def _keepalives(wire: list[_Wire]) -> list[_Wire]:
    """A keepalive after every third event, until the terminal one."""
    out: list[_Wire] = []
    for n, w in enumerate(wire):
        out.append(w)
        if n % 3 == 2 and n < len(wire) - 1:
            out.append(_Wire("keepalive", {}, w.origin, carries=False))
    return out


#: the events that end a response's stream
_TERMINAL = ("response.completed", "response.incomplete", "response.failed", "error")


def _watermarks(wire: list[_Wire], events: int) -> list[int]:
    """Each chunk's origin: the last canonical event such that it and every event before it are
    on the wire once the chunk is read (an event no chunk carries waits for the terminal one)."""
    first: dict[int, int] = {}
    for position, w in enumerate(wire):
        for told in (w.origin, *w.tells):
            first.setdefault(told, position)
    terminal = next(
        (p for p, w in enumerate(wire) if w.kind in _TERMINAL),
        len(wire),
    )
    reach: list[int] = []
    furthest = 0
    for event in range(events):
        furthest = max(furthest, first.get(event, terminal))
        reach.append(furthest)
    origins: list[int] = []
    told = -1
    for position in range(len(wire)):
        while told + 1 < events and reach[told + 1] <= position:
            told += 1
        origins.append(max(told, 0))
    return origins
