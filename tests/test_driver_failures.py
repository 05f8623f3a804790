"""A stream that fails mid-turn: the server's error (``error`` step, every codec), a body cut
short and a stall (``transport:``), and the rule ``error-surfaced`` that judges what a driver
does with them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from textwrap import dedent
from typing import ClassVar

import pytest

from harness._errors import ScenarioError
from harness.adapters.driver.reference import AnthropicDriver, OpenAIChatDriver
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.model.driver import (
    DriverObservation,
    DriverOutput,
    ErrorReport,
    StreamError,
    TextOut,
    ToolCallOut,
    TurnEnd,
    coerce_output,
    turn_facts,
)
from harness.replay import ScenarioResult, replay
from tests.scenarios_for_tests import library_driver, parse_driver

HEAD = "id: t\ntitle: t\ndescription: d\nsource: tests\nlayer: driver\n"

MID_ARGUMENTS = HEAD + dedent(
    """\
    dialects: [anthropic]
    trace:
      - message_start: {message_id: msg_1}
      - block_start: {index: 0, block: text}
      - text_delta: {index: 0, text: "Running it."}
      - block_stop: {index: 0}
      - block_start: {index: 1, block: tool_use, id: toolu_1, name: bash}
      - arguments_delta: {index: 1, fragment: '{"cmd": '}
      - arguments_delta: {index: 1, fragment: '"ls'}
      - error: {type: overloaded_error, message: Overloaded}
    """
)


def adapter(make: type, name: str = "test-driver") -> AdapterInfo:
    return AdapterInfo(name, "driver", "external", make)


def rules_broken(result: ScenarioResult) -> set[str]:
    assert result.error is None, result.error
    return {v.rule for v in result.violations}


def test_the_error_ends_the_turn_and_cuts_the_call_it_interrupts() -> None:
    scenario = parse_driver(MID_ARGUMENTS)
    facts = turn_facts(scenario.turn)
    assert isinstance(scenario.turn[-1], StreamError)
    assert (facts.error, facts.ended, facts.final_stop) == (7, False, 7)
    (call,) = facts.calls
    assert (call.id, call.arguments, call.cut, call.complete) == ("toolu_1", '{"cmd": "ls', True, 7)
    assert [t for _, t in facts.texts] == ["Running it."]


def test_the_reference_surfaces_the_error_and_passes() -> None:
    result = replay(parse_driver(MID_ARGUMENTS), BUNDLED["driver-anthropic-reference"])
    assert result.status == "pass", result.violations
    assert isinstance(result.observation, DriverObservation)
    assert result.observation.outputs == (
        TextOut("Running it."),
        ErrorReport("overloaded_error: Overloaded"),
    )


class EndsAsIfFinished(AnthropicDriver):
    """Skips what it does not know, the error included, and ends the turn with the body."""

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().turn(c for c in chunks if not c.startswith("event: error")):
            if isinstance(output, ErrorReport):
                break
            yield output
        yield TurnEnd("end_turn")


class FlushesTheHalfCall(AnthropicDriver):
    """Raises at the error, after passing the half-streamed call on as complete."""

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().turn(chunks):
            if isinstance(output, ErrorReport):
                yield ToolCallOut("toolu_1", "bash", '{"cmd": "ls"}', True)
                raise RuntimeError(output.message)
            yield output


class RaisesAtTheError(AnthropicDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().turn(chunks):
            if isinstance(output, ErrorReport):
                raise RuntimeError(output.message)
            yield output


class SaysNothing(AnthropicDriver):
    """Stops at the error without a turn end, and without a word about the error."""

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in super().turn(chunks):
            if isinstance(output, ErrorReport):
                return
            yield output


def test_a_turn_end_after_the_error_is_a_violation() -> None:
    result = replay(parse_driver(MID_ARGUMENTS), adapter(EndsAsIfFinished))
    assert rules_broken(result) == {"error-surfaced"}
    messages = [v.message for v in result.violations]
    assert any("reported the end of the turn (stop_reason 'end_turn')" in m for m in messages)
    assert any("neither raised nor reported the error" in m for m in messages)


def test_the_half_streamed_call_passed_on_as_complete_is_a_violation() -> None:
    result = replay(parse_driver(MID_ARGUMENTS), adapter(FlushesTheHalfCall))
    assert "error-surfaced" in rules_broken(result)
    (violation,) = [v for v in result.violations if v.rule == "error-surfaced"]
    assert "passed on the call 'toolu_1' (bash) as complete" in violation.message
    assert violation.event_index == 7


def test_raising_at_the_error_is_surfacing_it_not_a_crash() -> None:
    result = replay(parse_driver(MID_ARGUMENTS), adapter(RaisesAtTheError))
    assert result.status == "pass", result.violations


def test_saying_nothing_of_the_servers_error_is_a_violation() -> None:
    result = replay(parse_driver(MID_ARGUMENTS), adapter(SaysNothing))
    assert rules_broken(result) == {"error-surfaced"}


def test_an_error_report_on_a_stream_that_did_not_fail_is_a_refusal() -> None:
    class CriesWolf(AnthropicDriver):
        def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            yield ErrorReport("overloaded")

    result = replay(library_driver("text-before-tool-call"), adapter(CriesWolf))
    assert "robust-framing" in rules_broken(result)
    assert any("it reported an error: overloaded" in v.message for v in result.violations)


def test_the_error_output_as_a_dict() -> None:
    assert coerce_output({"type": "error", "message": "boom"}, 0) == ErrorReport("boom")


# -- the scenario's fields --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (
            "trace:\n  - cycle: {blocks: [{text: hi}]}\ntransport: [cut]\n",
            8,
            "fault 'cut' should be written cut:N",
        ),
        (
            "trace:\n  - cycle: {blocks: [{text: hi}]}\ntransport: ['drop:2']\n",
            8,
            "transport faults are cut:N, end:N and stall:N:SECONDS",
        ),
        (
            "trace:\n  - cycle: {blocks: [{text: hi}]}\ntransport: ['stall:2:30']\n",
            8,
            "at most 2s",
        ),
        (
            "trace:\n  - cycle: {blocks: [{text: hi}]}\ntransport: ['cut:0']\n",
            8,
            "leaves nothing to read",
        ),
        (
            "trace:\n  - message_start: {message_id: m}\n  - error: {type: x}\n  - ping: {}\n",
            8,
            "nothing follows a server's error",
        ),
        ("trace:\n  - error: {kind: x}\n", 7, "kind"),
    ],
)
def test_bad_failure_fields_are_located(text: str, line: int, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_driver(HEAD + text, "bad.yaml")
    assert f"bad.yaml:{line}" in str(info.value) and words in str(info.value), str(info.value)


# -- a cut body ---------------------------------------------------------------------------------


def test_a_cut_body_ends_early_and_a_turn_end_is_a_violation() -> None:
    class OldChatDriver(OpenAIChatDriver):
        """Ends the turn when the body ends, finish_reason or not."""

        def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            for output in super().response(chunks):
                if isinstance(output, ErrorReport):
                    yield from self.complete()
                    yield TurnEnd("end_turn")
                    return
                yield output

    scenario = library_driver("cut-mid-arguments")
    reference = replay(scenario, BUNDLED["driver-openai-chat-reference"])
    assert reference.status == "pass", reference.violations
    assert reference.driver_run is not None
    run = reference.driver_run
    assert (run.reads, run.overread, run.body_cut, len(run.chunks)) == (5, True, 5, 5)
    result = replay(scenario, adapter(OldChatDriver))
    assert rules_broken(result) == {"error-surfaced"}


def test_a_cut_after_the_turn_is_told_is_skipped() -> None:
    text = (
        HEAD
        + "dialects: [openai-chat]\ntransport: ['cut:3']\ntrace:\n  - cycle: {blocks: [{text: hi}]}\n"
    )
    # role, text, finish: the cut after 3 chunks loses only [DONE]
    result = replay(parse_driver(text), BUNDLED["driver-openai-chat-reference"])
    assert result.status == "skip"
    assert "the cut loses nothing of the turn" in (result.skip_reason or "")


# -- a stall ---------------------------------------------------------------------------------------


class Timed(AnthropicDriver):
    """Notes how long each read took."""

    waits: ClassVar[list[float]] = []

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        def timed() -> Iterator[str]:
            while True:
                start = time.perf_counter()
                try:
                    chunk = next(chunks)
                except StopIteration:
                    return
                Timed.waits.append(time.perf_counter() - start)
                yield chunk

        yield from super().turn(timed())


def test_a_stall_pauses_the_read_of_its_chunk_and_changes_nothing_else() -> None:
    Timed.waits = []
    scenario = library_driver("stall-mid-arguments")
    result = replay(scenario, adapter(Timed))
    assert result.status == "pass", result.violations
    slow = [n for n, wait in enumerate(Timed.waits, start=1) if wait >= 0.1]
    assert slow == [4]


class GivesUpOnSilence:
    """An async driver whose own read timeout is shorter than the stall: it takes the silence
    for the end of the turn."""

    layers = ("driver",)
    dialect = "anthropic"

    async def drive(self, chunks: AsyncIterator[str]) -> AsyncIterator[DriverOutput]:
        pieces: list[str] = []
        while True:
            try:
                pieces.append(await asyncio.wait_for(chunks.__anext__(), timeout=0.02))
            except (StopAsyncIteration, TimeoutError):
                break
        for output in AnthropicDriver().turn(iter(pieces)):
            if isinstance(output, ErrorReport):
                break
            yield output
        yield TurnEnd("end_turn")


def test_a_driver_that_takes_a_stall_for_the_end_fails_the_ordinary_rules() -> None:
    result = replay(library_driver("stall-mid-arguments"), adapter(GivesUpOnSilence))
    assert "turn-lifetime" in rules_broken(result)


@pytest.mark.parametrize(
    ("mutant", "scenario"),
    [
        ("anthropic-ignores-error-events", "error-after-text"),
        ("anthropic-flushes-open-calls-on-error", "error-mid-arguments"),
        ("openai-chat-body-end-is-turn-end", "cut-mid-arguments"),
    ],
)
def test_a_failed_stream_mutant_passes_a_stream_that_does_not_fail(
    mutant: str, scenario: str
) -> None:
    adapter = BUNDLED[f"driver-mutant-{mutant}"]
    assert replay(library_driver("parallel-calls"), adapter).status == "pass"
    assert replay(library_driver("text-before-tool-call"), adapter).status == "pass"
    assert "error-surfaced" in rules_broken(replay(library_driver(scenario), adapter))
