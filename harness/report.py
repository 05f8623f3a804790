"""Human-readable rendering of results: a line per scenario, then each violation located."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from harness.replay.result import ScenarioResult
from harness.rules.registry import Violation
from harness.scenario import SessionScenario

_MARK = {"pass": "PASS ", "fail": "FAIL ", "skip": "SKIP ", "error": "ERROR"}


def reproduce_command(result: ScenarioResult) -> str:
    return (
        f"harness run {shlex.quote(result.scenario.path)} --adapter {shlex.quote(result.adapter)}"
    )


def excerpt(result: ScenarioResult, violation: Violation, radius: int = 2) -> list[str]:
    """The events around the violation's event, one line each, the event itself marked."""
    if not isinstance(result.scenario, SessionScenario):
        return []
    trace = result.scenario.trace
    lines = []
    lo, hi = (
        max(0, violation.event_index - radius),
        min(len(trace), violation.event_index + radius + 1),
    )
    for i in range(lo, hi):
        event = trace[i]
        marker = ">" if i == violation.event_index else " "
        detail = _summary(event)
        lines.append(
            f"{marker} {i:>6}  line {event.line:<4} {event.kind:<16} {event.session_id}  {detail}"
        )
    return lines


def _summary(event: object) -> str:
    for attr in ("message_id", "call_id", "name"):
        value = getattr(event, attr, None)
        if value:
            return f"{attr}={value}"
    calls = getattr(event, "calls", None)
    if calls:
        return "calls=" + ",".join(c.id for c in calls)
    return ""


def render_violation(
    result: ScenarioResult, violation: Violation, *, with_excerpt: bool = True
) -> list[str]:
    out = [
        f"  [{violation.rule}] event {violation.event_index}, "
        f"{result.scenario.path}:{result.line_of(violation)}",
        f"    {violation.message}",
    ]
    if with_excerpt and violation.event_index >= 0:
        out.extend("      " + line for line in excerpt(result, violation))
    return out


def render_table(results: Sequence[ScenarioResult], *, max_violations: int = 5) -> str:
    lines: list[str] = []
    for result in results:
        extra = ""
        if result.status == "fail":
            extra = f"  ({', '.join(result.rules_broken)})"
        lines.append(f"{_MARK[result.status]} {result.scenario.id}  [{result.adapter}]{extra}")
        if result.status == "skip":
            lines.append(f"  skipped: {result.skip_reason}")
        if result.status == "error":
            lines.append(f"  {result.error}")
        if result.status in ("fail", "error"):
            for violation in result.violations[:max_violations]:
                lines.extend(render_violation(result, violation))
            hidden = len(result.violations) - max_violations
            if hidden > 0:
                lines.append(f"  ... and {hidden} more violations (use --format json for all)")
            lines.append(f"  reproduce: {reproduce_command(result)}")
    lines.append(summary_line(results))
    return "\n".join(lines)


def summary_line(results: Sequence[ScenarioResult]) -> str:
    counts = {status: 0 for status in _MARK}
    for result in results:
        counts[result.status] += 1
    return (
        f"{len(results)} scenarios: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['error']} errors, {counts['skip']} skipped"
    )
