"""Real consumer libraries against the built-in driver scenarios: ``harness matrix``.

Runs the adapter of each installed library in ``harness.adapters.libs.libraries()`` over every
quirk case of the driver scenarios in its dialect (a UI protocol's consumer, ``layer``
"session", over every variation of the session scenarios its session dialect carries), groups
the failures into root causes (``harness.results.causes``) and the causes into bugs: each bug
is one written explanation (``harness.adapters.libs.explanations``) covering the causes it
makes, reproduced without the harness by its script in ``docs/reproductions``. A cause whose
cases all hold shapes only gateways, proxies and other vendors' compatible servers send is a
gateway cause, counted and listed apart from first-party ones.

Agent frameworks' own loops join it (``harness.loop.frameworks``): each framework's agent, run
unmodified against the loop scenarios in every dialect its models speak, is a ``loops`` entry of
the document, its failed runs explained in words as the libraries' bugs are.

Libraries whose pins conflict cannot share one environment: each environment writes its part
(``--format json``), and ``--from`` merges the parts into one document (``make matrix`` runs
every environment, see ``noxfile.py``, and writes ``docs/conformance.md`` and
``docs/conformance.json``). The output holds no timings and no paths of this machine, so it is
committed and diffed when a library's behaviour, or a rule, changes.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness._errors import AdapterError
from harness.adapters.libs import Library
from harness.adapters.libs import libraries as all_libraries
from harness.adapters.libs.explanations import Explanation, explanation_of, explanations
from harness.adapters.loop.frameworks import FRAMEWORK_LOOPS
from harness.adapters.registry import AdapterInfo, resolve_adapter
from harness.loop.frameworks import FrameworkRun, render_loops_markdown
from harness.replay import DEFAULT_TIMEOUT, cases_to_run, run_cases
from harness.replay.dialects import adapter_contract, adapter_session_dialect
from harness.replay.result import ScenarioResult
from harness.results.causes import Cause, group_causes, mask_made_up, origin
from harness.scenario import Scenario
from harness.scenario.cases import ALL, Selection

ORIGINS = ("first-party", "gateway")
STATUSES = ("pass", "fail", "error", "skip")


@dataclass(frozen=True)
class Bug:
    """One explanation and the causes it covers in one library's run."""

    explanation: Explanation
    causes: tuple[Cause, ...]

    @property
    def origin(self) -> str:
        return "first-party" if any(c.origin == "first-party" for c in self.causes) else "gateway"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.explanation.id,
            "origin": self.origin,
            "explanation": self.explanation.text,
            "reproduction": self.explanation.reproduction.as_posix(),
            "cases": sum(len(c.cases) for c in self.causes),
            "rules": sorted({c.rule for c in self.causes}),
            "causes": [cause_json(c) for c in self.causes],
        }


def cause_json(cause: Cause) -> dict[str, object]:
    """``Cause.to_json``, with the ids a library made up in its message said as ``<made-up>``."""
    record = cause.to_json()
    record["message"] = mask_made_up(str(record["message"]))
    return record


