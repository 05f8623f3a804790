"""Shared fixtures for the harness's own test suite."""

from __future__ import annotations

import pytest

from tests.scenarios_for_tests import ROOT

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _doctests_run_at_the_root(request: pytest.FixtureRequest) -> None:
    """The package's examples name files as a reader at the repository root does."""
    if isinstance(request.node, pytest.DoctestItem):
        request.getfixturevalue("monkeypatch").chdir(ROOT)
