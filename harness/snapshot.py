"""Moved to ``harness.report.snapshot``; this module re-exports its names for the imports that
name the old place."""

from harness.report.snapshot import ScenarioSnapshotExtension

__all__ = ["ScenarioSnapshotExtension"]
