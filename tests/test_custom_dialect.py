"""examples/custom-dialect, run as its team runs it: a project outside this repository with a wire
dialect of its own (a codec registered in its conftest.py) and a driver that reads it, through
which the built-in driver scenario library runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.library import library_path
from harness.scenario import DriverScenario
from tests.projects_for_tests import PYTEST, copy_example, outcomes, run_as_its_team
from tests.scenarios_for_tests import load_every

OWN = "scenarios/batched-parallel-calls.yaml::switchyard-batched-parallel-calls"


def _open_driver_scenarios() -> set[str]:
    """The library's driver scenarios open to every dialect, as pytest names their items."""
    return {
        f"harness-library/driver/{Path(s.path).name}::{s.id}"
        for s in load_every(library_path())
        if isinstance(s, DriverScenario) and not s.dialects
    }


def _run(project: Path, bug: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {} if bug is None else {"SWITCHYARD_BUG": bug}
    return run_as_its_team([*PYTEST, "-rA"], project, unset=("SWITCHYARD_",), env=env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example("custom-dialect", tmp_path / "switchyard-client")


@pytest.mark.slow
def test_the_driver_library_runs_in_the_custom_dialect(project: Path) -> None:
    result = _run(project)

    out = result.stdout
    assert result.returncode == 0, out
    passed = outcomes(out, "PASSED")
    # every library scenario open to every dialect runs in the registered one, and passes
    library = {p for p in passed if p.startswith("harness-library/")}
    assert {p.split("[")[0] for p in library} == _open_driver_scenarios(), out
    # and under the registered dialect's quirks, as cases of their own
    assert any("[switchyard-ndjson+" in p for p in library), out
    assert OWN in passed, out  # the own scenario names the dialect and its quirks
    assert len({p for p in passed if p.startswith("tests/")}) == 3, out
    assert not outcomes(out, "FAILED") and not outcomes(out, "ERROR"), out
    # the scenarios pinned to other dialects are skipped, saying so
    assert "the scenario runs in openai-chat, not switchyard-ndjson" in out, out


@pytest.mark.slow
def test_a_driver_with_one_bug_fails_in_the_custom_dialect(project: Path) -> None:
    result = _run(project, bug="ends-at-first-end")

    out = result.stdout
    assert result.returncode == 1, out
    failed = outcomes(out, "FAILED")
    assert {"harness-library/driver/multi-cycle-turn.yaml::multi-cycle-turn", OWN} <= failed, out
    assert not {f for f in failed if f.startswith("tests/")}, out
    assert "[turn-lifetime]" in out, out
