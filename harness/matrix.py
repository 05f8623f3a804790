"""Real consumer libraries against the built-in driver scenarios: ``harness matrix``.

Runs the adapter of every installed library in ``harness.adapters.libs.LIBRARIES`` over the
driver scenarios and puts each failure next to its plain-words explanation
(``harness.adapters.libs.explanations``). A scenario tagged ``gateway`` holds a shape that only
gateways, proxies and other vendors' compatible servers send; its results are counted and listed
apart from those of first-party shapes. A library that is not installed is listed with the
extra that installs it. The output holds no timings and no paths, so it can be committed
(``docs/conformance.md``) and diffed when a library's behaviour changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from harness.adapters.libs import Library, install_hint
from harness.adapters.libs import libraries as all_libraries
from harness.adapters.libs.explanations import EXPLANATIONS
from harness.adapters.registry import resolve_adapter
from harness.model.driver_run import declared_contract
from harness.replay import run_cases
from harness.replay.result import ScenarioResult
from harness.results.causes import Origin, origin
from harness.scenario import Scenario

#: how many violation messages a generic explanation quotes
_QUOTED = 3


@dataclass(frozen=True)
class LibraryRun:
    library: Library
    #: None when the library is not installed
    version: str | None
    #: "per-call" or "per-message", as the adapter declares (``emits_calls``)
    contract: str | None
    results: tuple[ScenarioResult, ...]

    @property
    def installed(self) -> bool:
        return self.version is not None

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def failed(self) -> tuple[ScenarioResult, ...]:
        return tuple(r for r in self.results if r.status in ("fail", "error"))

    def failed_from(self, where: Origin) -> tuple[ScenarioResult, ...]:
        return tuple(r for r in self.failed if origin(r) == where)


def run_libraries(
    scenarios: Sequence[Scenario], libraries: Sequence[Library] | None = None
) -> list[LibraryRun]:
    """Every installed library's adapter (default: ``libraries()``, the bundled ones and those
    of the entry-point group ``streamharness.adapters``) over the driver scenarios among
    ``scenarios``."""
    driver = [s for s in scenarios if s.layer == "driver"]
    runs = []
    for library in all_libraries() if libraries is None else libraries:
        version = library.version()
        if version is None:
            runs.append(LibraryRun(library, None, None, ()))
            continue
        adapter = resolve_adapter(library.adapter)
        contract = str(declared_contract(adapter.factory()))
        runs.append(LibraryRun(library, version, contract, tuple(run_cases(driver, adapter))))
    return runs


def written_explanation(library: str, scenario: str) -> str | None:
    return EXPLANATIONS.get((library, scenario))


def explanation(run: LibraryRun, result: ScenarioResult) -> str | None:
    """What happened, in plain words: the written one, or one built from the violations."""
    if result.status == "pass":
        return None
    if result.status == "skip":
        return result.skip_reason
    written = written_explanation(run.library.name, result.scenario.id)
    if written is not None:
        return written
    if result.status == "error":
        return f"Not explained yet. The replay ended in an error: {result.error}"
    messages = list(dict.fromkeys(v.message for v in result.violations))
    quoted = "; ".join(messages[:_QUOTED])
    more = f" (and {len(messages) - _QUOTED} more)" if len(messages) > _QUOTED else ""
    return f"Not explained yet. The harness found: {quoted}{more}."


def to_json(runs: Sequence[LibraryRun]) -> dict[str, object]:
    libraries = []
    for run in runs:
        entry: dict[str, object] = {
            "name": run.library.name,
            "version": run.version,
            "adapter": run.library.adapter,
            "contract": run.contract,
            "results": [
                {
                    "scenario": r.scenario.id,
                    "status": r.status,
                    "origin": origin(r),
                    "rules": list(r.rules_broken),
                    "explanation": explanation(run, r),
                }
                for r in run.results
            ],
        }
        if not run.installed:
            entry["install"] = install_hint(run.library.extra)
        libraries.append(entry)
    return {"libraries": libraries}


def render_json(runs: Sequence[LibraryRun]) -> str:
    return json.dumps(to_json(runs), indent=2) + "\n"


def _failed(run: LibraryRun, word: str = "") -> str:
    """Failures on first-party shapes, then those behind gateways: ``2 (+3 gateway)``, or with
    ``word``, ``2 failed (+3 gateway)``."""
    first, behind = len(run.failed_from("first-party")), len(run.failed_from("gateway"))
    return f"{first}{word}" + (f" (+{behind} gateway)" if behind else "")


def _counts(run: LibraryRun) -> str:
    return f"{run.count('pass')} passed, {_failed(run, ' failed')}, {run.count('skip')} skipped"


def _failure_lines(run: LibraryRun, results: Sequence[ScenarioResult]) -> list[str]:
    lines = []
    for result in results:
        rules = ", ".join(f"`{rule}`" for rule in result.rules_broken) or "error"
        lines += ["", f"- **{result.scenario.id}** ({rules}): {explanation(run, result)}"]
    return lines


def render_markdown(runs: Sequence[LibraryRun]) -> str:
    lines = [
        "# Real consumer libraries against the driver scenarios",
        "",
        "<!-- Generated: harness matrix --format markdown --out docs/conformance.md -->",
        "",
        "Each library's own streaming code, wrapped by an adapter in `harness/adapters/libs/`,",
        "replayed over the built-in driver scenarios. The contract says when the library hands a",
        "tool call to its user: as soon as the call is complete (per-call) or with the whole",
        "message at the end (per-message). Scenarios its dialect cannot carry are skipped and",
        "only counted. A failure is what the rules found; the explanation says what the library",
        "did and what its user would see. Failures on shapes that only gateways, proxies and",
        "other vendors' compatible servers send (scenarios tagged `gateway`) are counted apart,",
        'as `(+N gateway)`, and listed under "Behind gateways and proxies".',
        "",
        "| library | version | contract | passed | failed | skipped |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        if run.installed:
            lines.append(
                f"| {run.library.name} | {run.version} | {run.contract} | {run.count('pass')} "
                f"| {_failed(run)} | {run.count('skip')} |"
            )
        else:
            lines.append(
                f"| {run.library.name} | not installed: `{install_hint(run.library.extra)}` | | | | |"
            )
    for run in runs:
        lines += ["", f"## {run.library.name} {run.version or '(not installed)'}", ""]
        lines.append(f"Adapter `{run.library.adapter}`.")
        if not run.installed:
            lines.append(f"Not installed here: `{install_hint(run.library.extra)}`.")
            continue
        lines.append(f"Contract: {run.contract}. {_counts(run)}.")
        first, behind = run.failed_from("first-party"), run.failed_from("gateway")
        if behind and not first:
            lines += ["", "No failure on what first-party servers send."]
        lines += _failure_lines(run, first)
        if behind:
            lines += ["", "**Behind gateways and proxies** (shapes no first-party server sends):"]
            lines += _failure_lines(run, behind)
    return "\n".join(lines) + "\n"


def render_summary(runs: Sequence[LibraryRun]) -> str:
    """One line per library, for ``harness demo``."""
    width = max(len(run.library.name) for run in runs)
    versions = max(len(run.version or "") for run in runs)
    lines = ["Real consumer libraries (harness matrix; details in docs/conformance.md):"]
    for run in runs:
        name = f"{run.library.name:<{width}}"
        if run.installed:
            version = f"{run.version:<{versions}}"
            lines.append(f"  {name}  {version}  {run.contract:<11}  {_counts(run)}")
        else:
            lines.append(f"  {name}  not installed: {install_hint(run.library.extra)}")
    return "\n".join(lines)
