"""The pipeline every runner of many cases shares (``harness.replay.run``): which cases to run
(``cases_to_run``), and each replayed in order (``run_cases``)."""

from __future__ import annotations

import pytest

from harness._errors import UsageError
from harness.adapters.registry import resolve_adapter
from harness.codecs import dialects
from harness.replay import cases_to_run, replay, run_cases
from harness.scenario import Scenario
from harness.scenario.cases import driver_cases
from harness.scenario.variations import session_cases
from tests.scenarios_for_tests import LIBRARY, library_driver, load_session

CHAT_REFERENCE = resolve_adapter("driver-openai-chat-reference")
SESSION_REFERENCE = resolve_adapter("session-reference")
PARALLEL = library_driver("parallel-calls")
RECORDED = library_driver("recorded-openai-parallel-calls")
TOOL_FIRST = load_session(LIBRARY / "session" / "tool-first-turn.yaml")


def test_layers_that_leave_no_scenario_are_a_usage_error_naming_each_layer_once() -> None:
    with pytest.raises(UsageError) as raised:
        cases_to_run(
            [TOOL_FIRST],
            SESSION_REFERENCE,
            layers=["driver", "history", "driver"],
            where="scenarios/session",
        )
    assert str(raised.value) == "no scenario of the driver or history layer under scenarios/session"


def test_layers_keep_only_their_scenarios_in_order() -> None:
    cases = cases_to_run(
        [TOOL_FIRST, PARALLEL, TOOL_FIRST], CHAT_REFERENCE, layers=["session"], variations="none"
    )
    assert cases == [TOOL_FIRST, TOOL_FIRST]


def test_quirks_none_gives_the_scenarios_as_written() -> None:
    given: list[Scenario] = [PARALLEL, TOOL_FIRST, RECORDED]
    assert cases_to_run(given, CHAT_REFERENCE, quirks="none", variations="none") == given


def test_quirks_all_expands_each_driver_scenario_into_its_cases_in_the_adapters_dialect() -> None:
    cases = cases_to_run([TOOL_FIRST, PARALLEL], CHAT_REFERENCE, variations="none")
    expected = driver_cases(PARALLEL, dialects()["openai-chat"])
    assert len(expected) > 2
    assert cases == [TOOL_FIRST, *expected]
    assert cases[1] is PARALLEL
    assert cases[2].case_id.startswith("parallel-calls[openai-chat+")


def test_variations_all_expands_each_session_scenario_into_its_variation_cases() -> None:
    cases = cases_to_run([TOOL_FIRST, PARALLEL], CHAT_REFERENCE, quirks="none")
    varied = session_cases(TOOL_FIRST)
    assert len(varied) > 2 and varied[0] is TOOL_FIRST
    assert cases == [*varied, PARALLEL]
    assert cases[1].case_id.startswith("tool-first-turn[")


def test_one_named_case_leaves_out_the_scenarios_that_cannot_carry_it() -> None:
    (case,) = cases_to_run([RECORDED, PARALLEL], CHAT_REFERENCE, quirks=("usage_chunk",))
    assert case.case_id == "parallel-calls[openai-chat+usage_chunk]"


def test_a_named_case_no_scenario_can_carry_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as raised:
        cases_to_run([RECORDED], CHAT_REFERENCE, quirks=("usage_chunk",), where="a.yaml, b")
    assert str(raised.value) == "no scenario under a.yaml, b can carry --quirks"


def test_a_quirk_the_dialect_lacks_is_a_usage_error_naming_its_quirks() -> None:
    with pytest.raises(UsageError) as raised:
        cases_to_run([PARALLEL], CHAT_REFERENCE, quirks=("padded_json",))
    assert str(raised.value).startswith(
        "--quirks: openai-chat has no quirk 'padded_json' (its quirks: crlf, lone_cr, "
        "ascii_escapes, same_index, no_index, "
    )


def test_no_scenarios_give_no_cases() -> None:
    assert cases_to_run([], CHAT_REFERENCE, quirks=("usage_chunk",)) == []


def test_run_cases_yields_each_result_in_order_replaying_only_when_asked() -> None:
    cases = cases_to_run([PARALLEL, TOOL_FIRST], CHAT_REFERENCE)[:3]
    told: list[tuple[int, str]] = []
    results = run_cases(
        cases, CHAT_REFERENCE, on_case=lambda number, case: told.append((number, case.case_id))
    )
    assert told == []  # nothing runs before the first result is asked for
    first = next(results)
    assert told == [(1, cases[0].case_id)]
    assert first.scenario is cases[0]
    rest = list(results)
    assert [r.scenario for r in [first, *rest]] == cases
    assert told == [(n, case.case_id) for n, case in enumerate(cases, 1)]
    assert [r.status for r in [first, *rest]] == ["pass", "pass", "pass"]


def test_run_cases_gives_what_replay_gives() -> None:
    (result,) = run_cases([TOOL_FIRST], SESSION_REFERENCE, timeout=5)
    alone = replay(TOOL_FIRST, SESSION_REFERENCE, timeout=5)
    assert (result.status, result.adapter, result.rules_checked) == (
        alone.status,
        alone.adapter,
        alone.rules_checked,
    )


def test_the_rules_given_once_reach_every_replay() -> None:
    rule = "backward-attachment"
    results = list(run_cases([TOOL_FIRST, TOOL_FIRST], SESSION_REFERENCE, only_rules=iter([rule])))
    assert [r.rules_checked for r in results] == [(rule,), (rule,)]
    results = list(run_cases([TOOL_FIRST, TOOL_FIRST], SESSION_REFERENCE, skip_rules=iter([rule])))
    assert all(rule not in r.rules_checked and r.rules_checked for r in results)
