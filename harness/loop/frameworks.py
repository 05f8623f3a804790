"""Agent frameworks' own loops over the loop scenarios, for ``harness matrix``: each installed
framework loop (``harness.adapters.loop.frameworks.FRAMEWORK_LOOPS``) run unmodified against
every loop scenario in every dialect its models speak, each failed run explained in words
(``harness.adapters.loop.frameworks.explanations``) or listed as not explained yet.

What is written down holds no timings, no paths of this machine and no ids a framework makes up,
so the matrix comes out the same on every run: a violation is kept as its first line, with
seconds and made-up ids masked, and its reproduction names ``python`` and the library's
``harness-library/loop/...`` files.

::

    from harness.loop.frameworks import run_frameworks
    (run,) = run_frameworks([loop])
    run.to_json()["runs"][0]["status"]      # "pass"
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.loop.frameworks import FRAMEWORK_LOOPS, FrameworkLoop
from harness.adapters.loop.frameworks.explanations import (
    LoopExplanation,
    explanation_of_run,
    loop_explanations,
)
from harness.library import LIBRARY_PREFIX, library_path
from harness.loop.find import loop_scenarios
from harness.loop.run import LoopResult, run_loop
from harness.results.causes import mask_made_up
from harness.rules.registry import Violation
from harness.scenario import LoopScenario

#: seconds a framework's program may take for one scenario (its imports alone take seconds on
#: a loaded machine)
MATRIX_LOOP_TIMEOUT = 90.0

#: what changes from one run to the next in a violation's words besides made-up ids: seconds
_SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")


def masked(message: str) -> str:
    """A violation's first line, as the matrix keeps it: seconds said as ``N s``, made-up ids
    as ``<made-up>``, and the program's output it goes on to quote left out.

    >>> masked("it exited with status 0 after 11.3 s; the end of its output:\\n  | done")
    'it exited with status 0 after N s'
    """
    head = message.partition("\n")[0].removesuffix("; the end of its output:")
    return mask_made_up(_SECONDS.sub("N s", head))


def scenario_file(scenario: LoopScenario) -> str:
    """The scenario as a command line anywhere names it: ``harness-library/loop/NAME.yaml`` for
    the library's own."""
    path = Path(scenario.path).resolve()
    if path.is_relative_to(library_path()):
        return f"{LIBRARY_PREFIX}/{path.relative_to(library_path()).as_posix()}"
    return scenario.path


def reproduction(loop: FrameworkLoop, result: LoopResult) -> str:
    """The ``harness loop`` command that runs ``result`` again, in the loop's environment."""
    program = " ".join(shlex.quote(p) for p in loop.command(result.dialect, python="python"))
    return (
        f"python -m harness loop {scenario_file(result.scenario)} --dialect {result.dialect} "
        f"-- {program}"
    )


@dataclass(frozen=True)
class FrameworkRun:
    loop: FrameworkLoop
    #: None when the framework (or every SDK it runs over) is not installed
    version: str | None
    results: tuple[LoopResult, ...]

    @property
    def installed(self) -> bool:
        return self.version is not None

    def failed(self) -> tuple[LoopResult, ...]:
        return tuple(r for r in self.results if r.status == "fail")

    def explanation(self, result: LoopResult) -> LoopExplanation | None:
        return explanation_of_run(
            self.loop.name, result.scenario.id, result.dialect, result.rules_broken
        )

    def unexplained(self) -> tuple[LoopResult, ...]:
        return tuple(r for r in self.failed() if self.explanation(r) is None)

    def idle_explanations(self) -> list[LoopExplanation]:
        """The loop's explanations that cover no failed run: the framework (or a rule)
        changed, and the explanation no longer says what happens."""
        used = {e.id for r in self.failed() if (e := self.explanation(r)) is not None}
        return [e for e in loop_explanations(self.loop.name) if e.id not in used]

    def to_json(self) -> dict[str, Any]:
        loop = self.loop
        entry: dict[str, Any] = {
            "name": loop.name,
            "api": loop.api,
            "program": f"python -m {loop.module}" + "".join(f" {a}" for a in loop.arguments),
            "extra": loop.extra,
            "version": self.version,
            "dialects": [d.dialect for d in loop.dialects],
        }
        if not self.installed:
            entry["install"] = f"pip install 'streamharness[{loop.extra}]'"
            return entry
        entry["runs"] = [self._run_json(r) for r in self.results]
        entry["bugs"] = [
            {
                "id": e.id,
                "verdict": e.verdict,
                "explanation": e.text,
                "reproduction": e.reproduction.as_posix(),
                "runs": [r.scenario.case_id for r in self.failed() if self.explanation(r) == e],
            }
            for e in loop_explanations(loop.name)
            if any(self.explanation(r) == e for r in self.failed())
        ]
        entry["unexplained"] = [r.scenario.case_id for r in self.unexplained()]
        return entry

    def _run_json(self, result: LoopResult) -> dict[str, object]:
        record: dict[str, object] = {
            "scenario": result.scenario.id,
            "dialect": result.dialect,
            "status": result.status,
            "requests": len(result.requests),
        }
        if result.status == "skip":
            record["skip_reason"] = result.skip_reason
        if result.status == "fail":
            found = self.explanation(result)
            record["rules"] = list(result.rules_broken)
            record["explanation"] = found.id if found is not None else None
            record["violations"] = [_violation_json(v) for v in result.violations]
            record["reproduce"] = reproduction(self.loop, result)
        return record


