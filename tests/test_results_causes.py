"""Root causes across a run: the quirk cases of a scenario that break one rule at one event are
one cause, counted, with its smallest case and the quirks that bring it out."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.adapters.registry import resolve_adapter
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.replay.result import ScenarioResult
from harness.results.causes import added_quirks, case_causes, group_causes, origin
from harness.rules.registry import Violation
from harness.scenario import DriverScenario, load_scenario

MERGES = "driver-mutant-openai-merges-same-index"


@pytest.fixture(scope="module")
def parallel_calls() -> list[ScenarioResult]:
    """Every quirk case of one scenario against a mutant that glues calls sharing an index."""
    scenario = load_scenario("scenarios/driver/parallel-calls.yaml")
    adapter = resolve_adapter(MERGES)
    return [replay(case, adapter) for case in cases_for([scenario], adapter)]


def test_the_cases_one_bug_fails_are_one_cause(parallel_calls: list[ScenarioResult]) -> None:
    failed = [r for r in parallel_calls if r.status == "fail"]
    # the calls are glued wherever the stream gives them one index (or none)
    merged = [r for r in failed if any(v.rule == "parallel-apart" for v in r.root_causes)]
    assert len(merged) > 5
    causes = {c.key: c for c in group_causes(parallel_calls)}
    (key,) = [k for k in causes if ":parallel-apart@" in k]
    cause = causes[key]
    assert set(map(id, cause.cases)) == set(map(id, merged))
    assert cause.rule == "parallel-apart" and cause.scenario == "parallel-calls"
    # every case of the cause breaks the rule at the same event of the turn
    events = {v.event_index for r in merged for v in r.root_causes if v.rule == "parallel-apart"}
    assert {cause.event_index} == events
    # each failed case counts under every cause it shows, and only there
    assert sum(len(c.cases) for c in causes.values()) == sum(len(case_causes(r)) for r in failed)


def test_the_smallest_case_stands_for_a_cause_and_its_quirks_are_the_trigger(
    parallel_calls: list[ScenarioResult],
) -> None:
    (cause,) = [c for c in group_causes(parallel_calls) if c.rule == "parallel-apart"]
    fewest = min(len(added_quirks(r)) for r in cause.cases)
    assert len(added_quirks(cause.smallest)) == fewest
    alone = {added_quirks(r) for r in cause.cases if len(added_quirks(r)) == fewest}
    assert set(cause.triggers) == alone
    # both shapes that put parallel calls at one index bring it out, each alone
    assert {("no_index",), ("same_index",)} <= alone
    assert cause.trigger_text().startswith("under ") and " or " in cause.trigger_text()
    assert cause.violation in cause.smallest.root_causes
    assert cause.message == cause.violation.message


def test_a_cause_is_first_party_when_any_of_its_cases_is(
    parallel_calls: list[ScenarioResult],
) -> None:
    (cause,) = [c for c in group_causes(parallel_calls) if c.rule == "parallel-apart"]
    assert {origin(r) for r in cause.cases} == {"gateway"}  # only gateways share an index
    assert cause.origin == "gateway"
    first = replace(cause.cases[-1], scenario=replace_tags(cause.cases[-1], ()))
    (again,) = [c for c in group_causes([*cause.cases[:-1], first]) if c.rule == "parallel-apart"]
    assert again.origin == "first-party"


def replace_tags(result: ScenarioResult, tags: tuple[str, ...]) -> DriverScenario:
    scenario = result.scenario
    assert isinstance(scenario, DriverScenario)
    return replace(scenario, tags=tags)


def test_first_party_causes_come_first_in_the_order_met() -> None:
    scenario = load_scenario("scenarios/driver/parallel-calls.yaml")
    gateway = ScenarioResult(
        replace(scenario, tags=("gateway",)), "a", "fail", (Violation("r1", 3, "m"),)
    )
    plain = ScenarioResult(scenario, "a", "fail", (Violation("r2", 4, "m"),))
    later = ScenarioResult(scenario, "a", "fail", (Violation("r0", 1, "m"),))
    keys = [c.key for c in group_causes([gateway, plain, later])]
    assert keys == ["parallel-calls:r2@4", "parallel-calls:r0@1", "parallel-calls:r1@3"]


def test_a_consequence_is_no_cause_of_its_own() -> None:
    scenario = load_scenario("scenarios/driver/parallel-calls.yaml")
    root = Violation("parallel-apart", 9, "merged", "call_1 call_2")
    follows = Violation("emit-once-early", 12, "lost", "call_2", cause=("parallel-apart", 9))
    result = ScenarioResult(scenario, "a", "fail", (root, follows))
    assert case_causes(result) == ("parallel-calls:parallel-apart@9",)


def test_errors_that_differ_only_in_their_numbers_are_one_cause() -> None:
    scenario = load_scenario("scenarios/driver/parallel-calls.yaml")
    errors = [
        ScenarioResult(scenario, "a", "error", error="the driver raised KeyError at chunk 5"),
        ScenarioResult(scenario, "a", "error", error="the driver raised KeyError at chunk 17"),
        ScenarioResult(scenario, "a", "error", error="the driver raised ValueError at chunk 5"),
        ScenarioResult(scenario, "a", "pass"),
        ScenarioResult(scenario, "a", "skip", skip_reason="no"),
    ]
    causes = group_causes(errors)
    assert [len(c.cases) for c in causes] == [2, 1]
    assert causes[0].rule == "error" and causes[0].violation is None
    assert causes[0].message == "the driver raised KeyError at chunk 5"


def test_one_calls_pairing_problems_in_a_stored_history_are_one_root_cause() -> None:
    """A store that splits parallel results over messages breaks forward and reverse pairing
    for each call, in the stored history and in the request: one root per call, the rest
    under it."""
    scenario = load_scenario("scenarios/history/parallel-results-two-in-one-then-late.yaml")
    result = replay(scenario, "history-mutant-parallel-results-split")
    assert result.status == "fail"
    roots = result.root_causes
    assert len(result.violations) > len(roots)
    # each root is about one call: no two roots share one
    subjects = [v.subject for v in roots]
    assert all(subjects) and len(set(subjects)) == len(subjects)
    for v in result.violations:
        if v.cause is not None:
            (root,) = [
                r for r in roots if (r.rule, r.event_index) == v.cause and r.subject == v.subject
            ]
            assert root.rule == "forward-pairing"
