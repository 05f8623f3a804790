"""Shared fixtures for the harness's own test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.scenario import Scenario, load_all

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent
LIBRARY = ROOT / "scenarios"


@pytest.fixture(scope="session")
def library() -> list[Scenario]:
    """Every scenario of the built-in library, loaded once."""
    scenarios, problems = load_all([LIBRARY])
    assert not problems, "\n".join(map(str, problems))
    return scenarios
