"""UI protocols as session dialects (harness/codecs/session/): each profile names every session
rule, a scenario a protocol cannot carry is a skip that says why, and the protocol's reference
consumer passes every case it can carry."""

from __future__ import annotations

import pytest

from harness.adapters.registry import BUNDLED
from harness.codecs.session import session_codecs
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.rules.registry import RULES
from tests.scenarios_for_tests import LIBRARY, load_folder

SCENARIOS, _ = load_folder(LIBRARY)
SESSION = [s for s in SCENARIOS if s.layer == "session"]
DIALECTS = sorted(session_codecs())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_profile_says_how_every_session_rule_reads(dialect: str) -> None:
    codec = session_codecs()[dialect]
    rules = {r.id for r in RULES.values() if r.layer == "session"}
    assert set(codec.profile) == rules
    assert all(use.statement for use in codec.profile.values())
    assert all(codec.quirks.values())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_dialect_has_a_reference_consumer(dialect: str) -> None:
    info = BUNDLED[f"session-{dialect}-reference"]
    assert getattr(info.factory, "session_dialect") == dialect  # noqa: B009 (not every factory's)


def test_a_scenario_ag_ui_cannot_carry_is_skipped_with_the_reason() -> None:
    scenario = next(s for s in SESSION if s.id == "streamed-tool-result-parts")
    result = replay(scenario, "session-ag-ui-reference")
    assert result.status == "skip"
    assert "AG-UI streams no tool output" in (result.skip_reason or "")


def test_a_canonical_consumer_is_not_fed_a_dialect() -> None:
    scenario = next(s for s in SESSION if s.id == "streamed-tool-result-parts")
    assert replay(scenario, "session-reference").status == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_passes_every_case_it_can_carry(dialect: str) -> None:
    info = BUNDLED[f"session-{dialect}-reference"]
    statuses = {}
    for case in cases_for(SESSION, info):
        result = replay(case, info)
        statuses[getattr(case, "case_id", case.id)] = result.status
        assert result.status in ("pass", "skip"), result.error or [
            (v.rule, v.message) for v in result.violations
        ]
    assert list(statuses.values()).count("pass") >= 100
