"""The pytest plugin: scenarios become test items, one per scenario and adapter.

Thin over the library: it maps options, ini settings and one overridable fixture onto
``replay``. Where the adapter comes from, first match wins:

1. ``--harness-adapter=NAME`` on the command line (repeat it for several adapters);
2. a ``harness_adapter`` fixture the user overrides (in the top-level ``conftest.py``);
3. ``harness_adapter = NAME`` in the ini configuration (``[tool.pytest.ini_options]``).

NAME is a bundled adapter's name, ``MODULE:FACTORY`` or ``exec:COMMAND`` (out of process). A
name that does not resolve (or an ``exec:`` process that cannot say hello) is a usage error
before anything runs. A session whose only tests are scenarios, all skipped, exits 5 as pytest
does when no test ran: nothing was checked.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness._errors import ConformanceFailure, ScenarioError, UsageError
from harness._files import output_file, write_output
from harness.library import LIBRARY_PREFIX
from harness.replay import ScenarioResult
from harness.report import recordings as pytest_recordings
from harness.scenario import Scenario

if TYPE_CHECKING:
    from harness.results.baseline import Baseline

#: recording provider traffic (the harness_record marker, --record-mode)
pytest_plugins = ["harness.record.plugin"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "streaming consumer conformance harness")
    group.addoption(
        "--harness-adapter",
        action="append",
        default=[],
        metavar="NAME",
        help="replay the scenarios against this adapter: a bundled name, MODULE:FACTORY or exec:COMMAND (repeatable)",
    )
    group.addoption(
        "--harness-scenario",
        action="append",
        default=[],
        metavar="ID",
        help="only the scenario with this id (repeatable); collected even when paths are given",
    )
    group.addoption(
        "--harness-layer",
        action="append",
        default=[],
        metavar="LAYER",
        help="only scenarios of this layer",
    )
    group.addoption(
        "--harness-tag",
        action="append",
        default=[],
        metavar="TAG",
        help="only scenarios with this tag",
    )
    group.addoption(
        "--harness-first-party",
        action="store_true",
        default=None,
        help="only the cases of shapes first-party servers send (no case tagged gateway)",
    )
    group.addoption(
        "--harness-baseline",
        default=None,
        metavar="FILE",
        help="known root causes (harness run --write-baseline): their failures are xfail, and "
        "a baseline entry whose smallest case passes is XPASS(strict)",
    )
    group.addoption(
        "--harness-rule",
        action="append",
        default=[],
        metavar="ID",
        help="only scenarios aimed at this rule",
    )
    group.addoption(
        "--harness-quirks",
        default="all",
        metavar="all|none|Q[,Q]",
        help="driver scenarios: every case of the quirk cross product (all, the default), only the "
        "scenarios as written (none), or the one case adding these quirks",
    )
    group.addoption(
        "--harness-variations",
        default=None,
        metavar="all|none|V[,V]",
        help="session and history scenarios: every case of the variations (all, the default), "
        "only the scenarios as written (none), or the one case of these variations "
        "(default: the ini's harness_variations)",
    )
    group.addoption(
        "--harness-explore",
        action="store_true",
        default=False,
        help="also explore each adapter with generated scenarios (harness explore); a failure is "
        "shrunk and written as a YAML scenario",
    )
    group.addoption(
        "--harness-explore-examples",
        type=int,
        default=None,
        metavar="N",
        help="generated scenarios to try per adapter (default 300)",
    )
    group.addoption(
        "--harness-explore-out",
        default="harness-explored",
        metavar="DIR",
        help="where --harness-explore writes counterexamples (default ./harness-explored)",
    )
    group.addoption(
        "--harness-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time limit for one adapter call",
    )
    group.addoption(
        "--harness-html",
        default=None,
        metavar="REPORT.html",
        help="write an HTML report of the scenarios' results (a timeline of each failure)",
    )
    parser.addini(
        "harness_adapter",
        "adapter for the harness scenarios (NAME, MODULE:FACTORY or exec:COMMAND)",
        default="",
    )
    parser.addini(
        "harness_scenarios",
        "folders of your own scenarios, collected as tests",
        type="paths",
        default=[],
    )
    parser.addini(
        "harness_library",
        "collect the built-in scenario library: auto (when an adapter is configured), true or false",
        default="auto",
    )
    parser.addini(
        "harness_snapshots",
        "compare each scenario's final observation with a syrupy snapshot",
        type="bool",
        default=False,
    )
    parser.addini("harness_timeout", "time limit in seconds for one adapter call", default="10")
    parser.addini(
        "harness_first_party",
        "only the cases of shapes first-party servers send",
        type="bool",
        default=False,
    )
    parser.addini(
        "harness_variations",
        "session and history scenarios: all (every case of the variations), none (as written) "
        "or variation names joined by commas",
        default="all",
    )
    parser.addini("harness_baseline", "a baseline file of known root causes", default="")
    parser.addini(
        "harness_skip",
        "scenarios and rules to leave unchecked, one a line with the reason: 'SCENARIO: why', "
        "'rule:ID: why' (everywhere) or 'SCENARIO rule:ID: why'",
        type="linelist",
        default=[],
    )
    parser.addini(
        "harness_baseline_strict",
        "a baseline entry whose smallest case passes fails the run (XPASS(strict)); false: "
        "only reported",
        type="bool",
        default=True,
    )
    pytest_recordings.add_options(parser, group)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "harness: a conformance scenario replayed by the harness")
    config.addinivalue_line(
        "markers",
        "harness_loop(scenario, dialect=None, settle=0.2): serve this loop scenario (an id, a "
        ".yaml file, or 'all' for every loop scenario, one test each) to the test through the "
        "harness_loop fixture, and judge the requests the test's client sends",
    )
    config.pluginmanager.register(RuleTally(), "harness-rule-tally")
    config.pluginmanager.register(SkipTally(), "harness-skip-tally")
    config.pluginmanager.register(CauseTally(), "harness-cause-tally")
    worker, helping = hasattr(config, "workerinput"), config.getoption("help", False)
    html = config.getoption("harness_html", None)
    if html and not worker and not helping:  # xdist: the controller writes it
        try:
            path = output_file(html, what="the HTML report")
        except UsageError as exc:
            raise pytest.UsageError(f"harness: --harness-html: {exc}") from None
        config.pluginmanager.register(HtmlReport(path), "harness-html")
    if not helping:
        config.stash[_TIMEOUT] = _check_options(config)
    # here, not while collecting: an xdist worker's usage error would only be a silent crash
    if (
        not worker
        and not helping
        and (_scenario_folders(config) or config.getoption("harness_explore"))
    ):
        _check_adapters(config)
    if not helping:
        _variation_selection(config)  # a variation not known: a usage error now, as above
        config.stash[_BASELINE] = _read_baseline(config)
        config.stash[_SKIPS] = _read_skips(config)


def _check_options(config: pytest.Config) -> float:
    """The options pytest's parser cannot judge, judged before anything runs and worded as
    ``harness run`` words them; the time limit of one adapter call."""
    from harness.replay.run import time_limit
    from harness.scenario import LAYERS

    for name in config.getoption("harness_adapter"):
        if not name.strip():
            raise pytest.UsageError(
                "harness: --harness-adapter needs a name: a bundled adapter (harness adapters), "
                "MODULE:FACTORY or exec:COMMAND"
            )
    for layer in config.getoption("harness_layer"):
        if layer not in LAYERS:
            raise pytest.UsageError(
                f"harness: --harness-layer: invalid choice: {layer!r} "
                f"(choose from {', '.join(LAYERS)})"
            )
    examples = config.getoption("harness_explore_examples")
    if examples is not None and examples < 1:
        raise pytest.UsageError(
            f"harness: --harness-explore-examples must be at least 1, got {examples}"
        )
    given = config.getoption("harness_timeout")
    try:
        if given is not None:
            return time_limit(given, "--harness-timeout")
        return time_limit(str(config.getini("harness_timeout")), "harness_timeout")
    except UsageError as exc:
        raise pytest.UsageError(f"harness: {exc}") from None


#: the time limit of one adapter call, checked
_TIMEOUT = pytest.StashKey[float]()


@dataclass(frozen=True)
class _Skip:
    """One line of ``harness_skip``: a scenario (``""``: every one), a rule (``""``: the whole
    scenario), and why."""

    scenario: str
    rule: str
    reason: str


def _read_skips(config: pytest.Config) -> list[_Skip]:
    from harness.rules import RULES

    skips = []
    for line in config.getini("harness_skip"):
        what, colon, reason = str(line).rpartition(": ")
        if not colon:
            what, reason = str(line).removesuffix(":"), ""
        words = what.split()
        rule = next((w.removeprefix("rule:") for w in words if w.startswith("rule:")), "")
        scenario = " ".join(w for w in words if not w.startswith("rule:"))
        if not reason.strip() or not (scenario or rule) or len(words) > 2:
            raise pytest.UsageError(
                f"harness_skip: {line!r} should be 'SCENARIO: reason', 'rule:ID: reason' or "
                "'SCENARIO rule:ID: reason' (a reason is required)"
            )
        if rule and rule not in RULES:
            raise pytest.UsageError(
                f"harness_skip: {line!r} names no rule {rule!r} (harness rules)"
            )
        skips.append(_Skip(scenario, rule, reason.strip()))
    return skips


def _skips_for(config: pytest.Config, scenario: Scenario) -> list[_Skip]:
    return [s for s in config.stash.get(_SKIPS, []) if s.scenario in ("", scenario.id)]


#: the scenarios and rules the configuration leaves unchecked
_SKIPS = pytest.StashKey[list[_Skip]]()


def _read_baseline(config: pytest.Config) -> Baseline | None:
    from harness.results.baseline import read_baseline

    path = config.getoption("harness_baseline") or str(config.getini("harness_baseline"))
    if not path:
        return None
    try:
        return read_baseline(path if Path(path).is_absolute() else config.rootpath / path)
    except ScenarioError as exc:
        raise pytest.UsageError(
            "harness: " + "; ".join(f"{p.path}:{p.line}: {p.message}" for p in exc.problems)
        ) from None


def _first_party(config: pytest.Config) -> bool:
    given = config.getoption("harness_first_party")
    return bool(config.getini("harness_first_party") if given is None else given)


#: the baseline of known root causes, if one is given
_BASELINE = pytest.StashKey["Baseline | None"]()


# -- collection ---------------------------------------------------------------------------------


def _scenario_folders(
    config: pytest.Config, session: pytest.Session | None = None
) -> list[tuple[Path, str]]:
    """(folder, node id prefix) for every folder whose scenarios become items. While collecting
    (``session`` given), a ``harness_adapter`` fixture overridden in a conftest.py counts as a
    configured adapter too."""
    from harness.library import library_path

    folders: list[tuple[Path, str]] = []
    explicit = bool(config.getoption("harness_adapter") or config.getoption("harness_scenario"))
    configured = explicit or bool(config.getini("harness_adapter"))
    if not configured and session is not None:
        configured = _fixture_overridden(session)
    narrowed = config.args_source == pytest.Config.ArgsSource.ARGS and not explicit
    library = str(config.getini("harness_library")).lower()
    if library not in ("auto", "true", "false"):
        raise pytest.UsageError(f"harness_library must be auto, true or false, not {library!r}")
    if (library == "true" or (library == "auto" and configured)) and not narrowed:
        folders.append((library_path(), LIBRARY_PREFIX))  # its node ids
    if not narrowed or explicit:
        for folder in config.getini("harness_scenarios"):
            path = Path(folder)
            if not path.is_dir():
                raise pytest.UsageError(f"harness_scenarios: {path} is not a folder")
            try:
                prefix = path.resolve().relative_to(config.rootpath).as_posix()
            except ValueError:
                prefix = path.as_posix()
            folders.append((path, prefix))
    return folders


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the scenario items first, so -k, -m, --lf and xdist see them like any other."""
    added: list[pytest.Item] = []
    for folder, prefix in _scenario_folders(config, session):
        from harness.scenario import discover

        for path in discover([folder]):
            relative = path.relative_to(folder).as_posix()
            node = ScenarioFile.from_parent(session, path=path, nodeid=f"{prefix}/{relative}")
            node.folder = folder
            added.extend(session.genitems(node))
    added.extend(pytest_recordings.collect(session, config))
    if config.getoption("harness_explore"):
        names = config.getoption("harness_adapter") or [None]
        for name in names:
            label = f"harness-explore[{name}]" if name else "harness-explore"
            item = pytest.Function.from_parent(session, name=label, callobj=_explore)
            item.stash[_EXPLORE] = name
            added.append(item)
    items[:0] = added


