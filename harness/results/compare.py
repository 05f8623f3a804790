"""The comparison with the reference consumer: for a result, the bundled reference consumer
whose view of its case is the expected one, that case replayed through it (once, whichever
report asks first), and what a consumer showed at the end as plain data, the adapter's and the
reference's. The text report draws it as a diff, the HTML report as two columns.
"""

from __future__ import annotations

import functools
from typing import Any

from harness.model.driver import ByteRead
from harness.replay.result import ScenarioResult
from harness.scenario import Scenario


def reference_for(result: ScenarioResult) -> str | None:
    """The bundled reference consumer whose view of the result's case is the expected one: the
    layer's, or for a driver the reference of the dialect the case ran in (reading bytes if the
    adapter did); None where there is none."""
    from harness.adapters.registry import BUNDLED

    run = result.driver_run
    if result.scenario.layer != "driver":
        name = f"{result.scenario.layer}-reference"
    elif run is None:
        return None
    elif any(isinstance(c, ByteRead) for c in run.chunks):
        name = f"driver-{run.dialect}-bytes-reference"
    else:
        name = f"driver-{run.dialect}-reference"
    return name if name in BUNDLED else None


def reference_result(result: ScenarioResult) -> ScenarioResult | None:
    """The same case replayed through its reference consumer (None: no reference, the adapter
    is the reference, or the reference errs)."""
    name = reference_for(result)
    if name is None or name == result.adapter:
        return None
    return _replayed(result.scenario, name)


@functools.lru_cache(maxsize=32)  # the text and the HTML report of one failure ask alike
def _replayed(scenario: Scenario, adapter: str) -> ScenarioResult | None:
    from harness.replay import replay

    reference = replay(scenario, adapter)
    return None if reference.status == "error" else reference


def observed_data(result: ScenarioResult) -> Any:
    """What the consumer showed at the end, as the snapshot holds it (a history adapter: what
    it stored per session); None when the replay did not get that far."""
    if result.histories is not None:
        return {
            session: [m.to_json() for m in stored.stored]
            for session, stored in result.histories.items()
        }
    if result.observation is not None:
        return result.observation.to_data()
    return None


def expected_data(result: ScenarioResult) -> tuple[str, Any] | None:
    """What the case's reference consumer shows for it: (its name, the data)."""
    reference = reference_result(result)
    return None if reference is None else (reference.adapter, observed_data(reference))
