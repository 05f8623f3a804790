"""The pull-style driver replay against hand-written drivers: async generators, hangs, malformed
outputs, crashes, how far a driver reads, cancellation, and skips."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from textwrap import dedent
from typing import Any

import pytest

from harness.adapters.driver.reference import AnthropicDriver, events
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.codecs import dialects
from harness.model.driver import DriverOutput, ErrorReport, TextOut, TurnEnd
from harness.replay import ScenarioResult, replay
from harness.rules import Violation
from tests.scenarios_for_tests import library_driver as library
from tests.scenarios_for_tests import parse_driver as scenario

ONE_TEXT = dedent(
    """\
    id: one-text
    title: one text block
    description: a message with one text delta
    source: tests
    layer: driver
    dialects: [anthropic]
    trace:
      - cycle:
          blocks:
            - text: "Hello there."
    """
)
# anthropic chunks, one per canonical event: message_start (event 0), content_block_start (1),
# text_delta (2), content_block_stop (3), message_delta (4), message_stop (5)
ONE_TEXT_CHUNKS = 6

CANCELLED = dedent(
    """\
    id: cancelled
    title: cancelled mid-arguments
    description: the read of chunk 5 is cancelled while the call's arguments stream
    source: tests
    layer: driver
    dialects: [anthropic, anthropic-agent]
    cancel_after_reads: 4
    trace:
      - cycle:
          blocks:
            - tool_use: {id: toolu_c, name: bash_command, input: {cmd: "ls -la"}, chunks: 4}
    """
)


def adapter(make: Callable[[], object], name: str = "test-driver") -> AdapterInfo:
    return AdapterInfo(name, "driver", "external", make)


def reference(dialect: str) -> AdapterInfo:
    return BUNDLED[f"driver-{dialect}-reference"]


# -- hand-written drivers -------------------------------------------------------------------------


class AsyncAnthropicDriver:
    """A correct Anthropic driver written as an async generator: ``async for`` over the chunks
    (block handling borrowed from the sync reference), on an agent's stream of several message
    cycles."""

    # The event loop below repeats AnthropicDriver.turn on purpose: that loop pulls from a sync
    # iterator, and what is tested here is a driver that awaits each chunk itself; the per-block
    # handling (delta, finish) is the reference's own.

    layers = ("driver",)
    dialect = "anthropic-agent"

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.blocks = AnthropicDriver()

    async def drive(self, chunks: Any) -> AsyncIterator[DriverOutput]:
        self.sources.append(type(chunks).__name__)
        delta, finish = self.blocks.delta, self.blocks.finish
        blocks: dict[int, dict[str, Any]] = {}
        started: set[str] = set()
        reason = "end_turn"
        try:
            async for chunk in chunks:
                for _, data in events(iter([chunk])):
                    kind = data.get("type") if isinstance(data, dict) else None
                    if kind == "message_start":
                        message_id = data["message"].get("id", "")
                        if message_id not in started:
                            started.add(message_id)
                            blocks = {}
                    elif kind == "content_block_start":
                        block = data["content_block"]
                        blocks[data["index"]] = {
                            "type": block.get("type"),
                            "id": block.get("id", ""),
                            "name": block.get("name", ""),
                            "parts": [],
                            "done": False,
                        }
                    elif kind == "content_block_delta":
                        for output in delta(blocks.get(data["index"]), data["delta"]):
                            yield output
                    elif kind == "content_block_stop":
                        for call in finish(blocks.get(data["index"])):
                            yield call
                    elif kind == "message_delta":
                        reason = data.get("delta", {}).get("stop_reason") or "end_turn"
                        for index in sorted(blocks):
                            for call in finish(blocks[index]):
                                yield call
                    elif kind == "message_stop" and reason != "tool_use":
                        yield TurnEnd(reason)
                        return
        finally:
            await chunks.aclose()


class AsyncEndsAtFirstStop(AsyncAnthropicDriver):
    """Async, with a known bug: the turn ends at the first message_stop."""

    async def drive(self, chunks: Any) -> AsyncIterator[DriverOutput]:
        async for item in super().drive(_until_first_stop(chunks)):
            if not isinstance(item, TurnEnd):
                yield item
        yield TurnEnd("end_turn")


async def _until_first_stop(chunks: Any) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk
        if "message_stop" in chunk:
            return


class _Driver:
    layers = ("driver",)
    dialect = "anthropic"


class SleepsInTheLoop(_Driver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for _chunk in chunks:
            time.sleep(3)  # the watchdog gives up long before; the abandoned thread ends soon
            return
        yield TurnEnd("end_turn")


class AsyncSleepsInTheLoop(_Driver):
    def __init__(self) -> None:
        self.cancelled = threading.Event()

    async def drive(self, chunks: Any) -> AsyncIterator[DriverOutput]:
        try:
            async for _chunk in chunks:
                await asyncio.sleep(3600)
                yield TextOut("never")
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def emits(*items: Any) -> type:
    class Emits(_Driver):
        def drive(self, chunks: Iterator[str]) -> Iterator[Any]:
            for _chunk in chunks:
                yield from items
                return

    return Emits


class RaisesAfterTwoChunks(_Driver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        next(chunks)
        next(chunks)
        raise ValueError("boom: cannot parse content_block_start")
        yield  # a generator


def stops_after(reads: int) -> type:
    """The reference's outputs for the first ``reads`` chunks, then the end of the turn."""

    class StopsEarly(_Driver):
        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            head = [next(chunks) for _ in range(reads)]
            ended = False
            for output in AnthropicDriver().turn(iter(head)):
                if isinstance(output, ErrorReport):
                    break  # the reference says the head is cut short; this driver does not
                ended = ended or isinstance(output, TurnEnd)
                yield output
            if not ended:
                yield TurnEnd("end_turn")

    return StopsEarly


