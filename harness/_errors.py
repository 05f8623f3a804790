"""Every exception the harness raises on purpose.

HarnessError
 +-- UsageError            bad command line, configuration or adapter name (exit code 2)
 +-- ScenarioError         a scenario file is malformed; carries located problems (exit code 2)
 +-- AdapterError          the adapter under test misbehaved: raised, hung, returned garbage
 +-- ConformanceFailure    (also an AssertionError) rules were violated; pytest shows it as a
                           plain test failure
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class HarnessError(Exception):
    """Root of the harness's own exceptions."""


class UsageError(HarnessError):
    """The command line, the configuration or an adapter reference is wrong."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One located problem in an input file."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ScenarioError(HarnessError):
    """One or more problems in a scenario file, each with its file and line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class AdapterError(HarnessError):
    """The adapter under test misbehaved (raised, hung or returned a malformed observation)."""


class ConformanceFailure(HarnessError, AssertionError):
    """A replay violated conformance rules."""
