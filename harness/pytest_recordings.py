"""Moved to ``harness.report.recordings``; this module re-exports its names for the imports
that name the old place (the pytest plugin's among them)."""

from harness.report.recordings import (
    INI,
    OPTION,
    RecordingFile,
    RecordingItem,
    add_options,
    collect,
    driver_outcome,
    recording_folders,
)

__all__ = [
    "INI",
    "OPTION",
    "RecordingFile",
    "RecordingItem",
    "add_options",
    "collect",
    "driver_outcome",
    "recording_folders",
]
