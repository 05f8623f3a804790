"""Replay scenarios against adapters."""

from __future__ import annotations

from harness.replay.result import ScenarioResult
from harness.replay.run import DEFAULT_TIMEOUT, cases_to_run, replay, run_cases

__all__ = ["DEFAULT_TIMEOUT", "ScenarioResult", "cases_to_run", "replay", "run_cases"]
