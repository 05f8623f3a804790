"""Scenarios for the tests, typed by their layer: a test that reads a driver scenario's turn or a
session scenario's trace loads it through one of these, which fails the test plainly when the file
holds the other kind."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from harness._errors import Problem
from harness.model import driver as dv
from harness.scenario import (
    DriverScenario,
    Scenario,
    SessionScenario,
    load_all,
    load_scenario,
    parse_scenario,
)
from harness.wire.recordings import RecordedResponse, recorded_streams

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "scenarios"


def as_session(scenario: Scenario) -> SessionScenario:
    assert isinstance(scenario, SessionScenario), f"{scenario.path} is a {scenario.layer} scenario"
    return scenario


def as_driver(scenario: Scenario) -> DriverScenario:
    assert isinstance(scenario, DriverScenario), f"{scenario.path} is a {scenario.layer} scenario"
    return scenario


def load_session(path: str | Path) -> SessionScenario:
    return as_session(load_scenario(path))


def load_driver(path: str | Path) -> DriverScenario:
    return as_driver(load_scenario(path))


def parse_session(text: str, path: str = "inline.yaml") -> SessionScenario:
    return as_session(parse_scenario(text, path))


def parse_driver(text: str, path: str = "inline.yaml") -> DriverScenario:
    return as_driver(parse_scenario(text, path))


def library_driver(name: str) -> DriverScenario:
    """The library's driver scenario ``scenarios/driver/NAME.yaml``."""
    return load_driver(LIBRARY / "driver" / f"{name}.yaml")


_HOLDER = parse_driver(
    "id: generated\ntitle: t\ndescription: d\nsource: tests\nlayer: driver\n"
    "trace:\n  - cycle: {blocks: [{text: hi}]}\n",
    "generated.yaml",
)


def turn_scenario(
    turn: Sequence[dv.TurnEvent],
    *,
    id: str = "generated",
    dialects: tuple[str, ...] = (),
    quirks: tuple[str, ...] = (),
    cancel_after_reads: int | None = None,
) -> DriverScenario:
    """A driver scenario around a turn a test built or decoded (no YAML says it)."""
    return dataclasses.replace(
        _HOLDER,
        id=id,
        turn=tuple(turn),
        dialects=dialects,
        quirks=quirks,
        cancel_after_reads=cancel_after_reads,
    )


@cache
def library() -> tuple[Scenario, ...]:
    """The built-in library, loaded once per test process (scenarios are frozen)."""
    return tuple(load_every(LIBRARY))


def load_every(folder: Path) -> list[Scenario]:
    """Every scenario under ``folder``, which must all load."""
    scenarios, problems = load_folder(folder)
    assert not problems, "\n".join(map(str, problems))
    return scenarios


def load_folder(folder: str | Path) -> tuple[list[Scenario], list[Problem]]:
    """``load_all([folder])`` of a folder no test writes to (the library, an example's), read
    once per test process: the modules that load the library at import shared the work."""
    scenarios, problems = _loaded(Path(folder).resolve())
    return list(scenarios), list(problems)


@cache
def _loaded(folder: Path) -> tuple[tuple[Scenario, ...], tuple[Problem, ...]]:
    scenarios, problems = load_all([folder])
    return tuple(scenarios), tuple(problems)


@cache
def streams_of(path: Path) -> tuple[RecordedResponse, ...]:
    """``recorded_streams(path)`` of a recording no test writes to, read once per test process
    (a response is frozen)."""
    return recorded_streams(path)
