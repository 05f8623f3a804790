"""Replay scenarios against adapters."""

from __future__ import annotations

from harness.replay.result import ScenarioResult
from harness.replay.run import DEFAULT_TIMEOUT, replay

__all__ = ["DEFAULT_TIMEOUT", "ScenarioResult", "replay"]