_EXPLORE = pytest.StashKey[str | None]()


def _check_adapters(config: pytest.Config) -> None:
    """The adapters named on the command line or in the ini file resolve, and an ``exec:``
    process says hello: otherwise one usage error now, not the same failure per scenario. The
    layers an ``exec:`` process said it implements are kept for the collection (which would
    start it again to ask)."""
    from harness.adapters.registry import check_adapter, declared_layers, resolve_adapter

    names = config.getoption("harness_adapter") or [str(config.getini("harness_adapter"))]
    timeout = config.stash[_TIMEOUT]
    for name in filter(None, names):
        try:
            info = resolve_adapter(name)
            check_adapter(info, timeout)
        except UsageError as exc:
            raise pytest.UsageError(f"harness: {exc}") from None
        if name.startswith("exec:"):  # its hello is answered already
            config.stash.setdefault(_LAYERS, {})[name] = declared_layers(info)


def _explore(request: pytest.FixtureRequest) -> None:
    """One adapter explored with generated scenarios; seeded by ``--hypothesis-seed`` if given."""
    from harness.adapters.registry import AdapterInfo, resolve_adapter
    from harness.explore import DEFAULT_EXAMPLES, explore

    config = request.config
    reference = request.node.stash[_EXPLORE] or request.getfixturevalue("harness_adapter")
    try:
        adapter = reference if isinstance(reference, AdapterInfo) else resolve_adapter(reference)
        seed = config.getoption("hypothesis_seed", None)
        budget = config.getoption("harness_explore_examples") or DEFAULT_EXAMPLES
        out = Path(config.getoption("harness_explore_out"))
        exploration = explore(
            adapter,
            max_examples=budget,
            seed=None if seed is None else int(seed),
            out=out if out.is_absolute() else config.rootpath / out,
        )
    except UsageError as exc:
        pytest.fail(f"harness: {exc}", pytrace=False)
    if exploration.found is not None:
        pytest.fail("\n".join(exploration.lines()), pytrace=False)


