"""OpenAI Chat Completions streaming: ``chat.completion.chunk`` objects in SSE ``data:`` lines,
ended by ``data: [DONE]``. One response is one message cycle; tool calls stream by ``index``.
An error mid-stream is an error object in a data line, and the stream ends there."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from harness.codecs.base import misshapen, need
from harness.codecs.text import (
    ASCII_ESCAPES_QUIRK,
    LONE_CR_QUIRK,
    json_text,
    line_ends,
    sse_data,
)
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.wire import DONE, WireError, json_data, parse_sse

QUIRKS = {
    "crlf": (
        "CRLF line ends: Azure-hosted OpenAI models and OpenAI-compatible servers "
        "(Continuum-AI-Corp/OrcaRouter-Lite#98, farion1231/cc-switch#1787)"
    ),
    "lone_cr": LONE_CR_QUIRK,
    "ascii_escapes": ASCII_ESCAPES_QUIRK,
    "same_index": (
        "every parallel call streams at index 0; gateway-only: Ollama through LiteLLM, "
        "Groq, relays of Gemini (huggingface/smolagents#1569, BerriAI/litellm#7621, "
        "su-kaka/gcli2api#406)"
    ),
    "no_index": (
        "tool call deltas carry no index; gateway-only: Gemini's OpenAI-compatible "
        "endpoint, Ollama (ollama/ollama#7881, openai/openai-python#2806)"
    ),
    "first_index_1": (
        "the first call has index 1; gateway-only: Bedrock Claude through LiteLLM, "
        "DeepSeek (BerriAI/litellm#11407, marimo-team/marimo#7356)"
    ),
    "name_every_chunk": (
        "the function name repeated on every chunk; gateway-only: llama.cpp's server, "
        "bifrost (ggml-org/llama.cpp#13774, maximhq/bifrost#1829)"
    ),
    "id_every_chunk": (
        "the call id repeated on every chunk; gateway-only: some OpenAI-compatible servers "
        "(OpenAI's own recordings send it once)"
    ),
    "id_changes": (
        "continuation chunks carry another id; gateway-only: GLM on Mistral's API "
        "(mistralai/mistral-vibe#1127)"
    ),
    "whole_call_one_chunk": (
        "each call arrives whole in one chunk; gateway-only: Groq (BerriAI/litellm#7621)"
    ),
    "finish_stop_with_tools": (
        "finish_reason 'stop' although tool calls were made: Ollama and gateways, and at times "
        "OpenAI's own gpt-4o (ollama/ollama#7963, BerriAI/litellm#35663)"
    ),
    "usage_chunk": (
        "a final usage chunk with empty choices (BerriAI/litellm#8751, Portkey-AI/gateway#1629)"
    ),
    "no_done": "no [DONE] at the end; gateway-only: Writer's API, some proxies",
    "keep_alive": "SSE comment lines between chunks; gateway-only: proxies keeping a stream open",
    "role_chunk_first_call": (
        "the role chunk says content null, and when the message opens with a call it carries "
        "that call's header too, refusal null beside it: gpt-4o (openai-python 2018feb6….bin "
        "and f82268f2….bin, llm/test_tool_use_basic.yaml)"
    ),
    "include_usage": (
        "stream_options.include_usage as OpenAI sends it: usage null on every chunk, next to "
        "service_tier and system_fingerprint, then the usage chunk with empty choices "
        "(llm/test_tool_use_basic.yaml)"
    ),
    "obfuscation": (
        "an 'obfuscation' padding string on every chunk, as OpenAI sends by default "
        "(openai/openai-node#2423, ENTERPILOT/GoModel#46)"
    ),
    "prompt_filter_first_chunk": (
        "a first chunk with empty choices, an empty id and model, and prompt_filter_results; "
        "gateway-only: Azure OpenAI, an OpenAI-compatible server (pydantic/pydantic-ai#164, "
        "simonw/llm#294)"
    ),
    "content_filter_trailing_chunk": (
        "after the finish, a chunk whose choice has no delta, only content_filter_offsets and "
        "content_filter_results; gateway-only: Azure OpenAI, an OpenAI-compatible server "
        "(microsoft/autogen#6465)"
    ),
    "role_every_chunk": (
        "every delta repeats role 'assistant', with content null beside tool calls, and "
        "content '' and tool_calls [] elsewhere; gateway-only: OpenRouter relaying Novita "
        "(llm/test_tools_streaming_variant_a.yaml), Groq through Portkey "
        "(Portkey-AI/gateway#1338)"
    ),
    "null_fields": (
        "every field a delta lacks sent as null: content, tool_calls and refusal, a call "
        "header's arguments, a continuation's id, type and function name; gateway-only: "
        "Writer's API (openllmetry test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml)"
    ),
    "usage_on_finish_chunk": (
        "usage null on every chunk and the real usage on the finish chunk, no usage chunk of "
        "its own; gateway-only: DeepSeek, Groq (vercel-ai deepseek-tool-call.chunks.txt, "
        "groq-tool-call.chunks.txt)"
    ),
    "error_event_line": (
        "an error mid-stream sent with an 'event: error' line before its data, and no [DONE]; "
        "gateway-only: Groq (pydantic-ai test_tool_use_failed_error_streaming.yaml)"
    ),
    "empty_content_deltas": (
        "an empty content delta ('') before each tool call; gateway-only: Ollama "
        "(pydantic/pydantic-ai#2256)"
    ),
    "finish_on_last_delta": (
        "finish_reason on the chunk of the last text or argument fragment, no finish chunk of "
        "its own; gateway-only: vLLM, llm-d's simulator (vllm-project/vllm#36944, "
        "llm-d/llm-d-inference-sim#545)"
    ),
    "whole_call_with_finish": (
        "each call whole in one chunk, the last one carrying finish_reason; gateway-only: "
        "OpenRouter relaying Gemini, Dynamo (OpenRouterTeam/ai-sdk-provider#166, "
        "ai-dynamo/dynamo#10988)"
    ),
    "calls_in_one_chunk": (
        "all the message's calls whole in one chunk; gateway-only: Ollama through LiteLLM, "
        "merged terminal chunks (BerriAI/litellm#3469, ranxianglei/billion-context#432)"
    ),
    "text_with_call_start": (
        "the last text fragment and the first call's start in one delta; gateway-only: "
        "DeepSeek on Volcengine, other compatible servers (karthink/gptel#799, "
        "earendil-works/pi#4228)"
    ),
    "interleaved_fragments": (
        "every call's header first, then the parallel calls' argument fragments in turn across "
        "indices; gateway-only: gateways that relay parallel calls streamed side by side "
        "(mcowger/plexus#694), met by clients fixed for it (QwenLM/Qwen-Agent#943, "
        "continuedev/continue#13223)"
    ),
    "empty_delta_mid_call": (
        "a chunk whose delta is empty between a call's argument fragments; gateway-only: "
        "vmlx's OpenAI-compatible server while it generates a call (jjang-ai/vmlx#219)"
    ),
    "empty_choices_mid_call": (
        "a chunk with an empty choices list (usage null) between a call's argument fragments; "
        "gateway-only: OpenAI sends such chunks around a call (microsoft/agent-framework#6417), "
        "and OpenAI-compatible servers send chunks without tool_calls amid a call's "
        "fragments (aaif-goose/goose#6312)"
    ),
}

#: the quirks after which no chunk tells a driver that a call is complete before the finish
PER_MESSAGE_QUIRKS = frozenset({"interleaved_fragments"})

#: the quirks that send each call whole in one chunk
_WHOLE = frozenset({"whole_call_one_chunk", "whole_call_with_finish", "calls_in_one_chunk"})

#: what Azure OpenAI says about a prompt or an answer that passed its content filter
_FILTER_RESULTS = {
    kind: {"filtered": False, "severity": "safe"}
    for kind in ("hate", "self_harm", "sexual", "violence")
}
_USAGE = {"prompt_tokens": 12, "completion_tokens": 42, "total_tokens": 54}

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
    message_id: str,
    delta: dict[str, Any],
    origin: int,
    finish: str | None = None,
    quirks: frozenset[str] = frozenset(),
    carries: bool = True,
) -> WireChunk:
    delta = _dress_delta(delta, quirks)
    choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    payload = {
        "id": message_id,
        "object": "chat.completion.chunk",
        "created": 1732000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [choice],
    }
    if "include_usage" in quirks:
        payload |= {"service_tier": "default", "system_fingerprint": "fp_harness", "usage": None}
    if "usage_on_finish_chunk" in quirks:
        payload["usage"] = _USAGE if finish else None
    return _data(payload, origin, quirks, carries)


def _no_choices(message_id: str) -> dict[str, Any]:
    """A chunk without a choice: what some servers send amid a stream (usage null)."""
    return {
        "id": message_id,
        "object": "chat.completion.chunk",
        "created": 1732000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [],
        "usage": None,
    }


def _data(
    payload: dict[str, Any], origin: int, quirks: frozenset[str], carries: bool = True
) -> WireChunk:
    if "obfuscation" in quirks:
        seed = json_text(payload, (", ", ": "), ensure_ascii=True)  # json.dumps(payload)
        payload = {**payload, "obfuscation": _obfuscation(seed)}
    return WireChunk(sse_data(payload, quirks), origin, carries)


def _dress_delta(delta: dict[str, Any], quirks: frozenset[str]) -> dict[str, Any]:
    """The delta with the fields some servers add to every one."""
    if "role_every_chunk" in quirks:
        delta = {"role": "assistant", **delta}
        if "tool_calls" in delta:
            delta.setdefault("content", None)
        else:
            delta = {"content": "", **delta, "tool_calls": []}
    if "null_fields" in quirks:
        delta = {"content": None, "tool_calls": None, "refusal": None, **delta}
        if delta["tool_calls"]:
            delta["tool_calls"] = [_null_call_fields(call) for call in delta["tool_calls"]]
    return delta


def _null_call_fields(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    if "id" in call:  # a header: no arguments yet is null
        function["arguments"] = function.get("arguments") or None
        return {**call, "function": function}
    return {**call, "id": None, "type": None, "function": {"name": None, **function}}


def _obfuscation(seed: str) -> str:
    """Deterministic padding like the real field's (a random string that evens out lengths)."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(letters[b % len(letters)] for b in digest[: 2 + len(seed) % 14])


