"""The cases an adapter runs: each scenario of its layer, driver scenarios once per case of the
quirk cross product in the adapter's dialect (``harness.scenario.cases``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from harness.adapters.registry import AdapterInfo, adapter_dialect
from harness.codecs import Codec, dialects
from harness.scenario import DriverScenario, Scenario
from harness.scenario.cases import ALL, NONE, Selection, driver_cases, select_cases


def cases_for(
    scenarios: Iterable[Scenario],
    adapter: AdapterInfo,
    selection: Selection = ALL,
    codecs: Mapping[str, Codec] | None = None,
) -> list[Scenario]:
    """``scenarios`` with each driver scenario replaced by its cases in the adapter's dialect. A
    driver scenario the dialect cannot carry, or any when the adapter names no known dialect,
    stays as written: its replay is then a skip that says why. ``selection``: ``"all"``,
    ``"none"`` (the scenarios as written) or the quirks of the one case to run."""
    known = dialects() if codecs is None else codecs
    dialect = None
    out: list[Scenario] = []
    for scenario in scenarios:
        if not isinstance(scenario, DriverScenario):
            out.append(scenario)
            continue
        if dialect is None:
            dialect = adapter_dialect(adapter) or ""
        codec = known.get(dialect)
        chosen = select_cases(scenario, codec, selection) if codec else ()
        if chosen:
            out.extend(chosen)
        elif (
            codec is None
            or selection in (ALL, NONE)
            or not driver_cases(scenario, codec, pairs=False)
        ):
            out.append(scenario)  # the dialect cannot carry it at all: its replay says why
        # else: the one case the selection names, which this scenario cannot carry, left out
    return out