class ScenarioFile(pytest.File):
    #: the scenarios folder the file was found in
    folder: Path | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from harness.scenario import load_scenario

        try:
            scenario = load_scenario(self.path, within=self.folder)
        except ScenarioError as exc:
            raise ScenarioCollectError(exc) from None
        options = self.config.option
        if scenario.layer == "loop" or not _selected(scenario, options):
            return  # a loop scenario is served to a program: the harness_loop fixture
        named = options.harness_adapter
        configured = str(self.config.getini("harness_adapter"))
        for adapter in named or [None]:
            known = adapter or configured or None
            # the ini's adapter gives way to an overriding fixture, known only when items run
            decided = adapter or (configured if not self._fixture_overridden() else None)
            if decided and not _implements(self.config, decided, scenario.layer):
                continue  # counted, and said once under the rule table
            for case in _cases(scenario, known, self.config):
                if known is not None and not _case_selected(case, self.config):
                    continue
                # one item per case: ``id``, ``id[dialect+quirk]``, with ``[adapter]`` when named
                name = case.case_id
                if adapter:
                    name = f"{case.id}[{adapter}]" + name[len(case.id) :]
                # no originalname: pytest >= 9.2 builds the node id from it, dropping "[adapter]"
                item = ScenarioItem.from_parent(self, name=name, callobj=_replay_scenario)
                item.stash[_CASE] = (case, adapter)
                item.stash[_EXPANDED] = known is not None
                item.add_marker(pytest.mark.harness)
                item.extra_keyword_matches.update({case.layer, *case.tags, *case.rules})
                _expect_known(item, case, expanded=known is not None)
                for skip in _skips_for(self.config, case):
                    if not skip.rule:
                        item.add_marker(pytest.mark.skip(reason=f"harness_skip: {skip.reason}"))
                yield item

    def _fixture_overridden(self) -> bool:
        return _fixture_overridden(self)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioCollectError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


