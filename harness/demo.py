"""The conformance matrix: every bundled adapter against the scenario library, at a glance."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.replay.result import ScenarioResult
from harness.scenario import Scenario


@dataclass(frozen=True)
class Row:
    adapter: AdapterInfo
    results: tuple[ScenarioResult, ...]

    @property
    def failed(self) -> tuple[ScenarioResult, ...]:
        return tuple(r for r in self.results if r.status in ("fail", "error"))

    @property
    def caught_by(self) -> tuple[str, ...]:
        return tuple(sorted({rule for r in self.results for rule in r.rules_broken}))

    @property
    def ok(self) -> bool:
        if self.adapter.kind == "reference":
            return not self.failed
        return any(r.status == "fail" for r in self.results)


def run_matrix(
    scenarios: Sequence[Scenario],
    adapters: Sequence[AdapterInfo] | None = None,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[Row]:
    """Every adapter against the scenarios of its layer; ``on_result`` is told of each result
    as it comes (``harness demo`` shows progress with it)."""
    adapters = list(BUNDLED.values()) if adapters is None else list(adapters)
    rows = []
    layers = {s.layer for s in scenarios}
    for adapter in adapters:
        if adapter.layer not in layers:
            continue  # no scenario of its layer among those given
        mine = cases_for([s for s in scenarios if s.layer == adapter.layer], adapter)
        results = []
        for scenario in mine:
            results.append(replay(scenario, adapter))
            if on_result is not None:
                on_result(results[-1])
        rows.append(Row(adapter, tuple(results)))
    return rows


def render_matrix(rows: Sequence[Row]) -> str:
    width = max(len(r.adapter.name) for r in rows)
    lines = []
    for layer in dict.fromkeys(r.adapter.layer for r in rows):
        layer_rows = [r for r in rows if r.adapter.layer == layer]
        count = len({r.scenario.id for r in layer_rows[0].results})
        cases = sum(len(r.results) for r in layer_rows)
        lines.append(
            f"{layer} layer: {count} scenarios x {len(layer_rows)} adapters ({cases} cases)"
        )
        lines.append("")
        lines.append(f"  {'adapter':<{width}}  {'failed':>8}  verdict")
        for row in layer_rows:
            failed = f"{len(row.failed)}/{len(row.results)}"
            if row.adapter.kind == "reference":
                verdict = "ok, passes every scenario" if row.ok else "BROKEN: the reference fails"
            elif row.ok:
                verdict = "caught by " + ", ".join(row.caught_by)
            else:
                verdict = "NOT CAUGHT: no scenario detects this bug"
            mark = "ok " if row.ok else "!! "
            lines.append(f"{mark}{row.adapter.name:<{width}}  {failed:>8}  {verdict}")
            if row.adapter.bug:
                lines.append(f"   {'':<{width}}            bug: {row.adapter.bug}")
            if row.adapter.kind == "reference" and not row.ok:
                for result in row.failed:
                    lines.append(
                        f"   {'':<{width}}            fails {result.scenario.id}: {result.error or ', '.join(result.rules_broken)}"
                    )
        lines.append("")
    mutants = [r for r in rows if r.adapter.kind == "mutant"]
    caught = sum(r.ok for r in mutants)
    references = [r for r in rows if r.adapter.kind == "reference"]
    lines.append(
        f"{sum(r.ok for r in references)}/{len(references)} reference adapters pass everything; "
        f"{caught}/{len(mutants)} mutants caught"
    )
    return "\n".join(lines)


def render_libraries(scenarios: Sequence[Scenario]) -> str | None:
    """One line per real consumer library (``harness matrix``) over the driver scenarios among
    ``scenarios``; None when there are none. A library that is not installed is named with the
    extra that installs it, so the demo runs the same without them."""
    from harness.matrix import render_summary, run_libraries

    if not any(s.layer == "driver" for s in scenarios):
        return None
    return render_summary(run_libraries(scenarios))
