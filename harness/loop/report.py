"""Loop results in words: a line per run, each violation located under it, and the command that
runs it again."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from harness.library import command_line_path
from harness.loop.run import LoopResult
from harness.rules.registry import Violation

_MARK = {"pass": "PASS ", "fail": "FAIL ", "skip": "SKIP "}


def reproduce_command(result: LoopResult, *, program: str = "python -m harness") -> str:
    """``harness loop FILE --dialect D -- COMMAND``: this run again."""
    path = shlex.quote(command_line_path(result.scenario.path))
    dialect = f" --dialect {result.dialect}" if result.dialect else ""
    command = " ".join(shlex.quote(part) for part in result.command or ("COMMAND",))
    return f"{program} loop {path}{dialect} -- {command}"


def render_violations(result: LoopResult) -> list[str]:
    lines: list[str] = []
    for root in result.root_causes:
        lines += _violation(result, root)
        for then in result.violations:
            if then.cause == (root.rule, root.event_index) and then is not root:
                lines.append(f"    which also breaks [{then.rule}]: {then.message}")
    return lines


def _violation(result: LoopResult, violation: Violation) -> list[str]:
    where = f"{result.scenario.path}:{result.line_of(violation)}"
    head, _, rest = violation.message.partition("\n")
    lines = [
        f"  [{violation.rule}] response {violation.event_index + 1}, {where}",
        f"    {head}",
    ]
    lines += rest.splitlines()
    return lines


def render_result(result: LoopResult, *, reproduce: bool = True) -> list[str]:
    """One run: its line, then why it failed or was skipped."""
    scenario = result.scenario
    count = len(result.requests)
    extra = f"  {count} request{'s' if count != 1 else ''}"
    if result.status == "fail":
        extra += f"  ({', '.join(result.rules_broken)})"
    lines = [f"{_MARK[result.status]} {scenario.case_id}{extra}"]
    if result.status == "skip":
        lines.append(f"  skipped: {result.skip_reason}")
    if result.status == "fail":
        lines += render_violations(result)
        if reproduce and result.command is not None:
            lines.append(f"  reproduce: {reproduce_command(result)}")
    return lines


def render_failure(result: LoopResult) -> str:
    """A failed run on its own, as the pytest fixture shows it."""
    lines = [
        f"{len(result.violations)} loop violation(s) in {result.scenario.case_id} "
        f"({result.scenario.title})",
        *render_violations(result),
    ]
    return "\n".join(lines)


def render_table(results: Sequence[LoopResult]) -> str:
    lines = [line for result in results for line in render_result(result)]
    counts = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "skip")}
    noun = "run" if len(results) == 1 else "runs"
    lines.append(
        f"{len(results)} loop {noun}: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['skip']} skipped"
    )
    return "\n".join(lines)