def only(result: ScenarioResult, rule: str) -> Violation:
    """The one violation of ``rule``."""
    (violation,) = [v for v in result.violations if v.rule == rule]
    return violation


def sole(result: ScenarioResult, rule: str) -> Violation:
    """The one violation of a result that fails on ``rule`` alone."""
    assert result.status == "fail"
    assert result.rules_broken == (rule,)
    (violation,) = result.violations
    return violation


class ReadsEverything(_Driver):
    """Correct outputs, but reads on after the final message_stop: to the end of a response
    body, which is fine; on an agent's stream it waits for the next turn."""

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        seen = list(chunks)
        yield from AnthropicDriver().turn(iter(seen))


class SwallowsCancellation(AnthropicDriver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        try:
            yield from super().drive(chunks)
        except BaseException:
            return  # the cancellation is caught and the iterator ends normally


class AsyncSwallowsCancellation(AsyncAnthropicDriver):
    async def drive(self, chunks: Any) -> AsyncIterator[DriverOutput]:
        try:
            async for item in super().drive(chunks):
                yield item
        except BaseException:
            return


class NoCleanupOnCancel(AnthropicDriver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from self.turn(chunks)  # propagates the cancellation, never closes the stream


# -- async drivers --------------------------------------------------------------------------------

ANTHROPIC_LIBRARY = [
    "multi-cycle-turn",
    "parallel-calls",
    "cancel-mid-arguments",
    "assembled-message-after-each-cycle",
    "empty-arguments",
    "truncated-arguments-max-tokens",
]


def test_the_async_driver_is_an_async_generator() -> None:
    assert inspect.isasyncgenfunction(AsyncAnthropicDriver.drive)
    assert inspect.isasyncgenfunction(AsyncSwallowsCancellation.drive)


@pytest.mark.parametrize("name", ANTHROPIC_LIBRARY)
def test_async_generator_driver_passes_like_the_sync_reference(name: str) -> None:
    s = library(name)
    sync = replay(s, reference("anthropic-agent"))
    made: list[AsyncAnthropicDriver] = []

    def make() -> AsyncAnthropicDriver:
        made.append(AsyncAnthropicDriver())
        return made[-1]

    result = replay(s, adapter(make))
    assert (sync.status, sync.violations) == ("pass", ())
    assert (result.status, result.error, result.violations) == ("pass", None, ())
    assert made[0].sources == ["AsyncSource"]


def test_async_driver_is_checked_by_the_rules() -> None:
    s = library("multi-cycle-turn")
    chunks = dialects()["anthropic-agent"].encode(s.turn)
    first_stop = next(n for n, c in enumerate(chunks, 1) if "event: message_stop" in c.data)
    assert first_stop < len(chunks)
    result = replay(s, adapter(AsyncEndsAtFirstStop))
    assert result.status == "fail"
    assert "turn-lifetime" in result.rules_broken
    assert only(result, "turn-lifetime").message.startswith(
        f"the driver stopped reading after chunk {first_stop} "
    )


# -- hangs ------------------------------------------------------------------------------------------


def test_sync_driver_that_sleeps_in_its_loop_is_an_error_within_the_timeout() -> None:
    started = time.monotonic()
    result = replay(scenario(ONE_TEXT), adapter(SleepsInTheLoop), timeout=0.5)
    elapsed = time.monotonic() - started
    assert result.status == "error"
    assert result.error is not None
    assert result.error.startswith("the adapter did not return within 0.5s")
    assert "had read 1 chunks" in result.error  # it hung after reading the first chunk
    assert elapsed < 1.5


def test_async_driver_awaiting_forever_is_an_error_and_its_task_is_cancelled() -> None:
    driver = AsyncSleepsInTheLoop()
    started = time.monotonic()
    result = replay(scenario(ONE_TEXT), adapter(lambda: driver), timeout=0.5)
    elapsed = time.monotonic() - started
    assert result.status == "error"
    assert result.error is not None
    assert result.error.startswith("the adapter did not return within 0.5s")
    assert elapsed < 1.5
    # the hung task was cancelled, not just abandoned
    assert driver.cancelled.wait(2.0)


# -- malformed outputs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (
            {"type": "tool"},
            "output 1.type is 'tool'; expected text, tool_call, turn_end, refusal or error",
        ),
        ({"type": "refusal"}, "output 1.reason should be a string, got None"),
        ("a tool call", "output 1 is str; expected an object with a 'type'"),
        (
            {"type": "tool_call", "id": "toolu_1", "name": "f", "arguments": "{}"},
            "output 1.valid should be true or false, got None",
        ),
        ({"type": "text", "text": 42}, "output 1.text should be a string, got 42"),
        (
            {"type": "turn_end", "stop_reason": 3},
            "output 1.stop_reason should be a string, got 3",
        ),
    ],
    ids=[
        "unknown-type",
        "refusal-without-reason",
        "not-an-object",
        "no-valid",
        "text-not-string",
        "stop-reason-not-string",
    ],
)
def test_malformed_output_is_an_error_naming_the_output(bad: Any, message: str) -> None:
    result = replay(scenario(ONE_TEXT), adapter(emits(TextOut("ok"), bad)))
    assert result.status == "error"
    assert result.error == f"the driver emitted a malformed output: {message}"
    assert result.violations == ()


