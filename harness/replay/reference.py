"""The reference comparison's replays: the bundled reference consumer of a layer replayed over a
scenario, its normalised observation at every point kept as a hash (once per scenario, for every
adapter after), and made again in full where an adapter's differs (``harness.rules.reference``).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from harness.adapters.registry import resolve_adapter
from harness.adapters.session_dialect import in_dialect
from harness.codecs.session.base import SessionCodec, encoder_for
from harness.replay._watchdog import Progress
from harness.replay.history import HistoryReplay
from harness.replay.session import SessionReplay
from harness.rules.reference import (
    REFERENCE_RULES,
    ReferenceComparison,
    ReferencePoints,
    trace_marks,
)
from harness.scenario import SessionScenario

_EXPECTED: weakref.WeakKeyDictionary[SessionScenario, ReferencePoints | None] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()


def reference_name(scenario: SessionScenario, dialect: SessionCodec | None = None) -> str:
    """The bundled reference of the scenario's layer, or of a session dialect."""
    if dialect is not None:
        return f"{scenario.layer}-{dialect.name}-reference"
    return f"{scenario.layer}-reference"


def _replayed(
    scenario: SessionScenario, points: ReferencePoints, dialect: SessionCodec | None
) -> ReferencePoints | None:
    """The reference consumer replayed over the scenario, observed by ``points`` (None if it
    raised: then there is nothing to compare with)."""
    kind = HistoryReplay if scenario.layer == "history" else SessionReplay
    run = kind(scenario, [])
    run.oracle = points
    try:
        adapter = resolve_adapter(reference_name(scenario, dialect)).factory()
        if dialect is not None:
            encoder = encoder_for(dialect, run.delivered, scenario.producer)
            adapter = in_dialect(adapter, encoder)
        run.run(adapter, Progress())
    except Exception:  # the reference is not what is tested; without it, nothing is compared
        return None
    return points


def expected(
    scenario: SessionScenario, dialect: SessionCodec | None = None
) -> ReferencePoints | None:
    """The reference's observations of the scenario, one hash per point: made once per
    scenario (a dialect's case is a scenario of its own), for every adapter after."""
    with _LOCK:
        if scenario not in _EXPECTED:
            _EXPECTED[scenario] = _replayed(
                scenario, ReferencePoints(trace_marks(scenario.trace)), dialect
            )
        return _EXPECTED[scenario]


def compare_with_reference(
    run: SessionReplay, adapter: str, rules: list[Any], dialect: SessionCodec | None = None
) -> None:
    """Have ``run`` compare its adapter's observations with the reference's (of the session
    dialect the adapter reads, if any), when the rule is enabled and the adapter is not the
    reference itself."""
    scenario = run.scenario
    comparison = next((r for r in rules if r.id in REFERENCE_RULES), None)
    if comparison is None or adapter == reference_name(scenario, dialect):
        return

    def again(indices: frozenset[int]) -> ReferencePoints | None:
        points = expected(scenario, dialect)
        return (
            None
            if points is None
            else _replayed(scenario, ReferencePoints(points.marks, indices), dialect)
        )

    run.oracle = ReferenceComparison(lambda: expected(scenario, dialect), comparison.check, again)