def _fixture_overridden(node: pytest.Session | pytest.File) -> bool:
    """Whether a conftest.py overrides the ``harness_adapter`` fixture for ``node``."""
    try:
        defs = node.session._fixturemanager.getfixturedefs("harness_adapter", node)
    except Exception:  # pytest's fixture manager is not public API: assume it is
        return True
    ours = getattr(harness_adapter, "__wrapped__", harness_adapter)
    return not defs or defs[-1].func is not ours


class ScenarioItem(pytest.Function):
    """One scenario replayed against one adapter; reported at the scenario's YAML line."""

    def reportinfo(self) -> tuple[Path, int, str]:
        scenario, _ = self.stash[_CASE]
        return self.path, scenario.line - 1, self.name

    def repr_failure(  # type: ignore[override]  # as pytest.Function's, without style
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> Any:
        if isinstance(excinfo.value, ConformanceFailure):
            return str(excinfo.value)  # the report says it all; the plugin's frames do not
        return super().repr_failure(excinfo)


class ScenarioCollectError(Exception):
    def __init__(self, error: ScenarioError) -> None:
        super().__init__(
            "\n".join(f"{p.path}:{p.line}: error: {p.message}" for p in error.problems)
        )


#: per adapter reference known while collecting: the layers it implements (None if unknown)
_LAYERS = pytest.StashKey[dict[str, tuple[str, ...] | None]]()


def _implements(config: pytest.Config, reference: str, layer: str) -> bool:
    """Whether the adapter ``reference`` names implements ``layer`` (asked once per run); a
    scenario it does not is left out, not collected as a skip. True when the layers cannot be
    known yet (the item's replay then says why it skips or errs)."""
    from harness.adapters.registry import declared_layers, resolve_adapter

    known = config.stash.setdefault(_LAYERS, {})
    if reference not in known:
        try:
            known[reference] = declared_layers(resolve_adapter(reference))
        except UsageError:
            known[reference] = None
    layers = known[reference]
    if layers is None or layer in layers:
        return True
    config.stash.setdefault(_LEFT_OUT, {}).setdefault((reference, layers), []).append(layer)
    return False


#: (adapter reference, its layers) -> the layer of each scenario left out for it
_LEFT_OUT = pytest.StashKey[dict[tuple[str, tuple[str, ...]], list[str]]]()


#: what the cases of a scenario left out (``replay.cases.cases_for``'s notes)
_NOTES = pytest.StashKey[list[str]]()


def left_out_lines(config: pytest.Config) -> list[str]:
    """One line per adapter that left scenarios out, e.g. ``77 scenarios of the history and
    driver layers left out: myadapter:make implements session``."""
    from harness.report import left_out_sentence

    return [
        left_out_sentence(left, f"{reference} implements {', '.join(layers) or 'no layer'}")
        for (reference, layers), left in config.stash.get(_LEFT_OUT, {}).items()
    ]


_CASE = pytest.StashKey[tuple[Scenario, str | None]]()
#: whether collection made the scenario's quirk cases (else the item runs them all)
_EXPANDED = pytest.StashKey[bool]()


def _quirk_selection(config: pytest.Config) -> str | tuple[str, ...]:
    text = str(config.getoption("harness_quirks"))
    return text if text in ("all", "none") else tuple(q.strip() for q in text.split(","))


def _variation_selection(config: pytest.Config) -> str | tuple[str, ...]:
    """``--harness-variations``, else the ini's ``harness_variations``; an unknown name is a
    usage error naming the variations."""
    from harness.scenario.variations import check_variations

    given = config.getoption("harness_variations")
    text = str(given if given is not None else config.getini("harness_variations")).strip()
    if text in ("all", "none"):
        return text
    names = tuple(v.strip() for v in text.split(","))
    try:
        check_variations(names)
    except ValueError as exc:
        where = "--harness-variations" if given is not None else "harness_variations"
        raise pytest.UsageError(f"{where}: {exc}") from None
    return names


#: the adapters named while collecting, resolved once each in a session (an exec: process
#: says its hello once)
_RESOLVED = pytest.StashKey[dict[str, Any]]()


def _cases(scenario: Scenario, adapter: str | None, config: pytest.Config) -> list[Scenario]:
    """The cases of ``scenario`` for the adapter named ``adapter``: a session or history
    scenario's variations, a driver scenario's quirk cross product in the adapter's dialect. An
    adapter the ``harness_adapter`` fixture gives is not known while collecting: the scenario is
    then one item that runs every case (``_replay_scenario``), as the adapter may not even
    implement its layer."""
    from harness.adapters.registry import resolve_adapter
    from harness.replay.cases import cases_for
    from harness.scenario import DriverScenario, SessionScenario
    from harness.scenario.variations import select_session_cases

    if adapter is None:
        return [scenario]
    if isinstance(scenario, SessionScenario) and scenario.layer != "session":
        return list(select_session_cases(scenario, _variation_selection(config)))
    if not isinstance(scenario, (SessionScenario, DriverScenario)):
        return [scenario]
    resolved = config.stash.setdefault(_RESOLVED, {})
    info = resolved.get(adapter)
    if info is None:
        try:
            info = resolved[adapter] = resolve_adapter(adapter)
        except UsageError:
            return [scenario]  # the item says so when it runs
    if isinstance(scenario, SessionScenario):
        # with the producer variants' cases for a consumer of a UI protocol
        try:
            return cases_for([scenario], info, variations=_variation_selection(config))
        except ValueError as exc:
            raise pytest.UsageError(f"--harness-variations: {exc}") from None
    notes = config.stash.setdefault(_NOTES, [])  # a long turn's pairs left out
    try:
        return cases_for([scenario], info, _quirk_selection(config), notes=notes)
    except ValueError as exc:
        raise pytest.UsageError(f"--harness-quirks: {exc}") from None


def _selected(scenario: Scenario, options: argparse.Namespace) -> bool:
    """The scenario-level selection; the tags, and first-party shapes, are the cases' own
    (a quirk case adding a quirk only gateways send is tagged ``gateway``): ``_case_selected``."""
    if options.harness_scenario and scenario.id not in options.harness_scenario:
        return False
    if options.harness_layer and scenario.layer not in options.harness_layer:
        return False
    return not options.harness_rule or bool(set(options.harness_rule) & set(scenario.rules))


def _case_selected(case: Scenario, config: pytest.Config) -> bool:
    """``--harness-tag`` and ``--harness-first-party`` on one case, with its own tags."""
    from harness.scenario.cases import first_party

    tags = config.option.harness_tag
    if tags and not set(tags) & set(case.tags):
        return False
    return first_party(case) or not _first_party(config)


class KnownCauses(AssertionError):
    """A scenario item failed with root causes the baseline knows, and no other: its xfail."""


def _expect_known(item: pytest.Item, case: Scenario, *, expanded: bool) -> None:
    """The item of a baseline entry's smallest case (or, unexpanded, the item that runs every
    case of the entry's scenario) is expected to fail with it: when it passes, the entry is
    fixed, XPASS(strict) unless ``harness_baseline_strict`` is false."""
    baseline = item.config.stash.get(_BASELINE, None)
    if baseline is None:
        return
    entries = [
        e
        for e in baseline.for_scenario(case.id)
        if not expanded or e.smallest in ("", case.case_id)
    ]
    if entries:
        strict = bool(item.config.getini("harness_baseline_strict"))
        named = ", ".join(e.cause for e in entries)
        reason = f"known in {baseline.path}: {named}"
        item.add_marker(pytest.mark.xfail(reason=reason, raises=KnownCauses, strict=strict))


# -- running ------------------------------------------------------------------------------------


@pytest.fixture
def harness_adapter(request: pytest.FixtureRequest) -> str:
    """The adapter the scenarios replay against; override it in your top-level conftest.py.

    It may return a bundled name, ``MODULE:FACTORY``, ``exec:COMMAND`` or an ``AdapterInfo``.
    """
    configured = str(request.config.getini("harness_adapter"))
    if not configured:
        raise UsageError(
            "no adapter for the harness scenarios: pass --harness-adapter=NAME, set harness_adapter "
            "in your pytest configuration, or override the harness_adapter fixture"
        )
    return configured


def _replay_scenario(request: pytest.FixtureRequest) -> None:
    from harness.adapters.registry import AdapterInfo, resolve_adapter
    from harness.replay import run_cases
    from harness.replay.cases import cases_for
    from harness.report import render_failure, reproduce_commands
    from harness.results.causes import case_causes
    from harness.scenario import DriverScenario

    item = request.node
    scenario, adapter_ref = item.stash[_CASE]
    reference = adapter_ref or request.getfixturevalue("harness_adapter")
    try:
        adapter = reference if isinstance(reference, AdapterInfo) else resolve_adapter(reference)
    except UsageError as exc:
        pytest.fail(f"harness: {exc}", pytrace=False)
    config = request.config
    timeout = config.stash[_TIMEOUT]
    cases = [scenario]
    if not item.stash[_EXPANDED]:
        # the fixture's adapter: its dialect is known only now, so this item runs every case
        cases = cases_for(
            [scenario],
            adapter,
            _quirk_selection(config),
            variations=_variation_selection(config),
            notes=config.stash.setdefault(_NOTES, []),  # a long turn's pairs left out
        )
        cases = [case for case in cases if _case_selected(case, config)]
        if not cases:
            pytest.skip(
                "no case of the scenario is selected (--harness-variations, --harness-tag, "
                "--harness-first-party)"
            )
    unchecked = [s.rule for s in _skips_for(config, scenario) if s.rule]
    # the failure texts draw a failed case; the snapshot, the first case when none failed
    results = list(
        run_cases(
            cases,
            adapter,
            timeout=timeout,
            skip_rules=unchecked,
            keep_outputs=lambda r: r.status in ("fail", "error") or r.scenario is cases[0],
        )
    )
    broken = [r for r in results if r.status in ("fail", "error")]
    result = broken[0] if broken else results[0]
    item.stash[_RESULT] = result
    # a fixture may give an AdapterInfo, which no command line can name; the pytest command
    # names the adapter only if this run did: else the node ids change and --lf no longer
    # finds the item
    named = reference if isinstance(reference, str) else None
    item.stash[_RESULTS] = (results, named, adapter_ref is not None)
    if result.status == "skip":
        pytest.skip(result.skip_reason or "")
    if broken:
        texts = [
            render_failure(
                r, reproduce_commands(r, named, pytest=True, adapter_option=adapter_ref is not None)
            )
            for r in broken
        ]
        if len(results) > 1:
            kind = "quirk" if isinstance(scenario, DriverScenario) else "variation"
            texts.insert(0, f"{len(broken)} of the scenario's {len(results)} {kind} cases failed")
        text = "\n\n".join(texts)
        baseline = config.stash.get(_BASELINE, None)
        if baseline is not None:
            causes = {key for r in broken for key in case_causes(r)}
            if causes and all(key in baseline for key in causes):
                reason = f"known in {baseline.path}: {', '.join(sorted(causes))}"
                if item.get_closest_marker("xfail") is None:
                    pytest.xfail(reason)
                raise KnownCauses(reason)
        if result.status == "error":
            pytest.fail(text, pytrace=False)
        raise ConformanceFailure(result, text)
    from harness.model.observation import Observation

    # session consumers' views; a driver's outputs are snapshotted per recording (--harness-recordings)
    if config.getini("harness_snapshots") and isinstance(result.observation, Observation):
        assert result.observation == request.getfixturevalue("harness_snapshot")


_RESULT = pytest.StashKey[ScenarioResult]()
#: an item's results, the adapter reference a command line can name, and whether it was given
_RESULTS = pytest.StashKey[tuple[list[ScenarioResult], str | None, bool]]()
#: the scenarios (with adapters) whose failure this process has drawn for the HTML report
_DRAWN = pytest.StashKey[set[tuple[str, str, str]]]()


# -- agent loops over HTTP: the harness_loop fixture ------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``@pytest.mark.harness_loop("all")``: the test once per loop scenario (the library's
    and those under ``harness_scenarios``), those its ``dialect`` cannot carry left out."""
    marker = metafunc.definition.get_closest_marker("harness_loop")
    if marker is None or "harness_loop" not in metafunc.fixturenames:
        return
    if not marker.args or marker.args[0] != "all":
        return
    from harness.loop.find import loop_scenarios

    dialect = marker.kwargs.get("dialect")
    try:
        found = loop_scenarios(_loop_folders(metafunc.config))
    except ScenarioError as exc:
        raise pytest.UsageError(
            "harness: " + "; ".join(f"{p.path}:{p.line}: {p.message}" for p in exc.problems)
        ) from None
    chosen = [s for s in found if dialect is None or dialect in s.dialects]
    metafunc.parametrize("harness_loop", chosen, ids=[s.id for s in chosen], indirect=True)


def _loop_folders(config: pytest.Config) -> list[Path]:
    return [Path(folder) for folder in config.getini("harness_scenarios")]


@pytest.fixture
def harness_loop(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The stand-in serving a loop scenario's responses, one per request, while the test runs;
    name the scenario with ``@pytest.mark.harness_loop("loop-two-tool-cycles")`` (an id, a
    ``.yaml`` file, or ``"all"``), and optionally ``dialect=`` and ``settle=``::

        @pytest.mark.harness_loop("loop-parallel-calls", dialect="openai-chat")
        def test_my_agent(harness_loop):
            my_agent.run(base_url=harness_loop.openai_base_url)

    It yields the ``LoopStand`` (``openai_base_url``, ``anthropic_base_url``,
    ``gemini_base_url``, ``url``, ``requests``), with ``OPENAI_BASE_URL``,
    ``ANTHROPIC_BASE_URL`` and ``GOOGLE_GEMINI_BASE_URL`` (and dummy API keys where none is
    set) in the environment while the test runs. At teardown the requests the test sent are
    judged by the loop rules, and any violation fails the test with the rules' messages.
    """
    from harness.loop import judge
    from harness.loop.find import find_loop_scenario
    from harness.loop.report import render_failure
    from harness.standin.loop import DEFAULT_SETTLE, serving_loop

    marker = request.node.get_closest_marker("harness_loop")
    reference = getattr(request, "param", None) or (
        marker.args[0] if marker and marker.args else None
    )
    if reference is None or reference == "all":
        pytest.fail(
            "the harness_loop fixture needs a scenario: @pytest.mark.harness_loop(ID or FILE.yaml)",
            pytrace=False,
        )
    options = marker.kwargs if marker is not None else {}
    try:
        scenario = find_loop_scenario(
            reference, _loop_folders(request.config), Path(str(request.node.path)).parent
        )
    except (UsageError, ScenarioError) as exc:
        pytest.fail(str(exc), pytrace=False)
    dialect = options.get("dialect")
    with (
        serving_loop(
            scenario, dialect=dialect, settle=float(options.get("settle", DEFAULT_SETTLE))
        ) as stand,
        pytest.MonkeyPatch.context() as patch,
    ):
        for name, value in stand.env(os.environ).items():
            if os.environ.get(name) != value:
                patch.setenv(name, value)
        yield stand
        stand.wait_streams(1.0)
        facts = stand.facts()
        unserved = stand.unserved
    if unserved is not None and not any(r.response is not None for r in facts.requests):
        pytest.fail(f"harness_loop: {scenario.id}: {unserved}", pytrace=False)
    result = judge(scenario, facts)
    if result.status == "fail":
        pytest.fail(render_failure(result), pytrace=False)


