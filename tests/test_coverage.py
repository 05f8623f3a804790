"""harness coverage: how many scenarios exercise each rule and catch each mutant, and how many
run under each quirk; counted here again from direct replays."""

from __future__ import annotations

import pytest

from harness.adapters.registry import BUNDLED
from harness.cli import main
from harness.coverage import MUTANT_AIM, RULE_AIM, measure
from harness.demo import run_matrix
from harness.replay import cases_to_run, replay
from harness.scenario import load_all
from tests.scenarios_for_tests import LIBRARY

HISTORY, _ = load_all([LIBRARY / "history"])


@pytest.mark.slow
def test_counts_agree_with_replaying_each_mutant() -> None:
    coverage = measure(run_matrix(HISTORY))
    mutants = [a for a in BUNDLED.values() if a.layer == "history" and a.kind == "mutant"]
    exercised: dict[str, set[str]] = {}
    for mutant in mutants:
        caught = set()
        for scenario in cases_to_run(HISTORY, mutant):  # each with its variations
            result = replay(scenario, mutant)
            if result.status == "fail":
                caught.add(scenario.id)
                for rule in result.rules_broken:
                    exercised.setdefault(rule, set()).add(scenario.id)
        assert coverage.mutants[mutant.name][0] == caught, mutant.name
    for rule, (scenarios, _) in coverage.rules.items():
        assert scenarios == exercised.get(rule, set()), rule
    assert set(coverage.thin_rules) == {
        r for r in coverage.rules if len(exercised.get(r, ())) < RULE_AIM
    }
    assert set(coverage.thin_mutants) == {
        m for m, (s, _) in coverage.mutants.items() if len(s) < MUTANT_AIM
    }


@pytest.mark.slow
def test_the_command_prints_the_three_tables_and_what_is_thin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["coverage", str(LIBRARY / "history")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rule ")
    assert "\nmutant " in out and "\nquirk (dialect) " in out
    assert "\nvariation (layer) " in out and "\ninterleaved (history) " in out
    assert "    not in 2: its sub-sessions are unlabelled" in out
    assert f"rules exercised by fewer than {RULE_AIM} scenarios: " in out
    assert f"mutants caught by fewer than {MUTANT_AIM} scenarios: " in out
