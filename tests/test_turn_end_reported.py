"""``turn-lifetime`` on how a driver reports the turn's end: once, with the reason the stream
gives, or 'unknown' when the driver's library does not say; and a driver that reports every end
twice with a wrong reason is caught on every case whose turn ends."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest

from harness.adapters.driver.turn_end_mutants import ended_twice_wrongly
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.model.driver import (
    UNKNOWN_REASON,
    DriverObservation,
    DriverOutput,
    TurnEnd,
    coerce_output,
    turn_facts,
)
from harness.replay import ScenarioResult, replay
from harness.replay.cases import cases_for
from harness.scenario import DriverScenario
from tests.scenarios_for_tests import LIBRARY, library_driver, load_folder

DRIVERS = [a for a in BUNDLED.values() if a.layer == "driver" and a.kind == "reference"]


def rewritten(
    reference: AdapterInfo, change: Callable[[Iterator[DriverOutput]], Iterator[DriverOutput]]
) -> AdapterInfo:
    """The reference driver with its outputs passed through ``change``."""

    def make() -> object:
        inner: Any = reference.factory()

        class Rewritten:
            layers = ("driver",)
            dialect = inner.dialect
            emits_calls = getattr(inner, "emits_calls", "per-call")
            reads = getattr(inner, "reads", "events")

        if inspect.isasyncgenfunction(inner.drive):

            async def drive(self: object, chunks: Any) -> Any:
                held: list[DriverOutput] = []
                async for output in inner.drive(chunks):
                    held.append(output)
                    if isinstance(output, TurnEnd):
                        for out in change(iter(held)):
                            yield out
                        held.clear()
                for out in change(iter(held)):
                    yield out

        else:

            def drive(self: object, chunks: Any) -> Any:
                return change(inner.drive(chunks))

        Rewritten.drive = drive  # type: ignore[attr-defined]
        return Rewritten()

    return AdapterInfo(f"{reference.name}+rewritten", "driver", "external", make)


def unknown_reason(outputs: Iterator[DriverOutput]) -> Iterator[DriverOutput]:
    """A library that does not say why the turn ended."""
    for output in outputs:
        yield TurnEnd() if isinstance(output, TurnEnd) else output


@cache
def cases(dialect_reference: str) -> list[DriverScenario]:
    scenarios = [s for s in load_folder(LIBRARY)[0] if isinstance(s, DriverScenario)]
    return [
        c for c in cases_for(scenarios, BUNDLED[dialect_reference]) if isinstance(c, DriverScenario)
    ]


def failure(result: ScenarioResult) -> str:
    return result.error or "\n".join(f"[{v.rule}] {v.message}" for v in result.violations)


def test_an_end_without_a_reason_is_the_unknown_reason() -> None:
    assert TurnEnd() == TurnEnd(UNKNOWN_REASON)
    assert coerce_output({"type": "turn_end"}, 0) == TurnEnd(UNKNOWN_REASON)
    assert coerce_output({"type": "turn_end", "stop_reason": None}, 0) == TurnEnd(UNKNOWN_REASON)
    assert coerce_output({"type": "turn_end", "stop_reason": "tool_use"}, 0) == TurnEnd("tool_use")


@pytest.mark.parametrize(
    "name",
    ["multi-cycle-turn", "parallel-calls", "finish-stop-with-tool-calls", "no-done-text-answer"],
)
@pytest.mark.parametrize("reference", DRIVERS, ids=lambda a: a.name)
def test_a_driver_whose_library_gives_no_reason_passes(reference: AdapterInfo, name: str) -> None:
    scenario = library_driver(name)
    adapter = rewritten(reference, unknown_reason)
    result = replay(scenario, adapter)
    if result.status == "skip":
        pytest.skip(result.skip_reason or "")
    assert replay(scenario, reference).status == "pass"
    assert result.status == "pass", failure(result)


@pytest.mark.parametrize("reason", ["end_turn", "stop", "None"])
def test_a_made_up_reason_still_fails(reason: str) -> None:
    scenario = library_driver("parallel-calls")
    adapter = rewritten(
        BUNDLED["driver-openai-chat-reference"],
        lambda outs: (TurnEnd(reason) if isinstance(o, TurnEnd) else o for o in outs),
    )
    result = replay(scenario, adapter)
    assert result.rules_broken == ("turn-lifetime",), failure(result)
    assert f"stop_reason {reason!r}" in result.violations[0].message


def test_an_end_reported_after_a_tool_use_stop_is_checked() -> None:
    """The stream ends after its message stopped for tool_use: the driver may report that end,
    but once and for tool_use (the rule used not to look)."""
    scenario = library_driver("parallel-calls")
    assert not turn_facts(scenario.turn).ended
    twice = rewritten(BUNDLED["driver-openai-chat-reference"], ended_twice_wrongly)
    result = replay(scenario, twice)
    messages = [v.message for v in result.violations if v.rule == "turn-lifetime"]
    assert any("reported the end of the turn 2 times" in m for m in messages), messages
    assert any("stop_reason 'end_turn'" in m for m in messages), messages
    silent = rewritten(
        BUNDLED["driver-openai-chat-reference"],
        lambda outs: (o for o in outs if not isinstance(o, TurnEnd)),
    )
    assert replay(scenario, silent).status == "pass"


def ends(case: DriverScenario, reference: AdapterInfo) -> bool:
    """The case's turn ends: the stream's final stop ends it, or the reference reports the end
    of a stream that stopped for tool_use; a cancelled turn has not ended."""
    if case.cancel_after_reads is not None:
        return False
    if turn_facts(case.turn).ended:
        return True
    observation = replay(case, reference).observation  # None: the case is skipped
    if not isinstance(observation, DriverObservation):
        return False
    return any(isinstance(o, TurnEnd) for o in observation.outputs)


@pytest.mark.slow
@pytest.mark.parametrize("reference", DRIVERS, ids=lambda a: a.name)
def test_an_end_reported_twice_with_a_wrong_reason_is_caught_on_every_case_whose_turn_ends(
    reference: AdapterInfo,
) -> None:
    twice = rewritten(reference, ended_twice_wrongly)
    ending = [case for case in cases(reference.name) if ends(case, reference)]
    assert len(ending) >= 50
    missed = []
    for case in ending:
        result = replay(case, twice)
        if result.status == "skip":
            continue
        if "turn-lifetime" not in result.rules_broken:
            missed.append(f"{case.id}: {result.status} {failure(result)[:200]}")
    assert not missed, f"{len(missed)} of {len(ending)} cases miss it:\n" + "\n".join(missed[:10])


@pytest.mark.parametrize(
    "mutant", ["anthropic-ends-twice-wrong-reason", "openai-chat-ends-twice-wrong-reason"]
)
def test_the_bundled_mutants_are_caught_on_every_case_whose_turn_ends(mutant: str) -> None:
    adapter = BUNDLED[f"driver-mutant-{mutant}"]
    dialect: Any = adapter.factory()
    reference = BUNDLED[f"driver-{dialect.dialect}-reference"]
    ending = [case for case in cases(reference.name) if ends(case, reference)]
    assert len(ending) >= 100
    missed = [
        case.id
        for case in ending
        if "turn-lifetime" not in (result := replay(case, adapter)).rules_broken
        and result.status != "skip"
    ]
    assert not missed, missed[:10]
