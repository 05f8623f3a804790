"""The Chat Completions reference driver with one bug each about what a chunk can hold: a
chunk that finishes the message and still carries content, a delta with text and a call, a
delta with several calls, a chunk with no call in the middle of one, and arguments with data
after their JSON value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import OpenAIChatDriver
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput, ToolCallOut

mutant = mutant_registrar("driver")


@mutant(
    "openai-finish-skips-chunk",
    "finish_reason is handled first and the rest of its chunk skipped, so the last fragment "
    "or whole call that a server sends beside the finish is lost.",
)
class FinishSkipsChunk(OpenAIChatDriver):
    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        if choice.get("finish_reason"):
            return super().choice({"finish_reason": choice["finish_reason"]})  # the bug
        return super().choice(choice)


@mutant(
    "openai-content-or-calls",
    "A delta is read as text or as tool calls, not both: the calls of a delta that also "
    "carries text are skipped.",
)
class ContentOrCalls(OpenAIChatDriver):
    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        delta = choice.get("delta") or {}
        if delta.get("content") and delta.get("tool_calls"):
            delta = {k: v for k, v in delta.items() if k != "tool_calls"}  # the bug
        return super().choice({**choice, "delta": delta})


@mutant(
    "openai-first-call-per-delta",
    "Only tool_calls[0] of each delta is read, so when a server sends several calls in one "
    "chunk all but the first are lost.",
)
class FirstCallPerDelta(OpenAIChatDriver):
    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        delta = choice.get("delta") or {}
        if delta.get("tool_calls"):
            delta = {**delta, "tool_calls": delta["tool_calls"][:1]}  # the bug
        return super().choice({**choice, "delta": delta})


@mutant(
    "openai-empty-delta-ends-call",
    "A chunk whose delta has no tool_calls is taken as the end of the open call, so a call "
    "with an empty delta between its fragments is emitted before its arguments are complete.",
)
class EmptyDeltaEndsCall(OpenAIChatDriver):
    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        if not (choice.get("delta") or {}).get("tool_calls"):
            yield from self.complete()  # the bug: no call in this chunk, so the call is over
        yield from super().choice(choice)


@mutant(
    "openai-no-choices-ends-call",
    "A chunk without choices (the empty list some servers send, with usage or without) is taken "
    "as the end of the open call, so a call with such a chunk between its fragments is emitted "
    "before its arguments are complete.",
)
class NoChoicesEndsCall(OpenAIChatDriver):
    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.ended = False

        def watched() -> Iterator[str]:
            for chunk in chunks:
                if '"choices":[]' in chunk.replace(" ", ""):
                    self.ended = True  # the bug: no choice in this chunk, so the call is over
                yield chunk

        yield from super().response(watched())

    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        if self.ended:
            self.ended = False
            yield from self.complete()
        yield from super().choice(choice)


@mutant(
    "openai-first-json-value",
    "Arguments are validated by decoding their first JSON value (json.JSONDecoder.raw_decode), "
    "so a text with data after a complete object is reported valid.",
)
class FirstJsonValue(OpenAIChatDriver):
    def complete(self) -> Iterator[DriverOutput]:
        for output in super().complete():
            if isinstance(output, ToolCallOut) and not output.valid:
                output = ToolCallOut(
                    output.id,
                    output.name,
                    output.arguments,
                    _first_value_is_object(output.arguments),
                )
            yield output


def _first_value_is_object(text: str) -> bool:
    try:
        value, _ = json.JSONDecoder().raw_decode(text.lstrip())
    except ValueError:
        return False
    return isinstance(value, dict)