@pytest.fixture
def harness_snapshot(snapshot: Any) -> Any:
    """syrupy's ``snapshot`` in the harness's YAML format::

    assert replay(scenario, adapter).observation == harness_snapshot
    """
    from harness.report.snapshot import ScenarioSnapshotExtension

    return snapshot.use_extension(ScenarioSnapshotExtension)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    result = item.stash.get(_RESULT, None)
    if result is not None and report.when == "call":
        report.user_properties.append(("harness_rules", json.dumps(result.rule_statuses)))
        results, named, given = item.stash[_RESULTS]
        # the report is all that is needed of them now: an item lives as long as the session,
        # and a case's outputs are as long as its turn (tens of megabytes for a long one)
        del item.stash[_RESULT], item.stash[_RESULTS]
        report.user_properties.extend(_cause_properties(results, named, given))
        if item.config.getoption("harness_html", None):
            from harness.report import reproduce_commands
            from harness.report.html import result_piece

            drawn = item.config.stash.setdefault(_DRAWN, set())
            for one in results:
                commands = reproduce_commands(one, named, pytest=True, adapter_option=given)
                piece = result_piece(one, commands, drawn)
                if piece is not None:
                    report.user_properties.append(("harness_html", piece))
    return report


def _cause_properties(
    results: list[ScenarioResult], named: str | None, given: bool
) -> list[tuple[str, str]]:
    """Each root cause a failed case of the item shows, as a report property the controller
    reads (``CauseTally``): its key, origin, case and quirks, message and one command."""
    from harness.report import reproduce_commands
    from harness.results.causes import cause_records

    out = []
    for result in results:
        if result.status in ("fail", "error"):
            commands = reproduce_commands(result, named, pytest=True, adapter_option=given)
            for record in cause_records(result, run=commands[-1]):
                out.append(("harness_cause", json.dumps(record)))
    return out