def _violation_json(violation: Violation) -> dict[str, object]:
    return {
        "rule": violation.rule,
        "response": violation.event_index + 1,
        "message": masked(violation.message),
        **({"caused_by": violation.cause[0]} if violation.cause else {}),
    }


def run_frameworks(
    loops: Sequence[FrameworkLoop] | None = None,
    scenarios: Sequence[LoopScenario] | None = None,
    *,
    timeout: float = MATRIX_LOOP_TIMEOUT,
    on_result: Callable[[LoopResult], None] | None = None,
) -> list[FrameworkRun]:
    """Every installed loop among ``loops`` (default: ``FRAMEWORK_LOOPS``) over every scenario
    among ``scenarios`` (default: the library's loop scenarios) in each dialect the loop's
    installed SDKs speak and the scenario runs in."""
    chosen = FRAMEWORK_LOOPS if loops is None else loops
    served = loop_scenarios() if scenarios is None else scenarios
    runs = []
    for loop in chosen:
        version = loop.version()
        results = []
        for dialect in loop.installed_dialects():
            for scenario in served:
                if dialect.dialect not in scenario.dialects:
                    continue
                result = run_loop(
                    scenario, loop.command(dialect.dialect), dialect=dialect.dialect,
                    timeout=timeout,
                )  # fmt: skip
                results.append(result)
                if on_result is not None:
                    on_result(result)
        runs.append(FrameworkRun(loop, version, tuple(results)))
    return runs


def choose_loops(names: Iterable[str]) -> list[FrameworkLoop]:
    """The framework loops named, or a ``ValueError`` naming the unknown ones."""
    known = {loop.name: loop for loop in FRAMEWORK_LOOPS}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"no framework loop named {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in dict.fromkeys(names)]


def loop_problems(runs: Iterable[FrameworkRun]) -> list[str]:
    """What ``harness matrix --check`` refuses of the loops: a failed run no explanation covers,
    and an explanation of an installed loop that covers no failed run."""
    found = []
    for run in runs:
        if not run.installed:
            continue
        for result in run.unexplained():
            found.append(
                f"{run.loop.name}: {result.scenario.case_id} failed ({', '.join(result.rules_broken)}) "
                f"and is not explained; reproduce: {reproduction(run.loop, result)}"
            )
        for idle in run.idle_explanations():
            found.append(f"{run.loop.name}: explanation {idle.id!r} covers no failed run")
    return found


# -- the matrix's section of them, from the document's ``loops`` entries ---------------------------

LOOPS_INTRO = """\
Each framework's own agent loop, run unmodified as a program (`harness/adapters/loop/frameworks/`)
against every loop scenario, in every dialect its models speak: the framework streams each
response, assembles the calls, runs the tools (each echoes its arguments; `delegate` runs a
second agent) and sends the history back, and the loop rules judge every request it sends
(docs/SCENARIOS.md, "Loop scenarios"). A failed run is explained in plain words, with its
violations and the command that runs it again. Its verdict says whose the failure is: the
framework's, or the harness's (the framework's choice is a reasonable one the rule does not
allow, or the stand-in serves something other than the scenario says).
"""

_VERDICT_WORDS = {"framework": "the framework's", "harness": "the harness's question"}


