"""Moved to ``harness.standin``: this module re-exports it, so imports of ``harness.serve`` keep
working."""

from harness.standin import (
    Cut,
    Drop,
    Fault,
    ReceivedRequest,
    Split,
    Stall,
    Stand,
    parse_fault,
    serving,
)
from harness.standin.programs import _program as _program

__all__ = [
    "Cut",
    "Drop",
    "Fault",
    "ReceivedRequest",
    "Split",
    "Stall",
    "Stand",
    "parse_fault",
    "serving",
]
