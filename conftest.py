"""Shared fixtures for the harness's own test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.scenario import Scenario
from tests.scenarios_for_tests import load_every

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent
LIBRARY = ROOT / "scenarios"


@pytest.fixture(scope="session")
def library() -> list[Scenario]:
    """Every scenario of the built-in library, loaded once."""
    return load_every(LIBRARY)


@pytest.fixture(autouse=True)
def _doctests_run_at_the_root(request: pytest.FixtureRequest) -> None:
    """The package's examples name files as a reader at the repository root does."""
    if isinstance(request.node, pytest.DoctestItem):
        request.getfixturevalue("monkeypatch").chdir(ROOT)
