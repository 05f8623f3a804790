"""The session and history strategies: valid documents, which the references pass and which
find every bundled mutant's bug in a few events."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import InvalidArgument

from harness import replay
from harness.scenario import SessionScenario, parse_scenario
from harness.strategies import (
    dump_document,
    scenario_from_document,
    session_documents,
    session_scenarios,
)
from tests.budgets import examples

REFERENCES = {
    "session": ("session-reference",),
    "history": ("history-reference", "history-openai-reference"),
}


@pytest.mark.parametrize(
    ("kwargs", "wrong"),
    [
        ({"layer": "driver"}, "layer='driver'"),
        ({"max_turns": 0}, "max_turns=0"),
        ({"max_turns": True}, "max_turns=True"),
        ({"faults": "yes"}, "faults='yes'"),
    ],
)
def test_bad_arguments_are_refused_when_the_strategy_is_built(
    kwargs: dict[str, object], wrong: str
) -> None:
    with pytest.raises(InvalidArgument, match=wrong):
        session_documents(**kwargs)  # type: ignore[arg-type]


@settings(max_examples=examples(50), database=None, deadline=None)
@given(session_documents(layer="history"))
def test_documents_round_trip_through_their_yaml(document: dict[str, object]) -> None:
    scenario = scenario_from_document(document)
    again = parse_scenario(dump_document(document), "kept.yaml")
    assert [e.kind for e in again.events] == [e.kind for e in scenario.events]
    assert again.events == scenario.events
    assert isinstance(scenario, SessionScenario)
    assert scenario.observe_every_event and "explored" in scenario.tags


@settings(max_examples=examples(20), database=None, deadline=None)
@given(session_scenarios(max_turns=1, subsessions=False, resumes=False, faults=False))
def test_the_plain_options_draw_plain_traces(scenario: object) -> None:
    kinds = {e.kind for e in scenario.events}  # type: ignore[attr-defined]
    assert not kinds & {"subsession_start", "resume"}
    assert sum(e.kind == "user_message" for e in scenario.events) == 1  # type: ignore[attr-defined]


def _references_pass(layer: str, budget: int, **options: bool) -> None:
    """The references pass ``examples(budget)`` generated traces: the same ones on every run."""

    @settings(
        max_examples=examples(budget),
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(session_scenarios(layer=layer, **options))
    def check(scenario: object) -> None:
        for reference in REFERENCES[layer]:
            result = replay(scenario, reference)  # type: ignore[arg-type]
            assert result.status == "pass", (reference, result.violations)

    check()


#: hypothesis marks a test that is @given; these three run a @given property inside, and are
#: marked so that make test-exhaustive gives them their whole budget too
@pytest.mark.slow
@pytest.mark.hypothesis
def test_the_session_reference_passes_every_generated_trace() -> None:
    _references_pass("session", 2000)


@pytest.mark.slow
@pytest.mark.hypothesis
def test_the_history_references_pass_every_trace_without_resumes() -> None:
    _references_pass("history", 2000, resumes=False)


@pytest.mark.slow
@pytest.mark.hypothesis
def test_the_history_references_pass_every_trace_with_resumes() -> None:
    _references_pass("history", 2000)
