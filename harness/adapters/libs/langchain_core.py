"""``langchain-core``'s ``AIMessageChunk`` merging (``+``) over OpenAI Chat Completions, as
LangChain's OpenAI chat model streams it.

The ``openai`` client reads the body through an offline transport, cut anywhere, and each chunk
it yields is dumped to a dict and made an ``AIMessageChunk`` with its ``tool_call_chunks``
(name, args, id, index as the delta gives them), as ``langchain-openai`` does; the chunks are
summed as they arrive. LangChain acts on the whole message: the summed message's
``tool_calls`` (arguments parsed by LangChain, reported as JSON text and valid) and
``invalid_tool_calls`` (raw arguments, invalid) come out when the stream ends; text comes out
chunk by chunk; the turn's end with the summed message's ``finish_reason``, if it has one (a
body cut before its choice finished has none). A server's error object raises from the client.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import FINISH_REASONS
from harness.adapters.libs import require
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.adapters.libs.openai_chat import offline_client
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def message_chunk(data: dict[str, Any]) -> Any:
    """One Chat Completions chunk (a dict) as an ``AIMessageChunk``, of its first choice."""
    from langchain_core.messages import AIMessageChunk
    from langchain_core.messages.tool import tool_call_chunk

    for choice in (data.get("choices") or ())[:1]:
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
    #: the OpenAI client reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the library acts on the whole message when its choice finishes
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        sdk = offline_client(chunks)
        messages = [{"role": "user", "content": "go"}]
        message = None
        with sdk.chat.completions.create(model="gpt-4o", messages=messages, stream=True) as stream:
            for completion_chunk in stream:
                chunk = message_chunk(completion_chunk.model_dump())
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
    require("langchain_core", "openai")
    return LangChainMessageChunks()
