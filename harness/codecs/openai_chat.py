"""OpenAI Chat Completions streaming: ``chat.completion.chunk`` objects in SSE ``data:`` lines,
ended by ``data: [DONE]``. One response is one message cycle; tool calls stream by ``index``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from harness.codecs import WireChunk
from harness.model import driver as dv
from harness.wire import DONE, WireError, json_data, parse_sse

QUIRKS = {
    "same_index": "every parallel call streams at index 0 (REAL_BUGS rows 1-3)",
    "no_index": "tool call deltas carry no index (REAL_BUGS row 4)",
    "first_index_1": "the first call has index 1 (REAL_BUGS row 5)",
    "name_every_chunk": "the function name repeated on every chunk (REAL_BUGS row 6)",
    "id_every_chunk": "the call id repeated on every chunk",
    "id_changes": "continuation chunks carry another id (REAL_BUGS row 7)",
    "whole_call_one_chunk": "each call arrives whole in one chunk (REAL_BUGS row 2)",
    "finish_stop_with_tools": "finish_reason 'stop' although tool calls were made (REAL_BUGS row 11)",
    "usage_chunk": "a final usage chunk with empty choices (REAL_BUGS row 13)",
    "no_done": "no [DONE] at the end",
    "keep_alive": "SSE comment lines between chunks",
}

_FINISH = {
    "tool_use": "tool_calls",
    "end_turn": "stop",
    "max_tokens": "length",
    "stop_sequence": "stop",
}
_REASON = {
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
}


def _chunk(
    message_id: str, delta: dict[str, Any], origin: int, finish: str | None = None
) -> WireChunk:
    payload = {
        "id": message_id,
        "object": "chat.completion.chunk",
        "created": 1732000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return WireChunk(f"data: {json.dumps(payload, separators=(',', ':'))}\n\n", origin)


class OpenAIChatCodec:
    name = "openai-chat"
    quirks = QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent]) -> str | None:
        cycles = sum(isinstance(e, dv.MessageStart) for e in turn)
        if cycles > 1:
            return "a Chat Completions stream carries one message cycle; this turn has several"
        if any(isinstance(e, dv.Ping) for e in turn):
            return "Chat Completions streams have no ping events"
        return None

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        out: list[WireChunk] = []
        message_id = "chatcmpl-harness"
        calls: dict[int, dict[str, Any]] = {}  # block index -> {position, id, name, parts}
        pending_whole: list[tuple[int, dict[str, Any]]] = []

        def flush_whole() -> None:
            for origin, call in pending_whole:
                out.append(
                    _chunk(
                        message_id,
                        {"tool_calls": [self._call_delta(call, quirks, first=True, whole=True)]},
                        origin,
                    )
                )
            pending_whole.clear()

        for i, event in enumerate(turn):
            if "keep_alive" in quirks and out:
                out.append(WireChunk(": keep-alive\n\n", i, carries=False))
            if isinstance(event, dv.MessageStart):
                message_id = event.message_id
                out.append(
                    _chunk(message_id, {"role": "assistant", "content": "", "refusal": None}, i)
                )
            elif isinstance(event, dv.TextDelta):
                out.append(_chunk(message_id, {"content": event.text}, i))
            elif isinstance(event, dv.ThinkingDelta):
                out.append(_chunk(message_id, {"reasoning_content": event.text}, i))
            elif isinstance(event, dv.BlockStart) and event.block == "tool_use":
                position = len(calls) + (1 if "first_index_1" in quirks else 0)
                call: dict[str, Any] = {
                    "position": position,
                    "id": event.id,
                    "name": event.name,
                    "parts": [],
                    "start": i,
                }
                calls[event.index] = call
                if "whole_call_one_chunk" not in quirks:
                    out.append(
                        _chunk(
                            message_id,
                            {"tool_calls": [self._call_delta(call, quirks, first=True)]},
                            i,
                        )
                    )
            elif isinstance(event, dv.ArgumentsDelta) and event.index in calls:
                call = calls[event.index]
                call["parts"].append(event.fragment)
                if "whole_call_one_chunk" not in quirks:
                    delta = self._call_delta(call, quirks, first=False, fragment=event.fragment)
                    out.append(_chunk(message_id, {"tool_calls": [delta]}, i))
            elif (
                isinstance(event, dv.BlockStop)
                and event.index in calls
                and "whole_call_one_chunk" in quirks
            ):
                # the whole call goes out when it ends but belongs to its start: a driver only
                # learns that it is complete from the chunk after it
                pending_whole.append((calls[event.index]["start"], calls[event.index]))
                flush_whole()
            elif isinstance(event, dv.MessageDelta):
                finish = _FINISH[event.stop_reason]
                if finish == "tool_calls" and "finish_stop_with_tools" in quirks:
                    finish = "stop"
                out.append(_chunk(message_id, {}, i, finish))
            elif isinstance(event, dv.MessageStop):
                if "usage_chunk" in quirks:
                    usage = {
                        "id": message_id,
                        "object": "chat.completion.chunk",
                        "choices": [],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 42, "total_tokens": 54},
                    }
                    out.append(WireChunk(f"data: {json.dumps(usage)}\n\n", i))
                if "no_done" not in quirks:
                    out.append(WireChunk("data: [DONE]\n\n", i))
        return tuple(out)

    def _call_delta(
        self,
        call: dict[str, Any],
        quirks: frozenset[str],
        *,
        first: bool,
        fragment: str = "",
        whole: bool = False,
    ) -> dict[str, Any]:
        delta: dict[str, Any] = {}
        if "no_index" not in quirks:
            delta["index"] = 0 if "same_index" in quirks else call["position"]
        if first:
            delta["id"] = call["id"]
            delta["type"] = "function"
            arguments = "".join(call["parts"]) if whole else ""
            delta["function"] = {"name": call["name"], "arguments": arguments}
            return delta
        if "id_every_chunk" in quirks:
            delta["id"] = call["id"]
        if "id_changes" in quirks:
            delta["id"] = f"toolcall{call['position']}"
        function: dict[str, Any] = {"arguments": fragment}
        if "name_every_chunk" in quirks:
            function["name"] = call["name"]
        delta["function"] = function
        return delta

    def decode(self, body: str, *, source: str, choice: int = 0) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded stream (one choice of ``n``). Chunks with empty
        ``choices`` (usage) are skipped; a stream without ``[DONE]`` ends its message anyway;
        a call delta without ``index`` continues the last call unless it carries a new id."""
        out: list[dv.TurnEvent] = []
        started = stopped = False
        text_index: int | None = None
        thinking_index: int | None = None
        by_key: dict[Any, int] = {}  # the stream's call key -> block index
        open_blocks: list[int] = []
        next_index = 0
        last_line = 1

        def new_block(kind: dv.BlockKind, line: int, **extra: str) -> int:
            nonlocal next_index
            index = next_index
            next_index += 1
            out.append(dv.BlockStart(index=index, block=kind, line=line, **extra))
            open_blocks.append(index)
            return index

        def close_blocks(line: int) -> None:
            nonlocal text_index, thinking_index
            for index in open_blocks:
                out.append(dv.BlockStop(index=index, line=line))
            open_blocks.clear()
            text_index = thinking_index = None

        for event in parse_sse(body, source=source):
            line = last_line = event.line
            data = json_data(event)
            if data is DONE:
                close_blocks(line)
                out.append(dv.MessageStop(line=line))
                stopped = True
                break
            if not isinstance(data, dict):
                raise WireError(
                    source, line, f"expected a chat.completion.chunk object, got {data!r}"
                )
            if "error" in data:
                raise WireError(source, line, f"the stream reports an error: {data['error']}")
            if not started:
                out.append(dv.MessageStart(message_id=str(data.get("id", "")), line=line))
                started = True
            for entry in data.get("choices") or ():
                if entry.get("index", 0) != choice:
                    continue
                delta = entry.get("delta") or {}
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if reasoning:
                    if thinking_index is None:
                        thinking_index = new_block("thinking", line)
                    out.append(dv.ThinkingDelta(index=thinking_index, text=reasoning, line=line))
                if delta.get("content"):
                    if text_index is None:
                        text_index = new_block("text", line)
                    out.append(dv.TextDelta(index=text_index, text=delta["content"], line=line))
                for call in delta.get("tool_calls") or ():
                    function = call.get("function") or {}
                    key = call.get("index", "last")
                    known = (
                        by_key.get(key)
                        if key != "last"
                        else (open_blocks[-1] if open_blocks else None)
                    )
                    starts = known is None or (
                        call.get("id") and function.get("name") and call.get("type") == "function"
                    )
                    if starts:
                        close_blocks(line)
                        known = new_block(
                            "tool_use",
                            line,
                            id=call.get("id") or "",
                            name=function.get("name") or "",
                        )
                        by_key[key] = known
                    assert known is not None
                    if function.get("arguments"):
                        out.append(
                            dv.ArgumentsDelta(
                                index=known, fragment=function["arguments"], line=line
                            )
                        )
                if entry.get("finish_reason"):
                    close_blocks(line)
                    out.append(
                        dv.MessageDelta(
                            stop_reason=dv.stop_reason(
                                _REASON.get(entry["finish_reason"], "end_turn")
                            ),
                            line=line,
                        )
                    )
        if started and not stopped:
            close_blocks(last_line)
            out.append(dv.MessageStop(line=last_line))
        return tuple(out)