def _error_chunk(event: dv.StreamError, origin: int, quirks: frozenset[str]) -> WireChunk:
    """An error object in a data line, as OpenAI sends one mid-stream (Groq names the event)."""
    error = {"message": event.message, "type": event.error_type, "param": None, "code": None}
    data = json.dumps({"error": error}, separators=(",", ":"))
    line = "event: error\n" if "error_event_line" in quirks else ""
    return WireChunk(f"{line}data: {data}\n\n", origin)


def _prompt_filter_chunk(origin: int, quirks: frozenset[str]) -> WireChunk:
    """Azure's first chunk: what its filter found in the prompt, and no choice."""
    payload = {
        "id": "",
        "choices": [],
        "created": 0,
        "model": "",
        "object": "",
        "system_fingerprint": None,
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": _FILTER_RESULTS}],
    }
    return _data(payload, origin, quirks, carries=False)


def _content_filter_chunk(origin: int, quirks: frozenset[str]) -> WireChunk:
    """Azure's late verdict on the answer: a choice without a delta."""
    choice = {
        "finish_reason": None,
        "index": 0,
        "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 120},
        "content_filter_results": _FILTER_RESULTS,
    }
    payload = {"id": "", "choices": [choice], "created": 0, "model": "", "object": ""}
    return _data(payload, origin, quirks, carries=False)