@dataclass(frozen=True)
class LibraryRun:
    library: Library
    #: None when the library is not installed
    version: str | None
    #: "per-call" or "per-message", as the adapter declares (``emits_calls``); a session
    #: library's: its session dialect
    contract: str | None
    results: tuple[ScenarioResult, ...]

    @property
    def installed(self) -> bool:
        return self.version is not None

    def failed_results(self) -> tuple[ScenarioResult, ...]:
        return tuple(r for r in self.results if r.status in ("fail", "error"))

    def causes(self) -> list[Cause]:
        return group_causes(self.failed_results())

    def bugs(self) -> tuple[list[Bug], list[Cause]]:
        """The explained causes grouped by explanation (in the order the explanations were
        registered), and the causes no explanation covers."""
        covered: dict[str, list[Cause]] = {}
        unexplained = []
        for cause in self.causes():
            found = explanation_of(self.library.name, cause.scenario, cause.rule, cause.triggers)
            if found is None:
                unexplained.append(cause)
            else:
                covered.setdefault(found.id, []).append(cause)
        bugs = [
            Bug(e, tuple(covered[e.id])) for e in explanations(self.library.name) if e.id in covered
        ]
        return bugs, unexplained

    def idle_explanations(self) -> list[Explanation]:
        """The library's explanations that cover no cause of this run: the library (or a rule)
        changed, and the explanation no longer says what happens."""
        bugs, _ = self.bugs()
        used = {b.explanation.id for b in bugs}
        return [e for e in explanations(self.library.name) if e.id not in used]

    def case_counts(self) -> dict[str, dict[str, int]]:
        counts: Counter[tuple[str, str]] = Counter((origin(r), r.status) for r in self.results)
        return {o: {s: counts[o, s] for s in STATUSES} for o in ORIGINS}

    def to_json(self) -> dict[str, object]:
        entry: dict[str, object] = {
            "name": self.library.name,
            "version": self.version,
            "adapter": self.library.adapter,
            "runtime": self.library.runtime,
            "extra": self.library.extra,
            "layer": self.library.layer,
            "contract": self.contract,
        }
        if not self.installed:
            entry["install"] = self.library.install_hint()
            return entry
        bugs, unexplained = self.bugs()
        entry["cases"] = self.case_counts()
        entry["bugs"] = [b.to_json() for b in bugs]
        entry["unexplained"] = [cause_json(c) for c in unexplained]
        return entry


def builtin_scenarios(layer: str) -> list[Scenario]:
    """The built-in scenarios of ``layer``."""
    from harness.library import library_path
    from harness.scenario import load_all

    scenarios, problems = load_all([str(library_path() / layer)])
    if problems:  # the built-in library is checked by its tests: this is a broken install
        raise RuntimeError(f"the built-in {layer} scenarios do not load: {problems[0]}")
    return scenarios


def driver_scenarios() -> list[Scenario]:
    """The built-in driver scenarios."""
    return builtin_scenarios("driver")


def matrix_scenarios(libraries: Sequence[Library] | None = None) -> list[Scenario]:
    """The built-in scenarios of the layers ``libraries`` (default: all) implement."""
    chosen = all_libraries() if libraries is None else libraries
    layers = {library.layer for library in chosen}
    found = driver_scenarios() if "driver" in layers else []
    return found + (builtin_scenarios("session") if "session" in layers else [])


def choose(names: Sequence[str]) -> list[Library] | None:
    """The libraries named (None: all), or a ``ValueError`` naming the unknown ones."""
    known = {library.name: library for library in all_libraries()}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"no library named {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in dict.fromkeys(names)] or None


def run_libraries(
    scenarios: Sequence[Scenario],
    libraries: Sequence[Library] | None = None,
    *,
    quirks: Selection = ALL,
    layer: str | None = None,
) -> list[LibraryRun]:
    """Every installed library's adapter (default: ``libraries()``, the bundled ones and those
    of the entry-point group ``streamharness.adapters``) over the cases of the scenarios of its
    layer among ``scenarios`` that ``quirks`` selects (every quirk case of a driver scenario,
    every variation of a session scenario, by default). ``layer``: only the libraries of that
    layer."""
    runs = []
    for library in all_libraries() if libraries is None else libraries:
        if layer is not None and library.layer != layer:
            continue
        version = library.version()
        if version is None:
            runs.append(LibraryRun(library, None, None, ()))
            continue
        adapter = resolve_adapter(library.adapter)
        mine = [s for s in scenarios if s.layer == library.layer]
        # asked of the factory within the time limit; a library that cannot say (its process
        # does not answer hello) still runs its cases, each an error that says why
        try:
            contract = _contract(library, adapter)
        except AdapterError:
            contract = "unknown"
        if not mine:
            cases = []
        elif library.layer == "driver":
            cases = cases_to_run(mine, adapter, quirks=quirks)
        else:
            cases = cases_to_run(mine, adapter, variations=quirks)
        # an exec: library's process drives case after case (a fresh one after a failed turn)
        reusing = getattr(adapter.factory, "reusing", contextlib.nullcontext)
        with reusing():
            results = tuple(run_cases(cases, adapter, keep_outputs=lambda r: False))
        runs.append(LibraryRun(library, version, contract, results))
    return runs


