"""Loop scenarios found by id or path, for the ``harness_loop`` pytest fixture."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness._errors import ScenarioError, UsageError
from harness.library import library_path
from harness.scenario import LoopScenario, load_all, load_scenario


def loop_scenarios(folders: Sequence[Path] = ()) -> list[LoopScenario]:
    """The built-in library's loop scenarios, then those under ``folders``, each id once (a
    folder's scenario of an id the library has already is left out)."""
    places = [library_path() / "loop", *folders]
    scenarios, problems = load_all([p for p in places if p.is_dir()])
    if problems:
        raise ScenarioError(problems)
    out: dict[str, LoopScenario] = {}
    for scenario in scenarios:
        if isinstance(scenario, LoopScenario):
            out.setdefault(scenario.id, scenario)
    return list(out.values())


def find_loop_scenario(
    reference: str | LoopScenario, folders: Sequence[Path] = (), near: Path | None = None
) -> LoopScenario:
    """A loop scenario named by its id (the library's or one under ``folders``), by a file
    (``.yaml``, relative to ``near`` first, then to the current folder), or given as it is."""
    if isinstance(reference, LoopScenario):
        return reference
    if reference.endswith((".yaml", ".yml")):
        candidates = [near / reference] if near is not None else []
        candidates.append(Path(reference))
        path = next((p for p in candidates if p.is_file()), None)
        if path is None:
            raise UsageError(f"harness_loop: no scenario file {reference!r}")
        scenario = load_scenario(path)
        if not isinstance(scenario, LoopScenario):
            raise UsageError(
                f"harness_loop: {reference} is a {scenario.layer} scenario, not a loop scenario"
            )
        return scenario
    known = {s.id: s for s in loop_scenarios(folders)}
    if reference not in known:
        raise UsageError(
            f"harness_loop: no loop scenario {reference!r}; the loop scenarios are "
            f"{', '.join(sorted(known)) or 'none'} (or give a .yaml file)"
        )
    return known[reference]
