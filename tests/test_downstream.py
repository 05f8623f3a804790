"""examples/downstream, run as its team runs it: a project of its own, outside this repository.

The project has its own consumer (chatui), its own adapter, one scenario of its own and a few unit
tests; its pytest configuration alone brings in the harness's scenario library.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from harness.library import library_path
from harness.rules.registry import rules_for
from harness.scenario import SessionScenario
from harness.scenario.variations import session_cases
from tests.projects_for_tests import (
    EXAMPLES,
    PYTEST,
    copy_example,
    outcomes,
    rule_table,
    run_as_its_team,
)
from tests.scenarios_for_tests import load_every

ADAPTER = "chatui_testing:make_adapter"


def _scenarios(folder: Path, layer: str | None = None) -> list[str]:
    return [s.id for s in load_every(folder) if layer is None or s.layer == layer]


LIBRARY = _scenarios(library_path())
LIBRARY_SESSION = _scenarios(library_path(), "session")
OWN_SCENARIOS = _scenarios(EXAMPLES / "downstream" / "scenarios")
#: library scenarios of the other adapter layers: chatui's adapter implements only the session
#: layer (loop scenarios are no adapter's: `harness loop` runs them)
SKIPPED = len(_scenarios(library_path(), "history")) + len(_scenarios(library_path(), "driver"))


def _cases(folder: Path) -> int:
    """The items a session scenario folder runs as: each scenario as written and under each of
    its variations (harness/scenario/variations.py), one item each."""
    return sum(
        len(session_cases(s))
        for s in load_every(folder)
        if isinstance(s, SessionScenario) and s.layer == "session"
    )


#: the items the library's session scenarios and the project's own run as
LIBRARY_CASES = _cases(library_path())
OWN_CASES = _cases(EXAMPLES / "downstream" / "scenarios")


def _summary(output: str) -> dict[str, int]:
    """The counts of pytest's final line, e.g. "3 failed, 38 passed in 1.41s", but warnings."""
    last = output.strip().splitlines()[-1]
    assert re.fullmatch(r"=*\s*\d+ \w+(, \d+ \w+)* in [\d.]+s( \([\d:]+\))?\s*=*", last), last
    counts = re.findall(r"(\d+) (\w+)", last.split(" in ")[0])
    return {word: int(n) for n, word in counts if word not in ("warning", "warnings")}


def _skipped(n: int) -> dict[str, int]:
    return {"skipped": n} if n else {}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example("downstream", tmp_path / "chatui-core")


def _unit_tests(project: Path) -> list[str]:
    collected = run_as_its_team([*PYTEST, "--collect-only", "tests"], project)
    assert collected.returncode == 0, collected.stdout
    return [line for line in collected.stdout.splitlines() if line.startswith("tests/")]


def test_the_expected_counts_come_from_real_scenarios():
    assert OWN_SCENARIOS == ["chatui-231-calls-on-latest-message"]
    assert len(LIBRARY_SESSION) >= 37


@pytest.mark.slow
def test_project_passes_the_library_its_own_scenario_and_its_unit_tests(project):
    unit_tests = _unit_tests(project)
    assert len(unit_tests) == 3, unit_tests

    result = run_as_its_team(PYTEST, project)

    assert result.returncode == 0, result.stdout
    expected = LIBRARY_CASES + OWN_CASES + len(unit_tests)
    # the library's other layers are left out, not skipped: one line says so
    assert _summary(result.stdout) == {"passed": expected}, result.stdout
    assert (
        f"{SKIPPED} scenarios of the history and driver layers left out: {ADAPTER} implements session"
        in result.stdout
    )
    # every session rule was checked on every replayed scenario, and passed
    replayed = LIBRARY_CASES + OWN_CASES
    table = rule_table(result.stdout)
    assert {r.id: table.get(r.id) for r in rules_for("session")} == {
        r.id: (replayed, 0, 0) for r in rules_for("session")
    }, result.stdout
    assert all(failed == 0 for _, failed, _ in table.values()), result.stdout


@pytest.mark.slow
def test_a_seed_bug_put_back_in_the_consumer_is_caught_and_named(project):
    # a known bug: the ToolCallManager keys notifications by tool call id only
    source = project / "chatui" / "tool_calls.py"
    text = source.read_text()
    correct = 'return f"{session_id}:{tool_call_id}"'
    assert text.count(correct) == 1
    source.write_text(text.replace(correct, "return tool_call_id"))

    result = run_as_its_team(PYTEST, project)

    out = result.stdout
    assert result.returncode == 1, out
    failed = outcomes(out, "FAILED")
    same_id = "same-id-parent-and-subsession"
    assert f"harness-library/session/{same_id}.yaml::{same_id}" in failed, out
    assert (
        "tests/test_processor.py::test_subsession_call_with_same_id_does_not_touch_parent_notification"
        in failed
    ), out
    total = LIBRARY_CASES + OWN_CASES + len(_unit_tests(project))
    assert _summary(out) == {"failed": len(failed), "passed": total - len(failed)}, out
    assert "[session-keyed-tracking]" in out
    assert rule_table(out)["session-keyed-tracking"][1] >= 1, out
    # the reproduce lines, run as printed from the project folder (with its python), replay
    # that failure on their own: the library scenario named as its node id names it, and the
    # adapter left to the project's configuration
    # (the case as written: the variations left out)
    reproduce = (
        f"python -m harness run harness-library/session/{same_id}.yaml --adapter {ADAPTER}"
        " --variations=none"
    )
    assert f"  {reproduce}\n" in out
    assert f"  python -m pytest --harness-scenario={same_id} --harness-variations=none\n" in out
    again = run_as_its_team([sys.executable, *shlex.split(reproduce)[1:]], project)
    assert again.returncode == 1, again.stdout
    assert "[session-keyed-tracking]" in again.stdout
    assert "1 scenarios: 0 passed, 1 failed" in again.stdout
    again = run_as_its_team(
        [*PYTEST, f"--harness-scenario={same_id}", "--harness-variations=none"], project
    )
    # the same node id as in the full run (its unit tests, in testpaths, run too)
    scenarios_failed = {f for f in outcomes(again.stdout, "FAILED") if f.startswith("harness-")}
    assert scenarios_failed == {f"harness-library/session/{same_id}.yaml::{same_id}"}, again.stdout
