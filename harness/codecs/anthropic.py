"""Anthropic Messages streaming (SSE): ``message_start``, ``content_block_*``, ``message_delta``,
``message_stop``, ``ping``; one turn may hold several message cycles on one stream."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from harness.codecs import WireChunk
from harness.model import driver as dv
from harness.wire import WireError, json_data, parse_sse

QUIRKS = {
    "ping_every_3": "a ping event after every third event",
    "crlf": "CRLF line ends",
    "padded_json": "spaces inside and around the data JSON",
    "duplicate_message_start": "message_start sent twice (REAL_BUGS row 14)",
    "duplicate_block_stop": "content_block_stop of each tool_use sent twice (REAL_BUGS row 15)",
    "assembled_message": "the SDK's assembled 'assistant' message after each cycle's stream (seed 002, REAL_BUGS row 16)",
}


def _sse(name: str, payload: dict[str, Any], origin: int, quirks: frozenset[str]) -> WireChunk:
    if "padded_json" in quirks:
        data = "  " + json.dumps(payload, separators=(" , ", " : ")) + "  "
    else:
        data = json.dumps(payload, separators=(",", ":"))
    end = "\r\n" if "crlf" in quirks else "\n"
    return WireChunk(f"event: {name}{end}data: {data}{end}{end}", origin)


class AnthropicCodec:
    name = "anthropic"
    quirks = QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent]) -> str | None:
        return None

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        out: list[WireChunk] = []
        blocks: dict[int, dict[str, Any]] = {}
        message_id = ""
        for i, event in enumerate(turn):
            if isinstance(event, dv.MessageStart):
                message_id = event.message_id
                blocks = {}
                payload: dict[str, Any] = {
                    "type": "message_start",
                    "message": {
                        "id": event.message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-sonnet-4-20250514",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 12, "output_tokens": 1},
                    },
                }
                out.append(_sse("message_start", payload, i, quirks))
                if "duplicate_message_start" in quirks:
                    out.append(_sse("message_start", payload, i, quirks))
            elif isinstance(event, dv.BlockStart):
                block: dict[str, Any]
                if event.block == "tool_use":
                    block = {"type": "tool_use", "id": event.id, "name": event.name, "input": {}}
                    blocks[event.index] = {**block, "partial": []}
                elif event.block == "thinking":
                    block = {"type": "thinking", "thinking": ""}
                    blocks[event.index] = {**block, "partial": []}
                else:
                    block = {"type": "text", "text": ""}
                    blocks[event.index] = {**block, "partial": []}
                payload = {
                    "type": "content_block_start",
                    "index": event.index,
                    "content_block": block,
                }
                out.append(_sse("content_block_start", payload, i, quirks))
            elif isinstance(event, (dv.TextDelta, dv.ThinkingDelta, dv.ArgumentsDelta)):
                if isinstance(event, dv.TextDelta):
                    delta = {"type": "text_delta", "text": event.text}
                    piece = event.text
                elif isinstance(event, dv.ThinkingDelta):
                    delta = {"type": "thinking_delta", "thinking": event.text}
                    piece = event.text
                else:
                    delta = {"type": "input_json_delta", "partial_json": event.fragment}
                    piece = event.fragment
                if event.index in blocks:
                    blocks[event.index]["partial"].append(piece)
                payload = {"type": "content_block_delta", "index": event.index, "delta": delta}
                out.append(_sse("content_block_delta", payload, i, quirks))
            elif isinstance(event, dv.BlockStop):
                payload = {"type": "content_block_stop", "index": event.index}
                out.append(_sse("content_block_stop", payload, i, quirks))
                if (
                    "duplicate_block_stop" in quirks
                    and blocks.get(event.index, {}).get("type") == "tool_use"
                ):
                    out.append(_sse("content_block_stop", payload, i, quirks))
            elif isinstance(event, dv.MessageDelta):
                payload = {
                    "type": "message_delta",
                    "delta": {"stop_reason": event.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 42},
                }
                out.append(_sse("message_delta", payload, i, quirks))
            elif isinstance(event, dv.MessageStop):
                out.append(_sse("message_stop", {"type": "message_stop"}, i, quirks))
                if "assembled_message" in quirks:
                    out.append(_sse("assistant", _assembled(message_id, blocks), i, quirks))
            elif isinstance(event, dv.Ping):
                out.append(_sse("ping", {"type": "ping"}, i, quirks))
            if "ping_every_3" in quirks and i % 3 == 2:
                out.append(_sse("ping", {"type": "ping"}, i, quirks))
        return tuple(out)

    def decode(self, body: str, *, source: str) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded stream. Pings are kept; ``signature_delta`` and
        ``citations_delta`` carry nothing the canonical turn has and are skipped; an ``error``
        event or an unknown event type is a ``WireError`` at its line."""
        out: list[dv.TurnEvent] = []
        for event in parse_sse(body, source=source):
            data = json_data(event)
            if not isinstance(data, dict):
                raise WireError(source, event.line, f"expected a JSON object, got {data!r}")
            kind = data.get("type")
            line = event.line
            if kind == "message_start":
                out.append(
                    dv.MessageStart(message_id=str(data["message"].get("id", "")), line=line)
                )
            elif kind == "content_block_start":
                block = data["content_block"]
                block_type = block.get("type")
                if block_type in ("tool_use", "server_tool_use"):
                    out.append(
                        dv.BlockStart(
                            index=data["index"],
                            block="tool_use",
                            id=block.get("id", ""),
                            name=block.get("name", ""),
                            line=line,
                        )
                    )
                elif block_type in ("thinking", "redacted_thinking"):
                    out.append(dv.BlockStart(index=data["index"], block="thinking", line=line))
                elif block_type == "text":
                    out.append(dv.BlockStart(index=data["index"], block="text", line=line))
                    if block.get("text"):
                        out.append(dv.TextDelta(index=data["index"], text=block["text"], line=line))
                else:  # e.g. a server tool's result: read as an empty text block
                    out.append(dv.BlockStart(index=data["index"], block="text", line=line))
            elif kind == "content_block_delta":
                delta, index = data["delta"], data["index"]
                delta_type = delta.get("type")
                if delta_type == "text_delta":
                    out.append(dv.TextDelta(index=index, text=delta["text"], line=line))
                elif delta_type == "thinking_delta":
                    out.append(dv.ThinkingDelta(index=index, text=delta["thinking"], line=line))
                elif delta_type == "input_json_delta":
                    out.append(
                        dv.ArgumentsDelta(index=index, fragment=delta["partial_json"], line=line)
                    )
                elif delta_type not in ("signature_delta", "citations_delta"):
                    raise WireError(
                        source, line, f"unknown content_block_delta type {delta_type!r}"
                    )
            elif kind == "content_block_stop":
                out.append(dv.BlockStop(index=data["index"], line=line))
            elif kind == "message_delta":
                reason = data.get("delta", {}).get("stop_reason") or "end_turn"
                out.append(dv.MessageDelta(stop_reason=dv.stop_reason(reason), line=line))
            elif kind == "message_stop":
                out.append(dv.MessageStop(line=line))
            elif kind == "ping":
                out.append(dv.Ping(line=line))
            elif kind == "assistant":
                pass  # an SDK's assembled copy of the message just streamed: not part of the stream
            elif kind == "error":
                raise WireError(source, line, f"the stream reports an error: {data.get('error')}")
            else:
                raise WireError(source, line, f"unknown event type {kind!r}")
        return tuple(out)


def _assembled(message_id: str, blocks: dict[int, dict[str, Any]]) -> dict[str, Any]:
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        text = "".join(block["partial"])
        if block["type"] == "tool_use":
            try:
                arguments = json.loads(text) if text else {}
            except ValueError:
                arguments = {}
            content.append(
                {"type": "tool_use", "id": block["id"], "name": block["name"], "input": arguments}
            )
        elif block["type"] == "thinking":
            content.append({"type": "thinking", "thinking": text})
        else:
            content.append({"type": "text", "text": text})
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": content},
    }
