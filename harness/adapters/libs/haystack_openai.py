"""Haystack's ``OpenAIChatGenerator.run`` with a ``streaming_callback``, over an ``openai.OpenAI``
client whose offline transport serves the body, cut anywhere.

``run`` blocks until the stream is done and hands each ``StreamingChunk`` to the callback as it
goes; ``harness.adapters.bridge.drive_blocking`` runs it in a worker thread and reports each
output at the read that produced it. What its user acts on: the chunks' ``content`` as it
comes, and, from the reply ``run`` returns, its ``tool_calls`` (the callback hands over only
fragments of calls, ``ToolCallDelta``, so the calls come per message) with the arguments
Haystack parsed (reported as JSON text, valid when they are an object), and the turn's end from
the reply's ``meta["finish_reason"]`` (none when the body ended before one). The SDK raises on
an error object mid-stream, and ``run`` with it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from harness.adapters.bridge import drive_blocking
from harness.adapters.driver.reference import FINISH_REASONS
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.adapters.libs.openai_chat import client
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def reply_outputs(replies: Iterable[Any]) -> Iterator[DriverOutput]:
    """The calls and the turn's end that ``run``'s replies hand over."""
    for reply in replies:
        for call in reply.tool_calls:
            valid = isinstance(call.arguments, dict)
            yield ToolCallOut(call.id or "", call.tool_name, arguments_text(call.arguments), valid)
        reason = reply.meta.get("finish_reason")
        if reason is not None:
            yield turn_end(reason, FINISH_REASONS)


class HaystackChatGenerator:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the calls come with the reply ``run`` returns
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        yield from drive_blocking(self.run, chunks)

    def run(
        self, reads: Iterator[bytes], emit: Callable[[DriverOutput], None]
    ) -> Iterator[DriverOutput]:
        import openai
        from haystack.components.generators.chat import OpenAIChatGenerator
        from haystack.dataclasses import ChatMessage, StreamingChunk
        from haystack.utils import Secret

        def on_chunk(chunk: StreamingChunk) -> None:
            if chunk.content:
                emit(TextOut(chunk.content))

        generator = OpenAIChatGenerator(api_key=Secret.from_token("offline"), model="gpt-4o")
        # built before run() so that its warm_up() keeps it
        generator.client = client(http_client=sync_client(openai.DefaultHttpxClient, reads))
        result = generator.run([ChatMessage.from_user("go")], streaming_callback=on_chunk)
        return reply_outputs(result["replies"])


def make_adapter() -> HaystackChatGenerator:
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    # a warning per skipped call would fill a matrix run's output: the reply is what is judged
    logging.getLogger("haystack").setLevel(logging.ERROR)
    require("haystack", "openai", extra="haystack")
    return HaystackChatGenerator()