def test_plain_dict_outputs_are_accepted() -> None:
    outputs = (
        {"type": "text", "text": "Hello there."},
        {"type": "turn_end", "stop_reason": "end_turn"},
    )

    class DictDriver(_Driver):
        def drive(self, chunks: Iterator[str]) -> Iterator[Any]:
            for n, _chunk in enumerate(chunks, 1):
                if n == 3:
                    yield outputs[0]
                if n == ONE_TEXT_CHUNKS:
                    yield outputs[1]
                    return

    result = replay(scenario(ONE_TEXT), adapter(DictDriver))
    assert (result.status, result.error, result.violations) == ("pass", None, ())


# -- crashes and reads ------------------------------------------------------------------------------


def test_driver_raising_on_a_legal_stream_fails_robust_framing() -> None:
    result = replay(scenario(ONE_TEXT), adapter(RaisesAfterTwoChunks))
    assert result.error is None
    violation = sole(result, "robust-framing")
    assert violation.message == (
        "the driver crashed on the anthropic stream after chunk 2: "
        "ValueError: boom: cannot parse content_block_start; nothing in the stream is corrupt "
        """(the chunk: 'event: content_block_start\\ndata: {"type":"content_block_s...')"""
    )
    assert violation.event_index == 1  # the second chunk carries content_block_start


@pytest.mark.parametrize("reads", [1, 2, 5])
def test_driver_that_stops_reading_early_fails_turn_lifetime_with_the_chunk(reads: int) -> None:
    result = replay(scenario(ONE_TEXT), adapter(stops_after(reads)))
    assert result.status == "fail"
    violation = only(result, "turn-lifetime")
    assert violation.message == (
        f"the driver stopped reading after chunk {reads} (event {reads - 1}); "
        f"the turn ends only at event 5 of the stream (chunk {ONE_TEXT_CHUNKS}, "
        "stop_reason 'end_turn')"
    )
    assert violation.event_index == reads - 1


def test_driver_that_reads_exactly_to_the_end_passes() -> None:
    result = replay(scenario(ONE_TEXT), adapter(stops_after(ONE_TEXT_CHUNKS)))
    assert (result.status, result.violations) == ("pass", ())