class CauseTally:
    """The failures of the scenario items, each root cause once, first-party apart from
    gateway (xdist-safe, as ``RuleTally``: it reads the reports' properties)."""

    def __init__(self) -> None:
        #: cause key -> what each failed case said of it
        self.seen: dict[str, list[dict[str, Any]]] = {}
        #: (node id, origin) of each failed scenario item
        self.failed: dict[str, set[str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == "harness_cause":
                data = json.loads(str(value))
                self.seen.setdefault(data["cause"], []).append(data)
                if report.failed:
                    self.failed.setdefault(report.nodeid, set()).add(data["origin"])

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from harness.results.causes import merged_records

        if not self.seen:
            return
        terminalreporter.section("root causes")
        origins = [
            "first-party" if "first-party" in found else "gateway" for found in self.failed.values()
        ]
        causes = {c["cause"]: c for c in merged_records(r for rs in self.seen.values() for r in rs)}
        by_origin = [c["origin"] for c in causes.values()]
        terminalreporter.write_line(
            f"{len(origins)} scenario items failed: {origins.count('first-party')} first-party, "
            f"{origins.count('gateway')} gateway; {len(causes)} root causes "
            f"({by_origin.count('first-party')} first-party, {by_origin.count('gateway')} "
            "gateway), each once, with the command that replays its smallest case:"
        )
        baseline = terminalreporter.config.stash.get(_BASELINE, None)
        for where in ("first-party", "gateway"):
            mine = [c for c in causes.values() if c["origin"] == where]
            if mine:
                terminalreporter.write_line(f"{where}:")
            for cause in mine:
                noun = "case" if cause["cases"] == 1 else "cases"
                known = (
                    " (known: in the baseline)" if baseline and cause["cause"] in baseline else ""
                )
                terminalreporter.write_line(
                    f"  {cause['cause']}{known}  {cause['cases']} {noun}, {cause['trigger']}: "
                    f"{cause['message']}"
                )
                terminalreporter.write_line(f"    {cause['run']}")


class HtmlReport:
    """Collects the results' pieces from the reports (xdist-safe, as ``RuleTally``) and writes
    the HTML report when the session ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pieces: list[str] = []
        #: why the report could not be written (a disk that filled during the run)
        self.failure: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.pieces += [str(v) for name, v in report.user_properties if name == "harness_html"]

    def pytest_sessionfinish(self) -> None:
        from harness.report.html import document_from_pieces

        try:
            write_output(self.path, document_from_pieces(self.pieces), what="the HTML report")
        except UsageError as exc:  # the disk filled during the run: said, not an INTERNALERROR
            self.failure = str(exc)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from harness.report.html import written

        if self.failure:
            terminalreporter.write_line(f"harness: {self.failure}", red=True)
        else:
            terminalreporter.write_line(f"harness: {written(self.path)}")


class SkipTally:
    """Notices a session in which every scenario was skipped: says so in one line, and exits 5
    (pytest's "no tests ran") when no other test ran either (xdist-safe, as ``RuleTally``)."""

    def __init__(self) -> None:
        self.skipped: set[str] = set()
        self.checked: set[str] = set()  # scenarios that passed or failed
        self.ran: set[str] = set()  # any test that did

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        scenario = "harness" in report.keywords
        if report.skipped:
            if scenario:
                self.skipped.add(report.nodeid)
        elif report.when == "call" or report.failed:
            self.ran.add(report.nodeid)
            if scenario:
                self.checked.add(report.nodeid)

    def _all_skipped(self) -> bool:
        return bool(self.skipped) and not self.checked

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._all_skipped():
            terminalreporter.write_line(
                f"harness: all {len(self.skipped)} scenarios were skipped, so nothing was "
                "checked (-rs says why)",
                yellow=True,
                bold=True,
            )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if (
            self._all_skipped()
            and not self.ran
            and session.exitstatus == pytest.ExitCode.OK
            and not hasattr(session.config, "workerinput")  # xdist: the controller decides
        ):
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED


class RuleTally:
    """Counts, per rule, the scenarios that passed, failed or skipped it (xdist-safe: it reads
    the reports, which workers send to the controller)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, int]] = {}
        #: under xdist, what the workers left out (each collects the same)
        self.left_out: list[str] | None = None
        #: under xdist, the workers' notes on the cases (``_NOTES``), each once
        self.notes: list[str] | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        lines = getattr(node, "workeroutput", {}).get("harness_left_out")
        if lines is not None and self.left_out is None:
            self.left_out = list(lines)
        notes = getattr(node, "workeroutput", {}).get("harness_notes")
        if notes is not None:  # every worker collects alike; the fixture's adapter's cases
            # are found by the worker that runs the item
            self.notes = list(dict.fromkeys([*(self.notes or ()), *notes]))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if output is not None:  # an xdist worker: its controller prints the summary
            output["harness_left_out"] = left_out_lines(session.config)
            output["harness_notes"] = session.config.stash.get(_NOTES, [])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == "harness_rules":
                for rule, status in json.loads(str(value)).items():
                    self.counts.setdefault(rule, {"pass": 0, "fail": 0, "skip": 0})[status] += 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from harness.report import layers_named
        from harness.rules import RULES

        ran = {rule: c for rule, c in self.counts.items() if c["pass"] or c["fail"]}
        left_out = self.left_out
        if left_out is None:
            left_out = left_out_lines(terminalreporter.config)
        notes = self.notes
        if notes is None:  # each once: an item may find a scenario's cases again
            notes = list(dict.fromkeys(terminalreporter.config.stash.get(_NOTES, [])))
        if not self.counts and not left_out and not notes:
            return
        terminalreporter.section("conformance by rule")
        if ran:
            width = max(len(rule) for rule in ran)
            terminalreporter.write_line(f"{'rule':<{width}}  passed  failed  skipped")
            for rule in sorted(ran):
                c = ran[rule]
                terminalreporter.write_line(
                    f"{rule:<{width}}  {c['pass']:>6}  {c['fail']:>6}  {c['skip']:>7}"
                )
        # the loop rules judge the harness_loop fixture's requests, not the scenario items
        idle = [rule for rule in RULES if rule not in ran and RULES[rule].layer != "loop"]
        if idle:
            layers = [RULES[rule].layer for rule in idle]
            noun = "rule" if len(idle) == 1 else "rules"
            terminalreporter.write_line(
                f"{len(idle)} {noun} of the {layers_named(layers)} checked no scenario"
            )
        for line in [*left_out, *dict.fromkeys(notes)]:
            terminalreporter.write_line(line)
        if left_out and not self.counts:  # pytest exits 5 if no other test ran either
            terminalreporter.write_line(
                "harness: every scenario was left out, so nothing was checked",
                yellow=True,
                bold=True,
            )
