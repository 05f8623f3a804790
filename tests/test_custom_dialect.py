"""examples/custom-dialect, run as its team runs it: a project outside this repository with a wire
dialect of its own (a codec registered in its conftest.py) and a driver that reads it, through
which the built-in driver scenario library runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.library import library_path
from harness.scenario import DriverScenario, load_all

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "custom-dialect"
PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-rA",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:benchmark",
]
OWN = "scenarios/batched-parallel-calls.yaml::switchyard-batched-parallel-calls"


def _open_driver_scenarios() -> set[str]:
    """The library's driver scenarios open to every dialect, as pytest names their items."""
    scenarios, problems = load_all([library_path()])
    assert not problems, "\n".join(map(str, problems))
    return {
        f"harness-library/driver/{Path(s.path).name}::{s.id}"
        for s in scenarios
        if isinstance(s, DriverScenario) and not s.dialects
    }


def _run(project: Path, bug: str | None = None) -> subprocess.CompletedProcess[str]:
    # A user's shell has none of the PYTEST_* variables this (outer) run sets or was given.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SWITCHYARD_"))}
    if bug is not None:
        env["SWITCHYARD_BUG"] = bug
    return subprocess.run(
        PYTEST,
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )


def _outcomes(output: str, word: str) -> set[str]:
    return set(re.findall(rf"^{word} (\S+)", output, re.M))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "switchyard-client"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return copy


def test_the_driver_library_runs_in_the_custom_dialect(project: Path) -> None:
    result = _run(project)

    out = result.stdout
    assert result.returncode == 0, out
    passed = _outcomes(out, "PASSED")
    # every library scenario open to every dialect runs in the registered one, and passes
    assert {p for p in passed if p.startswith("harness-library/")} == _open_driver_scenarios(), out
    assert OWN in passed, out  # the own scenario names the dialect and its quirks
    assert len({p for p in passed if p.startswith("tests/")}) == 3, out
    assert not _outcomes(out, "FAILED") and not _outcomes(out, "ERROR"), out
    # the scenarios pinned to other dialects are skipped, saying so
    assert "the scenario runs in openai-chat, not switchyard-ndjson" in out, out


def test_a_driver_with_one_bug_fails_in_the_custom_dialect(project: Path) -> None:
    result = _run(project, bug="ends-at-first-end")

    out = result.stdout
    assert result.returncode == 1, out
    failed = _outcomes(out, "FAILED")
    assert {"harness-library/driver/multi-cycle-turn.yaml::multi-cycle-turn", OWN} <= failed, out
    assert not {f for f in failed if f.startswith("tests/")}, out
    assert "[turn-lifetime]" in out, out