class OpenAIChatCodec:
    name = "openai-chat"
    quirks = QUIRKS
    per_message_quirks = PER_MESSAGE_QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
        if cycles > 1:
            return "a Chat Completions stream carries one message cycle; this turn has several"
        if any(isinstance(e, dv.Ping) for e in turn):
            return "Chat Completions streams have no ping events"
        kinds = [e.block for e in turn if isinstance(e, dv.BlockStart)]
        if any(a == b != "tool_use" for a, b in itertools.pairwise(kinds)):
            return "two text (or thinking) blocks in a row read as one in Chat Completions"
        if "server_tool_use" in kinds:
            return "Chat Completions has no server-side tools"
        if any(isinstance(e, dv.ArgumentsDelta) and not e.fragment for e in turn):
            return "an empty argument fragment leaves no trace in Chat Completions"
        if "interleaved_fragments" in quirks and {"same_index", "no_index"} & set(quirks):
            return "interleaved fragments are told apart only by their calls' distinct indices"
        held = {"whole_call_with_finish", "calls_in_one_chunk"} & set(quirks)
        if held and any(isinstance(e, dv.StreamError) for e in turn):
            return (
                f"{' and '.join(sorted(held))} hold calls back for the chunk that ends the "
                "message; a stream that fails has no such chunk to send them in"
            )
        if _error_after_call(turn, frozenset(quirks)):
            return (
                "Chat Completions tells that a call is complete only by what follows it (the "
                "next call, the finish): an error right after a call leaves it unfinished there"
            )
        return _one_call_at_a_time(turn)

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        whole = bool(quirks & _WHOLE)
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
                        quirks=quirks,
                    )
                )
            pending_whole.clear()

        role_at = -1  # where the role chunk is in out, while nothing has followed it
        role: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
        if "role_chunk_first_call" in quirks:
            role = {"role": "assistant", "content": None}
        for i, event in enumerate(turn):
            if "keep_alive" in quirks and out:
                out.append(WireChunk(line_ends(": keep-alive\n\n", quirks), i, carries=False))
            if isinstance(event, dv.CycleStart):
                message_id = event.message_id
                if "prompt_filter_first_chunk" in quirks:
                    out.append(_prompt_filter_chunk(i, quirks))
                out.append(_chunk(message_id, role, i, quirks=quirks))
                role_at = len(out) - 1
            elif isinstance(event, dv.TextDelta):
                out.append(_chunk(message_id, {"content": event.text}, i, quirks=quirks))
            elif isinstance(event, dv.ThinkingDelta):
                out.append(_chunk(message_id, {"reasoning_content": event.text}, i, quirks=quirks))
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
                if "empty_content_deltas" in quirks:
                    out.append(_chunk(message_id, {"content": ""}, i, quirks=quirks, carries=False))
                if not whole:
                    header = {"tool_calls": [self._call_delta(call, quirks, first=True)]}
                    if "role_chunk_first_call" in quirks and role_at == len(out) - 1:
                        # the message opens with this call: the role chunk carries its header
                        out[role_at] = _chunk(
                            message_id, {**role, **header, "refusal": None}, i, quirks=quirks
                        )
                        role_at = -1
                    else:
                        out.append(_chunk(message_id, header, i, quirks=quirks))
            elif isinstance(event, dv.ArgumentsDelta) and event.index in calls:
                call = calls[event.index]
                call["parts"].append(event.fragment)
                if not whole:
                    delta = self._call_delta(call, quirks, first=False, fragment=event.fragment)
                    out.append(_chunk(message_id, {"tool_calls": [delta]}, i, quirks=quirks))
                    if "empty_delta_mid_call" in quirks and _continues(turn, i):
                        out.append(_chunk(message_id, {}, i, quirks=quirks, carries=False))
                    if "empty_choices_mid_call" in quirks and _continues(turn, i):
                        out.append(_data(_no_choices(message_id), i, quirks, carries=False))
            elif isinstance(event, dv.BlockStop) and event.index in calls and whole:
                # the whole call goes out when it ends but belongs to its start: a driver only
                # learns that it is complete from the chunk after it
                pending_whole.append((calls[event.index]["start"], calls[event.index]))
                flush_whole()
            elif isinstance(event, dv.CycleDelta):
                finish = _FINISH[event.stop_reason]
                if finish == "tool_calls" and "finish_stop_with_tools" in quirks:
                    finish = "stop"
                out.append(_chunk(message_id, {}, i, finish, quirks))
                if "content_filter_trailing_chunk" in quirks:
                    out.append(_content_filter_chunk(i, quirks))
            elif isinstance(event, dv.StreamError):
                out.append(_error_chunk(event, i, quirks))
                break  # the stream ends with the error
            elif isinstance(event, dv.CycleStop):
                if "usage_chunk" in quirks or "include_usage" in quirks:
                    usage: dict[str, Any] = {
                        "id": message_id,
                        "object": "chat.completion.chunk",
                        "choices": [],
                        "usage": _USAGE,
                    }
                    if "include_usage" in quirks:
                        usage |= {"service_tier": "default", "system_fingerprint": "fp_harness"}
                    out.append(_data(usage, i, quirks))
                if "no_done" not in quirks:
                    out.append(WireChunk(line_ends("data: [DONE]\n\n", quirks), i))
        if "interleaved_fragments" in quirks:
            out = _interleaved(out, turn)
        return tuple(_coalesced(out, quirks))

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

    #: the quirks that send another stop reason than the turn's: quirk -> (the turn's, sent)
    reason_quirks: ClassVar[Mapping[str, tuple[str, str]]] = {
        "finish_stop_with_tools": ("tool_use", "end_turn")
    }
    #: the quirks that give a call another id on later chunks (``later_ids``)
    changes_ids = frozenset({"id_changes"})

    def later_ids(self, chunks: Sequence[dv.WireChunk]) -> dict[str, str]:
        """Each call whose later chunks carry another id: its first id -> the last one."""
        reader = _Reader("stream", 0)
        body = "".join(chunk.data for chunk in chunks)
        try:
            for event in parse_sse(body, source="stream"):
                if reader.chunk(json_data(event), event.line):
                    break
        except (WireError, KeyError, TypeError, AttributeError):
            pass  # a stream the decoder refuses: the ids it read so far
        return reader.later

    def decode(
        self, body: str, *, source: str, choice: int | None = None
    ) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded stream. Chunks with empty ``choices`` (usage) are
        skipped; a stream without ``[DONE]`` ends its message anyway; a call delta without
        ``index`` continues the last call unless it carries a new id. A stream of several
        choices (``n > 1``) is several answers at once, not one turn: it is a ``WireError`` at
        the first chunk of another choice, unless ``choice`` picks the one to read. A chunk of
        the wrong shape is a ``WireError`` at its line."""
        reader = _Reader(source, choice)
        for event in parse_sse(body, source=source):
            data = json_data(event)
            try:
                if reader.chunk(data, event.line):
                    break
            except (KeyError, TypeError, AttributeError) as exc:
                what = "this chunk does not have the chat.completion.chunk shape"
                raise misshapen(exc, what, source, event.line) from None
        return reader.finish()


class _Reader:
    """Chat Completions chunks to canonical events, one chunk at a time."""

    def __init__(self, source: str, choice: int | None) -> None:
        self.source, self.choice = source, choice
        self.out: list[dv.TurnEvent] = []
        self.started = self.stopped = False
        self.text_index: int | None = None
        self.thinking_index: int | None = None
        self.by_key: dict[Any, int] = {}  # the stream's call key -> block index
        self.ids: dict[int, str] = {}  # block index -> call id
        self.later: dict[str, str] = {}  # a call's id -> another id its later chunks carry
        self.open_blocks: list[int] = []
        self.next_index = 0
        self.last_line = 1

    def new_block(self, kind: dv.BlockKind, line: int, **extra: str) -> int:
        index = self.next_index
        self.next_index += 1
        self.out.append(dv.BlockStart(index=index, block=kind, line=line, **extra))
        self.open_blocks.append(index)
        return index

    def close_blocks(self, line: int) -> None:
        for index in self.open_blocks:
            self.out.append(dv.BlockStop(index=index, line=line))
        self.open_blocks.clear()
        self.text_index = self.thinking_index = None

    def chunk(self, data: Any, line: int) -> bool:
        """Read one chunk; True at [DONE]."""
        source = self.source
        self.last_line = line
        if data is DONE:
            self.close_blocks(line)
            self.out.append(dv.CycleStop(line=line))
            self.stopped = True
            return True
        need(data, dict, "a chunk", source, line)
        if "error" in data:
            error = data["error"]
            if not isinstance(error, dict):
                error = {"message": error}
            if not self.started:
                self.out.append(dv.CycleStart(message_id="", line=line))
                self.started = True
            self.out.append(
                dv.StreamError(
                    error_type=str(error.get("type") or error.get("code") or ""),
                    message=str(error.get("message", "")),
                    line=line,
                )
            )
            self.stopped = True  # the stream ends with the error: nothing is closed
            return True
        if not self.started:
            self.out.append(dv.CycleStart(message_id=str(data.get("id", "")), line=line))
            self.started = True
        elif (
            data.get("id") and isinstance(self.out[0], dv.CycleStart) and not self.out[0].message_id
        ):
            # a first chunk without an id (Azure's prompt filter results): the next one has it
            self.out[0] = dv.CycleStart(message_id=str(data["id"]), line=self.out[0].line)
        for entry in need(data.get("choices") or [], list, "choices", source, line):
            need(entry, dict, "a choice", source, line)
            index = entry.get("index", 0)
            if self.choice is None and index != 0:
                raise WireError(
                    source,
                    line,
                    f"this chunk is of choice {index!r}: the stream holds several choices "
                    "(a request with n > 1), several answers at once, not one turn; a driver "
                    "scenario needs a stream of one choice",
                )
            if self.choice is not None and index != self.choice:
                continue
            delta = need(entry.get("delta") or {}, dict, "delta", source, line)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                need(reasoning, str, "reasoning_content", source, line)
                if self.thinking_index is None:
                    self.close_blocks(line)
                    self.thinking_index = self.new_block("thinking", line)
                self.out.append(
                    dv.ThinkingDelta(index=self.thinking_index, text=reasoning, line=line)
                )
            if delta.get("content"):
                content = need(delta["content"], str, "content", source, line)
                if self.text_index is None:
                    self.close_blocks(line)  # text after thinking or a call: they are done
                    self.text_index = self.new_block("text", line)
                self.out.append(dv.TextDelta(index=self.text_index, text=content, line=line))
            for call in need(delta.get("tool_calls") or [], list, "tool_calls", source, line):
                self.call_delta(need(call, dict, "a tool call delta", source, line), line)
            if entry.get("finish_reason"):
                self.close_blocks(line)
                reason = _REASON.get(
                    need(entry["finish_reason"], str, "finish_reason", source, line), "end_turn"
                )
                self.out.append(dv.CycleDelta(stop_reason=dv.stop_reason(reason), line=line))
        return False

    def call_delta(self, call: dict[str, Any], line: int) -> None:
        source = self.source
        function = need(call.get("function") or {}, dict, "function", source, line)
        key = call.get("index", "last")
        if key != "last":
            need(key, int, "a tool call's index", source, line)
            known = self.by_key.get(key)
        else:
            known = self.open_blocks[-1] if self.open_blocks else None
        call_id = call.get("id") or ""
        begins = bool(call_id and function.get("name") and call.get("type") == "function")
        # a new call: an unknown key, or a full call header with another id at a used key
        if known is None or (begins and self.ids.get(known) != call_id):
            self.close_blocks(line)
            name = need(function.get("name") or "", str, "a function name", source, line)
            known = self.new_block(
                "tool_use", line, id=need(call_id, str, "a call id", source, line), name=name
            )
            self.by_key[key] = known
            self.ids[known] = call_id
        elif call_id and self.ids.get(known) and call_id != self.ids[known]:
            self.later[self.ids[known]] = call_id  # the call's id changed (id_changes)
        arguments = function.get("arguments")
        if arguments:
            fragment = need(arguments, str, "function arguments", source, line)
            delta = dv.ArgumentsDelta(index=known, fragment=fragment, line=line)
            late = self.late_fragment_at(known)
            if late is None:
                self.out.append(delta)
            else:
                self.out.insert(late, delta)

    def late_fragment_at(self, call: int) -> int | None:
        """Where a fragment of a call that a later call's header closed goes (interleaved
        fragments): before that call's stop, when only the message's other calls came since, so
        the turn is the one of calls in turn that the interleaved wire was sent from."""
        if call in self.open_blocks:
            return None
        for at in range(len(self.out) - 1, -1, -1):
            event = self.out[at]
            if isinstance(event, dv.BlockStop) and event.index == call:
                return at
            if (
                not isinstance(event, (dv.BlockStart, dv.ArgumentsDelta, dv.BlockStop))
                or event.index not in self.ids
            ):
                return None  # something else came since the call's end: the fragment stays late
        return None

    def finish(self) -> tuple[dv.TurnEvent, ...]:
        if self.started and not self.stopped:
            self.close_blocks(self.last_line)
            self.out.append(dv.CycleStop(line=self.last_line))
        return tuple(self.out)


def _interleaved(chunks: list[WireChunk], turn: Sequence[dv.TurnEvent]) -> list[WireChunk]:
    """The message's calls sent side by side: from the first call chunk to the last, one chunk
    of each call in turn (every header, then every first fragment, and so on), each chunk
    without content kept behind the one before it. Once a later call's header is read the
    turn is told past the earlier calls' ends, though their fragments still come: each chunk
    is told up to the furthest event read so far and carries its own (``WireChunk.event``)."""
    owners: list[int | None] = []
    for chunk in chunks:
        event = turn[chunk.origin] if chunk.carries else None
        owned = (isinstance(event, dv.BlockStart) and event.block == "tool_use") or isinstance(
            event, dv.ArgumentsDelta
        )
        owners.append(event.index if owned and '"tool_calls"' in chunk.data else None)  # type: ignore[union-attr]
    span = [at for at, owner in enumerate(owners) if owner is not None]
    if not span:
        return chunks
    first, last = span[0], span[-1]
    groups: dict[int, list[list[WireChunk]]] = {}  # call -> its chunks, each with its filler
    for at in range(first, last + 1):
        owner = owners[at]
        if owner is not None:
            groups.setdefault(owner, []).append([chunks[at]])
        elif chunks[at].carries:
            return chunks  # something else amid the calls: nothing to send side by side
        else:
            groups[owners[max(a for a in span if a < at)]][-1].append(chunks[at])  # type: ignore[index]
    mixed: list[WireChunk] = []
    for turn_of in itertools.zip_longest(*groups.values()):
        for piece in turn_of:
            mixed.extend(piece or ())
    if mixed == chunks[first : last + 1]:
        return chunks  # one call, or calls without fragments: nothing comes out of order
    told = max((c.origin for c in chunks[:first] if c.carries), default=-1)
    for at, chunk in enumerate(mixed):
        if not chunk.carries:
            continue  # framing: it tells nothing of the turn wherever it goes
        told = max(told, chunk.carried)
        if chunk.origin != told:
            carried = chunk.carried
            mixed[at] = WireChunk(chunk.data, told, True, -1 if carried == told else carried)
    return [*chunks[:first], *mixed, *chunks[last + 1 :]]


def _continues(turn: Sequence[dv.TurnEvent], i: int) -> bool:
    """The argument fragment at ``i`` is followed by another of the same call."""
    this, after = turn[i], turn[i + 1] if i + 1 < len(turn) else None
    return (
        isinstance(this, dv.ArgumentsDelta)
        and isinstance(after, dv.ArgumentsDelta)
        and after.index == this.index
    )


# -- coalesced chunks: what the encoder wrote one event per chunk, joined as servers join it ----


def _coalesced(chunks: list[WireChunk], quirks: frozenset[str]) -> list[WireChunk]:
    """The chunks with neighbours joined as the coalescing quirks ask: the last text fragment
    with the first call's start, the message's whole calls with each other, the last fragment
    (or whole call) with the finish. A joined chunk tells the turn up to the later of its
    events and carries the content among them (``WireChunk.event``)."""
    if "text_with_call_start" in quirks:
        _join(chunks, quirks, lambda a, b: _has_text(a) and not _has_calls(a) and _starts_call(b))
    if "calls_in_one_chunk" in quirks:
        _join(chunks, quirks, lambda a, b: _has_calls(a) and not _has_text(a) and _starts_call(b))
    if "finish_on_last_delta" in quirks or "whole_call_with_finish" in quirks:
        _join(chunks, quirks, lambda a, b: (_has_text(a) or _has_calls(a)) and _only_finish(b))
    return chunks


def _choice(chunk: WireChunk) -> dict[str, Any] | None:
    """The choice of a chunk that carries one (not a comment, [DONE], usage or filler)."""
    if not chunk.carries or not chunk.data.startswith("data: {"):
        return None
    choices = json.loads(chunk.data[len("data: ") :]).get("choices") or []
    return choices[0] if choices and "delta" in choices[0] else None


def _has_text(choice: dict[str, Any]) -> bool:
    return bool(choice["delta"].get("content")) and not choice.get("finish_reason")


def _has_calls(choice: dict[str, Any]) -> bool:
    return bool(choice["delta"].get("tool_calls")) and not choice.get("finish_reason")


def _starts_call(choice: dict[str, Any]) -> bool:
    calls = choice["delta"].get("tool_calls") or []
    return bool(calls) and calls[0].get("type") == "function"


def _only_finish(choice: dict[str, Any]) -> bool:
    delta = choice["delta"]
    return bool(choice.get("finish_reason")) and not (
        delta.get("content") or delta.get("tool_calls")
    )


def _join(chunks: list[WireChunk], quirks: frozenset[str], joins: Any) -> None:
    """Join, in place, each chunk with the next one that carries a choice when ``joins`` says
    so; the joined chunk takes the later one's place (what came between now comes before it)."""
    previous: int | None = None
    at = 0
    while at < len(chunks):
        choice = _choice(chunks[at])
        if choice is None:
            at += 1
            continue
        if previous is not None and joins(_choice(chunks[previous]), choice):
            chunks[at] = _joined(chunks[previous], chunks[at], quirks)
            del chunks[previous]
            at -= 1
        previous = at
        at += 1


