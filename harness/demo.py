"""The conformance matrix: every bundled adapter against the scenario library, at a glance."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.replay import cases_to_run, run_cases
from harness.replay.result import ScenarioResult
from harness.results.causes import group_causes
from harness.scenario import Scenario
from harness.scenario.cases import NONE


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
    first_party: bool = False,
) -> list[Row]:
    """Every adapter against the scenarios of its layer (``first_party``: only the cases of
    shapes first-party servers send); ``on_result`` is told of each result as it comes
    (``harness demo`` shows progress with it)."""
    rows = []
    for adapter, mine in _work(scenarios, adapters, first_party):
        results = []
        for result in run_cases(mine, adapter):
            results.append(result)
            if on_result is not None:
                on_result(result)
        rows.append(Row(adapter, tuple(results)))
    return rows


def _work(
    scenarios: Sequence[Scenario], adapters: Sequence[AdapterInfo] | None, first_party: bool
) -> list[tuple[AdapterInfo, list[Scenario]]]:
    """Each adapter with the cases it runs; none for an adapter whose layer no scenario has."""
    adapters = list(BUNDLED.values()) if adapters is None else list(adapters)
    layers = {s.layer for s in scenarios}
    return [
        (
            adapter,
            cases_to_run(scenarios, adapter, layers=(adapter.layer,), first_party=first_party),
        )
        for adapter in adapters
        if adapter.layer in layers
    ]


# -- the matrix of the bundled adapters in several processes ---------------------------------

#: what a worker process loaded: the scenarios of the paths it was given
_LOADED: list[Scenario] = []
#: the cases one task replays: small enough that the workers finish together
_SLICE = 100

#: a result without its scenario, observation or replay details: what a worker hands back
_Outcome = dict[str, Any]


def _load_in_worker(paths: Sequence[str]) -> None:
    from harness.scenario import load_all

    _LOADED[:] = load_all(paths)[0]  # the parent has loaded them already and reported problems


def _cases_in_worker(
    name: str, start: int, stop: int, first_party: bool
) -> tuple[list[str], list[_Outcome]]:
    """The bundled adapter ``name`` against its cases start..stop-1: each case's name and its
    outcome."""
    ((adapter, mine),) = _work(_LOADED, [BUNDLED[name]], first_party)
    cases = mine[start:stop]
    return [case.case_id for case in cases], [_outcome(r) for r in run_cases(cases, adapter)]


#: what a worker does not hand back: the case (the parent has it) and what the adapter showed
_KEPT_HERE = frozenset({"scenario", "adapter", "observation", "driver_run", "histories"})


def _outcome(r: ScenarioResult) -> _Outcome:
    return {f.name: getattr(r, f.name) for f in fields(r) if f.name not in _KEPT_HERE}


def run_matrix_parallel(
    paths: Sequence[str],
    scenarios: Sequence[Scenario],
    jobs: int,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
    first_party: bool = False,
) -> tuple[list[Row], str | None]:
    """``run_matrix`` of every bundled adapter over ``scenarios`` (loaded from ``paths``),
    spread over ``jobs`` processes that each load the scenarios themselves, and meanwhile
    ``render_libraries`` in this one. A worker hands back each result without what the matrix
    does not show (what the adapter showed, the driver's reads); the cases are this process's
    own, checked against the worker's by name."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    work = _work(scenarios, None, first_party)
    done: list[list[ScenarioResult | None]] = [[None] * len(mine) for _, mine in work]
    context = multiprocessing.get_context("spawn")  # no fork of a process that may run threads
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_load_in_worker, initargs=(list(paths),)
    )
    try:
        pending = {
            pool.submit(_cases_in_worker, adapter.name, start, start + _SLICE, first_party): (
                n,
                start,
            )
            for n, (adapter, mine) in enumerate(work)
            for start in range(0, len(mine), _SLICE)
        }
        libraries = render_libraries(scenarios)  # here, while the workers replay
        for future in as_completed(pending):
            n, start = pending[future]
            adapter, mine = work[n]
            names, outcomes = future.result()
            cases = mine[start : start + _SLICE]
            if names != [case.case_id for case in cases]:
                raise RuntimeError(f"a worker ran other cases for {adapter.name} than expected")
            for k, (case, outcome) in enumerate(zip(cases, outcomes, strict=True)):
                done[n][start + k] = result = ScenarioResult(case, adapter.name, **outcome)
                if on_result is not None:
                    on_result(result)
    except BaseException:  # a failure or ^C: the queued slices are not run first
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    rows = []
    for (adapter, _), results in zip(work, done, strict=True):
        assert None not in results  # every slice came back, or an error was raised
        rows.append(Row(adapter, tuple(r for r in results if r is not None)))
    return rows, libraries


def render_matrix(rows: Sequence[Row], *, first_party: bool = False) -> str:
    """The matrix as text; ``first_party``: the rows ran first-party shapes only, so a mutant
    they do not catch is one whose bug only gateways' shapes bring out."""
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
                verdict = "caught by " + ", ".join(row.caught_by) + _causes_counted(row)
            elif first_party:
                verdict = "not caught on first-party shapes: only gateways' shapes bring it out"
            else:
                verdict = "NOT CAUGHT: no scenario detects this bug"
            mark = "ok " if row.ok else "!! "
            lines.append(f"{mark}{row.adapter.name:<{width}}  {failed:>8}  {verdict}")
            if row.adapter.bug:
                lines.append(f"   {'':<{width}}            bug: {row.adapter.bug}")
            if row.adapter.kind == "reference" and not row.ok:
                for cause in group_causes(row.failed):
                    lines.append(
                        f"   {'':<{width}}            fails {cause.key} ({len(cause.cases)} "
                        f"cases, {cause.origin}): {cause.message}"
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


def _causes_counted(row: Row) -> str:
    """`` in 3 root causes (1 first-party, 2 gateway)``."""
    causes = group_causes(row.failed)
    first = sum(c.origin == "first-party" for c in causes)
    noun = "root cause" if len(causes) == 1 else "root causes"
    return f" in {len(causes)} {noun} ({first} first-party, {len(causes) - first} gateway)"


def render_libraries(scenarios: Sequence[Scenario]) -> str | None:
    """One line per real consumer library (``harness matrix``) over the driver scenarios among
    ``scenarios``; None when there are none. A library that is not installed is named with the
    extra that installs it, so the demo runs the same without them."""
    from harness.matrix import render_summary, run_libraries

    if not any(s.layer == "driver" for s in scenarios):
        return None
    return render_summary(run_libraries(scenarios, quirks=NONE, layer="driver"))
