"""``langchain-core``'s ``AIMessageChunk`` merging (``+``) over OpenAI Chat Completions chunks.

Each chunk's delta becomes an ``AIMessageChunk`` with its ``tool_call_chunks`` (name, args, id,
index), as a chat model integration builds it; the chunks are summed as they arrive. LangChain
acts on the whole message: the summed message's ``tool_calls`` (arguments parsed by LangChain,
reported as JSON text and valid) and ``invalid_tool_calls`` (raw arguments, invalid) come out when
the stream ends (``[DONE]``, where the OpenAI client stops, or the end of the body); text comes out
chunk by chunk; the turn's end with the summed message's ``finish_reason``, if it has one. An
error object mid-stream raises, as the OpenAI client under a LangChain chat model does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import FINISH_REASONS, closing, events
from harness.adapters.libs import require
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.model.driver import DriverOutput, TextOut, ToolCallOut
from harness.wire import DONE


def message_chunk(data: dict[str, Any]) -> Any:
    """One Chat Completions chunk as an ``AIMessageChunk`` (choice 0)."""
    from langchain_core.messages import AIMessageChunk
    from langchain_core.messages.tool import tool_call_chunk

    for choice in data.get("choices") or ():
        if choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta") or {}
        calls = [
            tool_call_chunk(
                name=(call.get("function") or {}).get("name"),
                args=(call.get("function") or {}).get("arguments"),
                id=call.get("id"),
                index=call.get("index"),
            )
            for call in delta.get("tool_calls") or ()
        ]
        metadata = {"finish_reason": choice["finish_reason"]} if choice.get("finish_reason") else {}
        return AIMessageChunk(
            content=delta.get("content") or "", tool_call_chunks=calls, response_metadata=metadata
        )
    return AIMessageChunk(content="")  # a usage chunk


class LangChainMessageChunks:
    layers = ("driver",)
    dialect = "openai-chat"
    #: the library acts on the whole message when its choice finishes
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.read(chunks))

    def read(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        message = None
        for _, data in events(chunks):
            if data is DONE:
                break
            if isinstance(data, dict) and "error" in data:
                # the OpenAI client under a LangChain chat model raises on an error object
                raise RuntimeError(f"the stream reports an error: {data['error']}")
            chunk = message_chunk(data)
            if chunk.content:
                yield TextOut(chunk.content)
            message = chunk if message is None else message + chunk
        if message is None:
            return
        for call in message.tool_calls:
            yield ToolCallOut(call["id"] or "", call["name"], arguments_text(call["args"]), True)
        for bad in message.invalid_tool_calls:
            yield ToolCallOut(bad["id"] or "", bad["name"] or "", bad["args"] or "", False)
        reason = message.response_metadata.get("finish_reason")
        if reason is not None:  # none: the body ended before the choice finished
            yield turn_end(reason, FINISH_REASONS)


def make_adapter() -> LangChainMessageChunks:
    require("langchain_core")
    return LangChainMessageChunks()
