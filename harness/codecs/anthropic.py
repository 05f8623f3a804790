"""Anthropic Messages streaming (SSE): ``message_start``, ``content_block_*``, ``message_delta``,
``message_stop``, ``ping``.

Two dialects share the encoding. ``anthropic`` is the Messages API: one response body holds one
message, and the body ends after its ``message_stop``. ``anthropic-agent`` is an agent's event
stream (the Claude Agent SDK's stream events forwarded over SSE): one stream
carries every message cycle of a turn and goes on after it, so a driver must stop reading at the
turn's final stop."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from harness.codecs.base import misshapen, need
from harness.codecs.text import ASCII_ESCAPES_QUIRK, LONE_CR_QUIRK, sse_data
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.wire import WireError, json_data, parse_sse

QUIRKS = {
    "ping_every_3": "a ping event after every third event",
    "crlf": "CRLF line ends",
    "lone_cr": LONE_CR_QUIRK,
    "ascii_escapes": ASCII_ESCAPES_QUIRK,
    "padded_json": "spaces inside and around the data JSON",
    "duplicate_message_start": (
        "message_start sent twice; gateway-only: LiteLLM proxy, bifrost (BerriAI/litellm#32478, "
        "maximhq/bifrost#4556)"
    ),
    "duplicate_block_stop": (
        "content_block_stop of each tool_use sent twice; gateway-only: a LiteLLM proxy "
        "release (BerriAI/litellm#37273)"
    ),
    "assembled_message": (
        "the SDK's assembled 'assistant' message after each cycle's stream (rynfar/meridian#73; "
        "scenarios/driver/assembled-message-after-each-cycle.yaml)"
    ),
    "empty_input_json_delta": (
        "each tool_use block's first input_json_delta has an empty partial_json "
        "(anthropic-sdk-python tool_use_response.txt, llm-anthropic test_tools.yaml; "
        "theopenco/llmgateway#2468)"
    ),
    "signature_delta": (
        "a thinking block starts with signature '' and ends with an empty thinking_delta and "
        "a signature_delta (llm-anthropic "
        "test_fixed_version_tool_chain_with_thinking_display_regression.yaml)"
    ),
    "extra_fields": (
        "fields newer than most parsers: 'caller' on tool_use blocks, 'stop_details', cache "
        "and service_tier usage (anthropic-sdk-python tool_use_response.txt, "
        "llm-anthropic test_tools.yaml)"
    ),
    "no_event_lines": (
        "data: lines without the 'event:' line before them; gateway-only: third-party "
        "Anthropic-compatible proxies (earendil-works/pi#1983, openclaw/openclaw#37571)"
    ),
}

#: a stand-in for the opaque signature that ends a thinking block
SIGNATURE = "EoQDCm0IDhgCKkBoYXJuZXNzLXNpZ25hdHVyZS1ub3QtcmVhbA=="


def _sse(name: str, payload: dict[str, Any], origin: int, quirks: frozenset[str]) -> WireChunk:
    event = None if "no_event_lines" in quirks else name
    if "padded_json" in quirks:
        return WireChunk(
            sse_data(payload, quirks, event=event, separators=(" , ", " : "), pad="  "), origin
        )
    return WireChunk(sse_data(payload, quirks, event=event), origin)


class AnthropicCodec:
    name = "anthropic"
    quirks = QUIRKS
    #: the body ends with the turn: reading on to its end is how a driver finds that end
    stream_outlives_turn = False

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
        if cycles > 1:
            return (
                f"a Messages API response holds one message, and this turn has {cycles} "
                "message cycles (an agent stream: dialect anthropic-agent)"
            )
        return None

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        out: list[WireChunk] = []
        blocks: dict[int, dict[str, Any]] = {}
        message_id = ""
        for i, event in enumerate(turn):
            if isinstance(event, dv.CycleStart):
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
                if "extra_fields" in quirks:
                    payload["message"] |= {
                        "stop_details": None,
                        "usage": {
                            "input_tokens": 12,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0,
                            "cache_creation": {
                                "ephemeral_5m_input_tokens": 0,
                                "ephemeral_1h_input_tokens": 0,
                            },
                            "output_tokens": 1,
                            "service_tier": "standard",
                        },
                    }
                out.append(_sse("message_start", payload, i, quirks))
                if "duplicate_message_start" in quirks:
                    out.append(_sse("message_start", payload, i, quirks))
            elif isinstance(event, dv.BlockStart):
                block: dict[str, Any]
                if event.block in ("tool_use", "server_tool_use"):
                    block = {"type": event.block, "id": event.id, "name": event.name, "input": {}}
                    blocks[event.index] = {**block, "partial": []}
                    if "extra_fields" in quirks:
                        block["caller"] = {"type": "direct"}
                elif event.block == "thinking":
                    block = {"type": "thinking", "thinking": ""}
                    blocks[event.index] = {**block, "partial": []}
                    if "signature_delta" in quirks:
                        block["signature"] = ""
                else:
                    block = {"type": "text", "text": ""}
                    blocks[event.index] = {**block, "partial": []}
                payload = {
                    "type": "content_block_start",
                    "index": event.index,
                    "content_block": block,
                }
                out.append(_sse("content_block_start", payload, i, quirks))
                if "empty_input_json_delta" in quirks and event.block == "tool_use":
                    delta = {"type": "input_json_delta", "partial_json": ""}
                    payload = {"type": "content_block_delta", "index": event.index, "delta": delta}
                    out.append(_sse("content_block_delta", payload, i, quirks))
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
                if "signature_delta" in quirks and blocks.get(event.index, {}).get("type") == (
                    "thinking"
                ):
                    for delta in (
                        {"type": "thinking_delta", "thinking": ""},
                        {"type": "signature_delta", "signature": SIGNATURE},
                    ):
                        # they come before the block's stop, so they tell the turn up to i - 1
                        payload = {"type": "content_block_delta", "index": event.index}
                        payload["delta"] = delta
                        out.append(_sse("content_block_delta", payload, i - 1, quirks))
                payload = {"type": "content_block_stop", "index": event.index}
                out.append(_sse("content_block_stop", payload, i, quirks))
                if "duplicate_block_stop" in quirks and blocks.get(event.index, {}).get("type") in (
                    "tool_use",
                    "server_tool_use",
                ):
                    out.append(_sse("content_block_stop", payload, i, quirks))
            elif isinstance(event, dv.CycleDelta):
                payload = {
                    "type": "message_delta",
                    "delta": {"stop_reason": event.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 42},
                }
                if "extra_fields" in quirks:
                    payload["delta"]["stop_details"] = None
                    payload["usage"] = {"input_tokens": 12, "output_tokens": 42}
                out.append(_sse("message_delta", payload, i, quirks))
            elif isinstance(event, dv.CycleStop):
                out.append(_sse("message_stop", {"type": "message_stop"}, i, quirks))
                if "assembled_message" in quirks:
                    out.append(_sse("assistant", _assembled(message_id, blocks), i, quirks))
            elif isinstance(event, dv.Ping):
                out.append(_sse("ping", {"type": "ping"}, i, quirks))
            elif isinstance(event, dv.StreamError):
                error = {"type": event.error_type, "message": event.message}
                out.append(_sse("error", {"type": "error", "error": error}, i, quirks))
                break  # the stream ends with the error
            if "ping_every_3" in quirks and i % 3 == 2:
                out.append(_sse("ping", {"type": "ping"}, i, quirks))
        return tuple(out)

    def decode(self, body: str, *, source: str) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded stream. Pings are kept; ``signature_delta`` and
        ``citations_delta`` carry nothing the canonical turn has and are skipped; an ``error``
        event is the turn's ``StreamError``, and ends it; an unknown event type or an event of
        the wrong shape is a ``WireError`` at its line."""
        out: list[dv.TurnEvent] = []
        for event in parse_sse(body, source=source):
            data = json_data(event)
            try:
                out.extend(_read_event(data, event.line, source))
            except (KeyError, TypeError, AttributeError) as exc:
                what = "this event does not have the Messages streaming shape"
                raise misshapen(exc, what, source, event.line) from None
            if out and isinstance(out[-1], dv.StreamError):
                break  # nothing of the turn follows the server's error
        return tuple(out)