def _joined(a: WireChunk, b: WireChunk, quirks: frozenset[str]) -> WireChunk:
    first, second = (json.loads(c.data[len("data: ") :]) for c in (a, b))
    choice_a, choice_b = first["choices"][0], second["choices"][0]
    choice = {
        **choice_a,
        "delta": _joined_delta(choice_a["delta"], choice_b["delta"]),
        "finish_reason": choice_b.get("finish_reason") or choice_a.get("finish_reason"),
    }
    payload = {**first, "choices": [choice]}
    if second.get("usage"):
        payload["usage"] = second["usage"]
    payload.pop("obfuscation", None)
    # the content of the two: the later one's, unless it carries none (the finish)
    carried = a.carried if _only_finish(choice_b) else b.carried
    origin = max(a.origin, b.origin)
    chunk = _data(payload, origin, quirks)
    return WireChunk(chunk.data, origin, True, -1 if carried == origin else carried)


def _joined_delta(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        out.setdefault(key, value)
    for key in ("content", "reasoning_content"):
        if a.get(key) or b.get(key):
            out[key] = (a.get(key) or "") + (b.get(key) or "")
    calls = [dict(c) for c in a.get("tool_calls") or []]
    for call in b.get("tool_calls") or []:
        if calls and call.get("type") != "function":
            # a continuation joins the entry of its call (the last one: one call at a time)
            last = calls[-1]
            function = dict(last.get("function") or {})
            fragment = (call.get("function") or {}).get("arguments") or ""
            function["arguments"] = (function.get("arguments") or "") + fragment
            calls[-1] = {**last, "function": function}
        else:
            calls.append(call)
    if calls:
        out["tool_calls"] = calls
    return out


def _error_after_call(turn: Sequence[dv.TurnEvent], quirks: frozenset[str]) -> bool:
    """The server's error comes after a call's end with nothing on the wire in between (under
    ``whole_call_one_chunk`` a call's start and fragments write nothing until it ends)."""
    calls = {e.index for e in turn if isinstance(e, dv.BlockStart) and e.block == "tool_use"}
    errors = [n for n, e in enumerate(turn) if isinstance(e, dv.StreamError)]
    if not errors:
        return False
    for event in reversed(turn[: errors[0]]):
        unwritten = "whole_call_one_chunk" in quirks and (
            (isinstance(event, dv.BlockStart) and event.index in calls)
            or isinstance(event, dv.ArgumentsDelta)
        )
        if not unwritten:
            return isinstance(event, dv.BlockStop) and event.index in calls
    return False


def _one_call_at_a_time(turn: Sequence[dv.TurnEvent]) -> str | None:
    """A Chat Completions message is one content string and a list of tool calls, streamed in
    that order, one call at a time: text after a call, or fragments of a call after the next
    one started, are shapes its servers do not send."""
    latest: int | None = None
    for event in turn:
        if isinstance(event, dv.BlockStart) and event.block == "tool_use":
            latest = event.index
        elif (
            isinstance(event, (dv.TextDelta, dv.ThinkingDelta))
            and event.text
            and latest is not None
        ):
            return "Chat Completions streams the text before the tool calls; text after a call has no place"
        elif isinstance(event, dv.ArgumentsDelta) and latest is not None and event.index != latest:
            return "Chat Completions streams one call at a time; these calls' fragments interleave"
    return None
