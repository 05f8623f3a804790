"""The reference drivers with one bug each in how they meet a stream that fails: the server's
error event, or a body that ends before the turn does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import (
    AnthropicAgentDriver,
    OpenAIChatDriver,
    closing,
    events,
)
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput, ErrorReport, ToolCallOut, TurnEnd

mutant = mutant_registrar("driver")


@mutant(
    "anthropic-ignores-error-events",
    "An error event is skipped like any unknown event, and when the body then ends before the "
    "turn does the turn is reported finished (end_turn), so a failed turn reads as a complete "
    "answer.",
)
class IgnoresErrorEvents(AnthropicAgentDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().turn(_without_errors(chunks)):
            if isinstance(output, ErrorReport):
                # the body ended early: taken as the end of the answer (a body that ends while
                # the turn goes on, after a tool_use stop, is no failure and keeps no turn end)
                yield TurnEnd("end_turn")
                return
            yield output


def _without_errors(chunks: Iterator[str]) -> Iterator[str]:
    """The bug: error events are dropped as unknown events."""
    for chunk in chunks:
        if not chunk.lstrip().startswith("event: error"):
            yield chunk


@mutant(
    "anthropic-flushes-open-calls-on-error",
    "On an error event the driver surfaces the error, but first flushes every tool call still "
    "streaming as a complete, valid call, so a tool runs with half its arguments.",
)
class FlushesOpenCallsOnError(AnthropicAgentDriver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        open_calls: dict[Any, dict[str, Any]] = {}
        yield from closing(chunks, self.flushing(_watching(chunks, open_calls), open_calls))

    def flushing(
        self, chunks: Iterator[str], open_calls: dict[Any, dict[str, Any]]
    ) -> Iterator[DriverOutput]:
        for output in self.turn(chunks):
            if isinstance(output, ErrorReport):  # the bug: the open calls go out as complete
                for call in open_calls.values():
                    yield ToolCallOut(call["id"], call["name"], "".join(call["parts"]), True)
            yield output


def _watching(chunks: Iterator[str], open_calls: dict[Any, dict[str, Any]]) -> Iterator[str]:
    """The chunks, keeping in ``open_calls`` the tool calls whose blocks started and have not
    stopped."""
    for chunk in chunks:
        for _, data in events(iter((chunk,))):
            if not isinstance(data, dict):
                continue
            kind, index = data.get("type"), data.get("index")
            if kind == "content_block_start" and data["content_block"].get("type") == "tool_use":
                block = data["content_block"]
                open_calls[index] = {"id": block["id"], "name": block["name"], "parts": []}
            elif kind == "content_block_delta" and index in open_calls:
                open_calls[index]["parts"].append(data["delta"].get("partial_json", ""))
            elif kind == "content_block_stop":
                open_calls.pop(index, None)
        yield chunk


@mutant(
    "openai-chat-body-end-is-turn-end",
    "The end of the body is taken for the end of the turn: a body cut before its finish_reason "
    "(and [DONE]) still ends in a turn end, with the last call passed on as complete.",
)
class BodyEndIsTurnEnd(OpenAIChatDriver):
    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().response(chunks):
            if isinstance(output, ErrorReport) and "ended before" in output.message:
                yield from self.complete()  # the bug: what was read so far is the whole turn
                yield TurnEnd("tool_use" if self.emitted else "end_turn")
                return
            yield output