def loop_anchor(name: str) -> str:
    return f"loop-{name}"


def render_loops_markdown(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """The matrix's section of the framework loops: a row per loop, then each loop's runs by
    scenario and dialect, and each of its failures explained."""
    lines = [
        "",
        "## Agent frameworks' loops against the loop scenarios",
        "",
        LOOPS_INTRO,
        "| loop | version | API | runs | the framework's | the harness's |",
        "|---|---|---|---|---|---|",
    ]
    for entry in entries:
        name = str(entry["name"])
        if entry.get("version") is None:
            lines.append(f"| {name} | not installed: `{entry['install']}` | {entry['api']} | | | |")
            continue
        lines.append(
            f"| [{name}](#{loop_anchor(name)}) | {entry['version']} | `{entry['api']}` "
            f"| {_run_counts(entry)} | {_verdict_count(entry, 'framework')} "
            f"| {_verdict_count(entry, 'harness')} |"
        )
    for entry in entries:
        lines += _loop_section(entry)
    return lines


def _runs(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(entry.get("runs", ()))


def _run_counts(entry: Mapping[str, Any]) -> str:
    runs = _runs(entry)
    counts = {s: sum(r["status"] == s for r in runs) for s in ("pass", "fail", "skip")}
    text = f"{counts['pass']} passed, {counts['fail']} failed"
    return text + (f", {counts['skip']} skipped" if counts["skip"] else "")


def _bugs(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(entry.get("bugs", ()))


def _verdict_count(entry: Mapping[str, Any], verdict: str) -> str:
    bugs = [b for b in _bugs(entry) if b["verdict"] == verdict]
    runs = sum(len(b["runs"]) for b in bugs)
    return f"{len(bugs)} ({runs} {'run' if runs == 1 else 'runs'})" if bugs else "0"


def _loop_section(entry: Mapping[str, Any]) -> list[str]:
    name = str(entry["name"])
    lines = [
        "",
        f'<a id="{loop_anchor(name)}"></a>',
        "",
        f"### {name} {entry.get('version') or ''}",
    ]
    lines += ["", f"`{entry['api']}`, run as `{entry['program']} --model ...`."]
    if entry.get("version") is None:
        return [*lines, f"Not installed when the matrix was made: `{entry['install']}`."]
    dialects = [str(d) for d in entry["dialects"]]
    cells: dict[tuple[str, str], str] = {}
    for run in _runs(entry):
        cells[str(run["scenario"]), str(run["dialect"])] = _cell(run)
    scenarios = list(dict.fromkeys(str(r["scenario"]) for r in _runs(entry)))
    lines += ["", "| scenario | " + " | ".join(dialects) + " |"]
    lines.append("|---|" + "---|" * len(dialects))
    for scenario in scenarios:
        row = [cells.get((scenario, d), "not run") for d in dialects]
        lines.append(f"| {scenario} | " + " | ".join(row) + " |")
    by_case = {f"{r['scenario']}[{r['dialect']}]": r for r in _runs(entry)}
    for bug in _bugs(entry):
        runs = [str(c) for c in bug["runs"]]
        script = bug["reproduction"]
        lines += [
            "",
            f"- **{bug['id']}** ({_VERDICT_WORDS[str(bug['verdict'])]}; "
            f"{', '.join(f'`{c}`' for c in runs)}): {bug['explanation']} "
            f"Reproduced by [{script}](../{script}).",
        ]
        lines += _evidence([by_case[c] for c in runs])
    unexplained = [str(c) for c in entry.get("unexplained", ())]
    if unexplained:
        lines += ["", "#### Not explained yet", ""]
        for case in unexplained:
            lines.append(f"- `{case}`")
            lines += _evidence([by_case[case]])
    return lines


def _cell(run: Mapping[str, Any]) -> str:
    if run["status"] == "fail":
        rules = ", ".join(f"`{r}`" for r in run["rules"])
        return f"**fail** ({rules})"
    return str(run["status"])


def _evidence(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = ["", "  <details><summary>its violations, and how to run them again</summary>", ""]
    for run in runs:
        lines.append(f"  - `{run['scenario']}[{run['dialect']}]`: `{run['reproduce']}`")
        for v in run["violations"]:
            if "caused_by" not in v:
                lines.append(f"    - `{v['rule']}`, response {v['response']}: {v['message']}")
    lines += ["", "  </details>"]
    return lines