def _contract(library: Library, adapter: AdapterInfo) -> str:
    """How a driver library hands calls over, or the UI protocol a consumer reads."""
    if library.layer == "driver":
        return adapter_contract(adapter, DEFAULT_TIMEOUT)
    codec = adapter_session_dialect(adapter, DEFAULT_TIMEOUT)
    return codec.name if codec is not None else "canonical"


def problems(runs: Iterable[LibraryRun]) -> list[str]:
    """What ``harness matrix --check`` refuses: a cause no explanation covers, and an
    explanation of an installed library that covers no cause."""
    found = []
    for run in runs:
        if not run.installed:
            continue
        name = run.library.name
        for cause in run.bugs()[1]:
            found.append(
                f"{name}: cause {cause.key} ({len(cause.cases)} cases, smallest "
                f"{_case_id(cause)}) is not explained: {cause.message}"
            )
        for idle in run.idle_explanations():
            found.append(f"{name}: explanation {idle.id!r} covers no cause of this run")
    return found


def _case_id(cause: Cause) -> str:
    return str(getattr(cause.smallest.scenario, "case_id", cause.scenario))


# -- the document, from runs or from the parts other environments wrote -------------------------


def document(
    runs: Iterable[LibraryRun], loops: Iterable[FrameworkRun] | None = None
) -> dict[str, Any]:
    """The matrix of the libraries' runs, and of the framework loops' when some were run (None:
    the document has no ``loops``)."""
    doc: dict[str, Any] = {"libraries": [run.to_json() for run in runs]}
    if loops is not None:
        doc["loops"] = [run.to_json() for run in loops]
    return doc


def merge(parts: Iterable[Mapping[str, Any]], where: Sequence[str] = ()) -> dict[str, Any]:
    """One document of the parts (``document``s) that environments wrote, each library in the
    order ``libraries()`` lists them (others after, by name): an installed entry is kept over a
    not-installed one, and a library installed in two parts must agree. The framework loops
    are merged the same way, in ``FRAMEWORK_LOOPS``' order, when a part has some."""
    parts = list(parts)
    entries = _gather(parts, "libraries", where)
    for library in all_libraries():
        entries.setdefault(library.name, LibraryRun(library, None, None, ()).to_json())
    merged: dict[str, Any] = {"libraries": _ranked(entries, [lib.name for lib in all_libraries()])}
    if any("loops" in part for part in parts):
        loops = _gather(parts, "loops", where)
        for loop in FRAMEWORK_LOOPS:
            loops.setdefault(loop.name, FrameworkRun(loop, None, ()).to_json())
        merged["loops"] = _ranked(loops, [loop.name for loop in FRAMEWORK_LOOPS])
    return merged