def test_driver_that_reads_past_the_end_of_the_turn_fails_turn_lifetime_on_an_agent_stream() -> (
    None
):
    class OnAgentStream(ReadsEverything):
        dialect = "anthropic-agent"

    both = scenario(
        ONE_TEXT.replace("dialects: [anthropic]", "dialects: [anthropic, anthropic-agent]")
    )
    result = replay(both, adapter(OnAgentStream))
    violation = sole(result, "turn-lifetime")
    assert violation.message == (
        "the driver kept reading after the turn ended at event 5: on the anthropic-agent "
        "stream, which goes on after the turn, it would wait for the next turn (it read 6 "
        "chunk(s) and asked for more; the turn ends at chunk 6)"
    )


def test_reading_on_to_the_end_of_a_response_body_is_no_violation() -> None:
    # The Messages API body ends after message_stop: reading to its end is how an SDK finds it.
    result = replay(scenario(ONE_TEXT), adapter(ReadsEverything))
    assert (result.status, result.violations) == ("pass", ())


# -- cancellation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", ["anthropic", "openai-chat"])
def test_reference_driver_passes_a_cancelled_scenario(dialect: str) -> None:
    s = library("cancel-mid-arguments")
    assert s.cancel_after_reads is not None
    result = replay(s, reference(dialect))
    assert (result.status, result.error, result.violations) == ("pass", None, ())


def test_reference_driver_passes_the_inline_cancelled_scenario() -> None:
    result = replay(scenario(CANCELLED), reference("anthropic"))
    assert (result.status, result.violations) == ("pass", ())


@pytest.mark.parametrize(
    "driver", [SwallowsCancellation, AsyncSwallowsCancellation], ids=["sync", "async"]
)
def test_driver_that_swallows_the_cancellation_fails_cancellation(driver: type) -> None:
    result = replay(scenario(CANCELLED), adapter(driver))
    violation = sole(result, "cancellation")
    assert violation.message == (
        "the driver swallowed the cancellation and went on instead of ending; the stream was "
        "cancelled after chunk 4"
    )
    # chunk 4 (the last one read) carries event 3: message_start, block_start, 2 fragments
    assert violation.event_index == 3


def test_library_cancel_scenario_catches_a_swallowing_driver() -> None:
    result = replay(library("cancel-mid-arguments"), adapter(SwallowsCancellation))
    assert result.status == "fail"
    assert "cancellation" in result.rules_broken


def test_driver_that_does_not_close_the_stream_on_cancel_fails_cancellation() -> None:
    result = replay(scenario(CANCELLED), adapter(NoCleanupOnCancel))
    violation = sole(result, "cancellation")
    assert violation.message == (
        "after the cancellation the driver did not close the stream it was reading (no cleanup)"
    )


# -- skips ------------------------------------------------------------------------------------------


def _known() -> str:
    return ", ".join(dialects())


@pytest.mark.parametrize("dialect", ["gemini-rest", None])
def test_driver_of_an_unknown_dialect_is_skipped_with_the_reason(dialect: str | None) -> None:
    class Unknown:
        layers = ("driver",)

        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            yield TurnEnd("end_turn")

    named = Unknown if dialect is None else type("Unknown", (Unknown,), {"dialect": dialect})
    result = replay(scenario(ONE_TEXT), adapter(named))
    assert result.status == "skip"
    assert result.skip_reason == (
        f"the adapter names no known dialect (dialect={dialect!r}; known: {_known()})"
    )


def test_scenario_pinned_to_another_dialect_is_skipped_with_the_reason() -> None:
    result = replay(scenario(ONE_TEXT), reference("openai-chat"))
    assert result.status == "skip"
    assert result.skip_reason == "the scenario runs in anthropic, not openai-chat"


def test_library_scenario_pinned_to_openai_is_skipped_for_anthropic() -> None:
    s = library("same-index-parallel-calls")
    assert s.dialects == ("openai-chat",)
    result = replay(s, reference("anthropic"))
    assert result.status == "skip"
    assert result.skip_reason == "the scenario runs in openai-chat, not anthropic"


def test_turn_the_dialect_cannot_carry_is_skipped_with_the_codec_reason() -> None:
    result = replay(library("multi-cycle-turn"), reference("openai-chat"))
    assert result.status == "skip"
    assert result.skip_reason == (
        "a Chat Completions stream carries one message cycle; this turn has several"
    )


def test_session_adapter_on_a_driver_scenario_is_skipped() -> None:
    result = replay(scenario(ONE_TEXT), "session-reference")
    assert result.status == "skip"
    assert result.skip_reason == "needs the driver layer; the adapter implements: session"