class AnthropicAgentCodec(AnthropicCodec):
    """The same events as an agent's stream: every message cycle of a turn on one stream, which
    goes on after the turn (the next turn follows on it)."""

    name = "anthropic-agent"
    stream_outlives_turn = True

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        return None


def _read_event(data: Any, line: int, source: str) -> list[dv.TurnEvent]:
    need(data, dict, "an event's data", source, line)
    kind = data.get("type")
    if kind == "message_start":
        message = need(data["message"], dict, "message", source, line)
        return [dv.CycleStart(message_id=str(message.get("id", "")), line=line)]
    if kind == "content_block_start":
        block = need(data["content_block"], dict, "content_block", source, line)
        index = need(data["index"], int, "index", source, line)
        block_type = block.get("type")
        if block_type in ("tool_use", "server_tool_use"):
            return [
                dv.BlockStart(
                    index=index,
                    block=block_type,
                    id=need(block.get("id", ""), str, "id", source, line),
                    name=need(block.get("name", ""), str, "name", source, line),
                    line=line,
                )
            ]
        if block_type in ("thinking", "redacted_thinking"):
            return [dv.BlockStart(index=index, block="thinking", line=line)]
        out: list[dv.TurnEvent] = [dv.BlockStart(index=index, block="text", line=line)]
        if block_type == "text" and block.get("text"):
            out.append(
                dv.TextDelta(
                    index=index, text=need(block["text"], str, "text", source, line), line=line
                )
            )
        return out  # anything else (a server tool's result) reads as an empty text block
    if kind == "content_block_delta":
        delta = need(data["delta"], dict, "delta", source, line)
        index = need(data["index"], int, "index", source, line)
        delta_type = delta.get("type")
        if delta_type == "text_delta":
            return [
                dv.TextDelta(
                    index=index, text=need(delta["text"], str, "text", source, line), line=line
                )
            ]
        if delta_type == "thinking_delta":
            return [
                dv.ThinkingDelta(
                    index=index,
                    text=need(delta["thinking"], str, "thinking", source, line),
                    line=line,
                )
            ]
        if delta_type == "input_json_delta":
            fragment = need(delta["partial_json"], str, "partial_json", source, line)
            return [dv.ArgumentsDelta(index=index, fragment=fragment, line=line)]
        if delta_type in ("signature_delta", "citations_delta"):
            return []
        raise WireError(source, line, f"unknown content_block_delta type {delta_type!r}")
    if kind == "content_block_stop":
        return [dv.BlockStop(index=need(data["index"], int, "index", source, line), line=line)]
    if kind == "message_delta":
        delta = need(data["delta"], dict, "delta", source, line)
        reason = delta.get("stop_reason") or "end_turn"
        return [
            dv.CycleDelta(
                stop_reason=dv.stop_reason(need(reason, str, "stop_reason", source, line)),
                line=line,
            )
        ]
    if kind == "message_stop":
        return [dv.CycleStop(line=line)]
    if kind == "ping":
        return [dv.Ping(line=line)]
    if kind == "assistant":
        return []  # an SDK's assembled copy of the message just streamed: not part of the stream
    if kind == "error":
        error = need(data["error"], dict, "error", source, line)
        return [
            dv.StreamError(
                error_type=str(error.get("type", "")),
                message=str(error.get("message", "")),
                line=line,
            )
        ]
    raise WireError(source, line, f"unknown event type {kind!r}")


def _assembled(message_id: str, blocks: dict[int, dict[str, Any]]) -> dict[str, Any]:
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        text = "".join(block["partial"])
        if block["type"] in ("tool_use", "server_tool_use"):
            try:
                arguments = json.loads(text) if text else {}
            except ValueError:
                arguments = {}
            content.append(
                {
                    "type": block["type"],
                    "id": block["id"],
                    "name": block["name"],
                    "input": arguments,
                }
            )
        elif block["type"] == "thinking":
            content.append({"type": "thinking", "thinking": text})
        else:
            content.append({"type": "text", "text": text})
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": content},
    }