def _gather(
    parts: Sequence[Mapping[str, Any]], key: str, where: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The parts' entries under ``key`` by name, an installed one kept over a missing one."""
    entries: dict[str, dict[str, Any]] = {}
    for number, part in enumerate(parts):
        for entry in part.get(key, ()):
            name = entry["name"]
            kept = entries.get(name)
            if kept is None or kept.get("version") is None:
                entries[name] = dict(entry)
            elif entry.get("version") is not None and entry != kept:
                source = where[number] if number < len(where) else f"part {number + 1}"
                raise ValueError(f"{source}: {name} differs from an earlier part's run of it")
    return entries


def _ranked(entries: Mapping[str, dict[str, Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    order = {name: n for n, name in enumerate(names)}
    return sorted(entries.values(), key=lambda e: (order.get(e["name"], len(order)), e["name"]))


def render_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _bugs(entry: Mapping[str, Any], where: str) -> list[Mapping[str, Any]]:
    return [b for b in entry.get("bugs", ()) if b["origin"] == where]


def _cases(entry: Mapping[str, Any], status: str, where: str | None = None) -> int:
    counts = entry.get("cases", {})
    return sum(counts[o][status] for o in ORIGINS if o in counts and where in (None, o))


def _case_text(entry: Mapping[str, Any]) -> str:
    failed = _cases(entry, "fail") + _cases(entry, "error")
    return f"{_cases(entry, 'pass')} passed, {failed} failed, {_cases(entry, 'skip')} skipped"


def _bug_count(bugs: Sequence[Mapping[str, Any]]) -> str:
    if not bugs:
        return "0"
    causes = sum(len(b["causes"]) for b in bugs)
    return f"{len(bugs)} ({causes} {'cause' if causes == 1 else 'causes'})"


INTRO = """\
Each library's own streaming code, wrapped by an adapter in `harness/adapters/libs/`, replayed
over every case of the built-in driver scenarios in the library's dialect: each scenario as
written and with each quirk servers are seen to add (the quirk cross product). The contract
says when the library hands a tool call to its user: as soon as the call is complete
(per-call) or with the whole message at the end (per-message). Cases the dialect cannot carry
are skipped and only counted.

The failures are grouped into root causes (one bug that fails many cases is one cause per
scenario and rule it breaks), and the causes into bugs: each bug is said in plain words, what
the library did and what its user sees, and reproduced without the harness by the script
named beside it. A bug is first-party when a first-party server's shape brings out any of its
causes; one seen only on shapes gateways, proxies and other vendors' compatible servers send is
listed apart, under "Behind gateways and proxies".

Agent runs that send a second request after running their tools (pydantic-ai's
`Agent.run_stream`, the OpenAI Agents SDK's `Runner.run_streamed`) are not in this table: one
response per case cannot carry them. They are judged over HTTP, unmodified, by `harness loop`
against the loop scenarios (README, "Judge an unmodified agent"); their results are the last
section of this document, "Agent frameworks' loops against the loop scenarios".
"""

SESSION_INTRO = """\
The consumers of UI protocols, fed each session scenario (and each of its variations) as the
protocol carries it (docs/ui-protocols.md), each through its own reducer; a case the protocol
cannot carry is skipped and only counted. What the rules mean in each protocol is its rule
profile; a failure is a bug of the consumer reproduced with it alone, or, where the profile
asks more than the consumer's own contract (a candidate rule), the bug says so.
"""


def _layer(entry: Mapping[str, Any]) -> str:
    return str(entry.get("layer", "driver"))


def render_markdown(doc: Mapping[str, Any]) -> str:
    entries = [e for e in doc["libraries"] if _layer(e) == "driver"]
    sessions = [e for e in doc["libraries"] if _layer(e) == "session"]
    lines = [
        "# Real consumer libraries against the driver scenarios",
        "",
        "<!-- Generated by `make matrix` (noxfile.py): do not edit. -->",
        "",
        INTRO,
        "| library | version | contract | cases | first-party bugs | gateway bugs |",
        "|---|---|---|---|---|---|",
    ]
    for entry in entries:
        name = entry["name"]
        if entry.get("version") is None:
            lines.append(f"| {name} | not installed: `{entry['install']}` | | | | |")
            continue
        lines.append(
            f"| [{name}](#{_anchor(name)}) | {entry['version']} | {entry['contract']} "
            f"| {_case_text(entry)} | {_bug_count(_bugs(entry, 'first-party'))} "
            f"| {_bug_count(_bugs(entry, 'gateway'))} |"
        )
    for entry in entries:
        lines += _library_section(entry)
    if sessions:
        lines += [
            "",
            "## UI protocol consumers against the session scenarios",
            "",
            SESSION_INTRO,
            "| consumer | version | session dialect | cases | bugs |",
            "|---|---|---|---|---|",
        ]
    for entry in sessions:
        name = entry["name"]
        if entry.get("version") is None:
            lines.append(f"| {name} | not installed: `{entry['install']}` | | | |")
            continue
        lines.append(
            f"| [{name}](#{_anchor(name)}) | {entry['version']} | {entry['contract']} "
            f"| {_case_text(entry)} | {_bug_count(entry.get('bugs', []))} |"
        )
    for entry in sessions:
        lines += _library_section(entry)
    if doc.get("loops"):
        lines += render_loops_markdown(doc["loops"])
    return "\n".join(lines) + "\n"


def _anchor(name: str) -> str:
    return f"lib-{name}"


def _library_section(entry: Mapping[str, Any]) -> list[str]:
    name = entry["name"]
    lines = ["", f'<a id="{_anchor(name)}"></a>', "", f"## {name} {entry.get('version') or ''}"]
    lines += ["", f"Adapter `{entry['adapter']}`."]
    if entry.get("version") is None:
        return [*lines, f"Not installed when the matrix was made: `{entry['install']}`."]
    said = "Session dialect" if _layer(entry) == "session" else "Contract"
    lines[-1] += f" {said}: {entry['contract']}. {_case_text(entry)}."
    first, behind = _bugs(entry, "first-party"), _bugs(entry, "gateway")
    if not first:
        none = (
            "No bug." if _layer(entry) == "session" else "No bug on what first-party servers send."
        )
        lines += ["", none]
    lines += _bug_lines(first)
    if behind:
        lines += ["", "### Behind gateways and proxies", ""]
        lines.append("Shapes no first-party server of the dialect sends.")
        lines += _bug_lines(behind)
    if entry["unexplained"]:
        lines += ["", "### Not explained yet", ""]
        for cause in entry["unexplained"]:
            lines.append(f"- {_cause_line(cause)}: {cause['message']}")
    return lines


def _bug_lines(bugs: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for bug in bugs:
        causes = bug["causes"]
        smallest = min(causes, key=lambda c: (_quirk_count(c), c["smallest_case"]))
        rules = ", ".join(f"`{r}`" for r in bug["rules"])
        lines += [
            "",
            f"- **{bug['id']}** ({rules}; {len(causes)} "
            f"{'cause' if len(causes) == 1 else 'causes'}, {bug['cases']} cases; smallest "
            f"`{smallest['smallest_case']}`): {bug['explanation']} Reproduced by "
            f"[{bug['reproduction']}](../{bug['reproduction']}).",
            "",
            "  <details><summary>its causes</summary>",
            "",
        ]
        lines += [f"  - {_cause_line(c)}" for c in causes]
        lines += ["", "  </details>"]
    return lines


def _quirk_count(cause: Mapping[str, Any]) -> int:
    return min(len(t) for t in cause["triggers"])


def _cause_line(cause: Mapping[str, Any]) -> str:
    triggers = cause["triggers"]
    when = "as written" if [] in triggers else "under " + " or ".join("+".join(t) for t in triggers)
    gateway = ", gateway" if cause["origin"] == "gateway" else ""
    return (
        f"`{cause['cause']}` ({cause['cases']} cases{gateway}, {when}; "
        f"smallest `{cause['smallest_case']}`)"
    )


def render_summary(runs: Sequence[LibraryRun]) -> str:
    """One line per library, for ``harness demo``, which runs the scenarios as written (the
    matrix runs every quirk case of them)."""
    width = max(len(run.library.name) for run in runs)
    versions = max(len(run.version or "") for run in runs)
    lines = [
        "Real consumer libraries over the scenarios as written (every quirk case of them: "
        "harness matrix, docs/conformance.md):"
    ]
    for run in runs:
        name = f"{run.library.name:<{width}}"
        if run.installed:
            version = f"{run.version:<{versions}}"
            entry = {"cases": run.case_counts()}
            failed = _cases(entry, "fail") + _cases(entry, "error")
            behind = _cases(entry, "fail", "gateway") + _cases(entry, "error", "gateway")
            gateway = f" (+{behind} gateway)" if behind else ""
            lines.append(
                f"  {name}  {version}  {run.contract:<11}  {_cases(entry, 'pass')} passed, "
                f"{failed - behind} failed{gateway}, {_cases(entry, 'skip')} skipped"
            )
        else:
            lines.append(f"  {name}  not installed: {run.library.install_hint()}")
    return "\n".join(lines)
