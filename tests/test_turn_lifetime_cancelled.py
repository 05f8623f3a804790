"""``turn-lifetime`` under cancellation: a cancelled turn has not ended, so a driver that reported
its end before reading the turn's final stop ended it too early."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from textwrap import dedent

import pytest

from harness.adapters.driver.reference import AnthropicAgentDriver
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.model.driver import DriverOutput, TurnEnd
from harness.replay import replay
from harness.scenario import DriverScenario
from tests.scenarios_for_tests import LIBRARY, load_every, parse_driver

# anthropic-agent chunks, one per canonical event: the first message (a tool call) is chunks 1-8,
# its message_stop chunk 8 (event 7); the second (text) is chunks 9-14, the final stop chunk 14
# (event 13). The cancellation comes inside the second message.
TWO_MESSAGES = dedent(
    """\
    id: cancelled-in-the-second-message
    title: cancelled while the message after the tool call streams
    description: the turn goes on after the first message_stop, and is cancelled before its end
    source: tests
    layer: driver
    dialects: [anthropic-agent]
    cancel_after_reads: 10
    trace:
      - cycle:
          blocks:
            - tool_use: {id: toolu_a, name: read_file, input: {path: a.txt}}
      - cycle:
          blocks:
            - text: "Done."
    """
)
FIRST_STOP_READ, FINAL_STOP_READ = 8, 14


def _one_message(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk
        if "message_stop" in chunk:
            return


class ReportsEndAtFirstStop(AnthropicAgentDriver):
    """Reads the whole turn, but reports its end at the first message_stop (after stop_reason
    tool_use), then goes on."""

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from super().turn(_one_message(chunks))
        yield TurnEnd("end_turn")
        yield from super().turn(chunks)


def adapter(make: type) -> AdapterInfo:
    return AdapterInfo("test-driver", "driver", "external", make)


def cancelled_after(reads: int) -> DriverScenario:
    return dataclasses.replace(parse_driver(TWO_MESSAGES), cancel_after_reads=reads)


def test_a_driver_that_ends_the_turn_at_the_first_message_stop_fails_when_cancelled() -> None:
    result = replay(parse_driver(TWO_MESSAGES), adapter(ReportsEndAtFirstStop))
    assert result.status == "fail"
    assert result.rules_broken == ("turn-lifetime",)
    (violation,) = result.violations
    assert violation.message == (
        "the driver reported the end of the turn (stop_reason 'end_turn') after chunk 8 "
        "(event 7), before it read the turn's final stop in the stream (event 13, chunk 14); "
        "the turn was cancelled after chunk 10, before its end"
    )
    assert violation.event_index == 7  # the first message_stop


def test_the_bundled_mutant_that_stops_at_the_first_message_stop_fails_when_cancelled() -> None:
    # It never reaches the cancelled read: it stops reading, and reports the end, at chunk 8.
    mutant = BUNDLED["driver-mutant-anthropic-ends-at-first-message-stop"]
    result = replay(parse_driver(TWO_MESSAGES), mutant)
    assert result.status == "fail"
    assert result.rules_broken == ("turn-lifetime",)
    (violation,) = result.violations
    assert violation.message.startswith(
        "the driver reported the end of the turn (stop_reason 'end_turn') after chunk 8 "
    )


@pytest.mark.parametrize("reads", range(1, FINAL_STOP_READ))
def test_wherever_the_cancellation_falls_only_an_end_already_reported_is_early(
    reads: int,
) -> None:
    reference = replay(cancelled_after(reads), BUNDLED["driver-anthropic-agent-reference"])
    assert (reference.status, reference.violations) == ("pass", ())
    early = replay(cancelled_after(reads), adapter(ReportsEndAtFirstStop))
    if reads < FIRST_STOP_READ:  # cancelled before it reported anything
        assert (early.status, early.violations) == ("pass", ())
    else:
        assert early.rules_broken == ("turn-lifetime",)


def _cancelled_library() -> list[DriverScenario]:
    return [
        s
        for s in load_every(LIBRARY / "driver")
        if isinstance(s, DriverScenario) and s.cancel_after_reads is not None
    ]


def _references() -> list[str]:
    return [n for n, info in BUNDLED.items() if info.layer == "driver" and info.kind == "reference"]


@pytest.mark.parametrize("name", _references())
def test_every_driver_reference_passes_every_cancellation_scenario(name: str) -> None:
    scenarios = _cancelled_library()
    assert len(scenarios) >= 4
    ran = 0
    for scenario in [*scenarios, parse_driver(TWO_MESSAGES)]:
        result = replay(scenario, BUNDLED[name])
        assert result.status in ("pass", "skip"), (scenario.id, result.violations)
        ran += result.status == "pass"
    assert ran >= 1
