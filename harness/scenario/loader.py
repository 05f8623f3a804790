"""Scenario files: found, read safely, and loaded into the typed scenario of their layer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness._errors import Problem, ScenarioError
from harness._files import pointed_at, read_text, scenario_error
from harness._yaml import building, load_yaml, located
from harness.model import driver as dv
from harness.model import session as ev
from harness.scenario import generator_steps as _generators  # noqa: F401  (registers its steps)
from harness.scenario._fields import Fields, Invalid
from harness.scenario.driver import DRIVER_KEYS, read_driver_scenario
from harness.scenario.driver_steps import DRIVER_STEPS
from harness.scenario.loop import LOOP_KEYS, read_loop_scenario
from harness.scenario.reader import StepReader
from harness.scenario.session import SESSION_KEYS, read_session_scenario
from harness.scenario.session_steps import SESSION_STEPS
from harness.scenario.types import DriverScenario, Scenario, ScenarioHeader

if TYPE_CHECKING:
    from harness.wire.recordings import RecordedResponse

LAYERS = ("session", "driver", "history", "loop")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_HEADER_KEYS = (
    "id",
    "title",
    "description",
    "source",
    "layer",
    "tags",
    "rules",
    "disable_rules",
    "seed",
)


def load_scenario(path: str | Path, *, within: str | Path | None = None) -> Scenario:
    """Load one scenario file; raises ``ScenarioError`` listing every located problem.
    ``within``: the folder it was found in, which its resolved path must lie inside (a link
    out of the folder is refused before anything of its target is read)."""
    if within is not None:
        folder, target = Path(within).resolve(), Path(path).resolve()
        if not (target == folder or folder in target.parents):
            raise ScenarioError(
                [
                    Problem(
                        str(path),
                        1,
                        f"the scenario is a link to a file outside {str(within)!r}; only files "
                        "inside the folder named are read",
                    )
                ]
            )
    text = read_text(path, what="scenario", error=scenario_error)
    return parse_scenario(text, str(path))


def parse_scenario(text: str, path: str) -> Scenario:
    """A scenario from YAML text; ``path`` is where problems say they are."""
    problems: list[Problem] = []
    with building():
        data = load_yaml(text, path)
        try:
            scenario = _read(data, path, problems, text)
        except Invalid:
            scenario = None
    if problems or scenario is None:
        raise ScenarioError(problems)
    return scenario


def parse_document(document: Mapping[str, Any], path: str) -> Scenario:
    """A scenario from the mapping a scenario file holds, built by a program: read as
    ``parse_scenario`` reads the file, every problem placed at line 1 of ``path``."""
    problems: list[Problem] = []
    try:
        scenario = _read(located(dict(document)), path, problems, "")
    except Invalid:
        scenario = None
    if problems or scenario is None:
        raise ScenarioError(problems)
    return scenario


def recorded_scenario(response: RecordedResponse) -> DriverScenario:
    """A recorded stream (``harness.wire.recordings``) as a driver scenario, read through the
    ``wire:`` loader from the recording itself, so that a violation points into it; JSON lines
    come inline in the SSE framing the dialect's decoder reads."""
    from harness.codecs import dialects

    if response.dialect in dialects():  # a body the decoder refuses: its own located error
        dialects()[response.dialect].decode(response.body, source=response.source)
    name = Path(response.path).name  # beside the document's path: inside its folder
    wire: dict[str, Any] = {"dialect": response.dialect}
    if response.framing == "jsonl":
        wire["body"] = response.body
    elif response.interaction is None:
        wire["file"] = name
    else:
        wire["cassette"] = name
        wire["interaction"] = response.interaction
    document = {
        "id": "recording",
        "title": f"the recorded stream {response.label}",
        "description": "a recorded stream replayed as it was recorded",
        "source": response.label,
        "layer": "driver",
        "tags": ["recorded"],
        "wire": wire,
    }
    with pointed_at(response.path):
        scenario = parse_document(document, response.path)
    assert isinstance(scenario, DriverScenario)  # layer: driver
    return scenario


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Scenario files under the given files and folders (folders searched recursively)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.y*ml") if p.suffix in (".yaml", ".yml")))
        elif path.exists():
            found.append(path)
        else:
            raise ScenarioError([Problem(str(path), 1, "no such file or folder")])
    return found


def load_all(paths: Iterable[str | Path]) -> tuple[list[Scenario], list[Problem]]:
    """Load every scenario found; problems are collected, never raised, so nothing is lost."""
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    found = (
        (path, raw if Path(raw).is_dir() else None) for raw in paths for path in discover([raw])
    )
    for path, folder in found:
        try:
            scenario = load_scenario(path, within=folder)
        except ScenarioError as exc:
            problems.extend(exc.problems)
            continue
        if scenario.id in seen:
            problems.append(
                Problem(
                    str(path),
                    scenario.line,
                    f"scenario id {scenario.id!r} is also used by {seen[scenario.id]}",
                )
            )
            continue
        seen[scenario.id] = str(path)
        scenarios.append(scenario)
    return scenarios, problems


def _read(data: Any, path: str, problems: list[Problem], text: str) -> Scenario:
    top = Fields(data, "the scenario", path, 1, problems)
    try:
        layer = top.choice("layer", LAYERS)
    except Invalid:
        layer = "session"  # recorded; read on, so the trace's problems are reported too
    header = _header(top, path, layer)
    if layer == "driver":
        top.check_keys(_HEADER_KEYS + DRIVER_KEYS)
        r = StepReader(
            path, problems, DRIVER_STEPS, dv.TURN_EVENT_TYPES, seed=header.seed, text=text
        )
        return read_driver_scenario(r, top, header)
    if layer == "loop":
        top.check_keys(_HEADER_KEYS + LOOP_KEYS)
        r = StepReader(
            path, problems, DRIVER_STEPS, dv.TURN_EVENT_TYPES, seed=header.seed, text=text
        )
        return read_loop_scenario(r, top, header)
    top.check_keys(_HEADER_KEYS + SESSION_KEYS)
    r = StepReader(
        path,
        problems,
        SESSION_STEPS,
        ev.EVENT_TYPES,
        seed=header.seed,
        default_session=top.str("session", "main"),
    )
    return read_session_scenario(r, top, header)


def _header(top: Fields, path: str, layer: str) -> ScenarioHeader:
    from harness.rules import RULES, rules_for

    scenario_id = top.str("id", "")
    if not scenario_id:
        top.note(top.line, "the scenario is missing the required field 'id'")
    elif not _ID.match(scenario_id):
        top.note(
            top.line_of("id"),
            f"scenario id {scenario_id!r} should be lowercase letters, digits, '.', '_' or '-'",
        )
    for key in ("rules", "disable_rules"):
        for i, name in enumerate(top.str_list(key)):
            if name not in RULES:
                known = ", ".join(sorted(r for r in RULES if RULES[r].layer == layer))
                top.note(
                    top.list(key).line_of(i),
                    f"unknown rule id {name!r} (rules of the {layer} layer: {known})",
                )
    disabled = top.str_list("disable_rules")
    if disabled and not rules_for(layer, disabled=disabled):
        top.note(
            top.line_of("disable_rules"),
            f"'disable_rules' turns off every rule of the {layer} layer: "
            "the scenario would check nothing",
        )
    return ScenarioHeader(
        id=scenario_id,
        title=top.str("title"),
        description=top.str("description"),
        source=top.str("source"),
        layer=layer,
        tags=top.str_list("tags"),
        rules=top.str_list("rules"),
        disable_rules=top.str_list("disable_rules"),
        seed=top.int("seed", 0),
        path=path,
        line=top.line,
    )
