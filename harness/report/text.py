"""Human-readable rendering of results: a line per scenario, then each violation located.

Both shells use it: ``harness run`` prints ``render_table``; the pytest plugin fails an item
with ``render_failure`` (the text of its ``ConformanceFailure``). ``reproduce_commands`` gives
the commands that replay exactly one case.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from harness.codecs.registry import registered
from harness.library import command_line_path
from harness.model.driver import Read, TurnEvent, turn_event_to_json
from harness.model.history import Block, TextBlock, ThinkingBlock, ToolUseBlock
from harness.model.observation import Message, Observation
from harness.replay.result import ScenarioResult
from harness.results.causes import Cause, group_causes, origin
from harness.results.compare import reference_result
from harness.rules.registry import Violation
from harness.scenario import DriverScenario, Scenario

_MARK = {"pass": "PASS ", "fail": "FAIL ", "skip": "SKIP ", "error": "ERROR"}

#: the product's layers in the order the docs list them
_LAYER_ORDER = ("session", "history", "driver", "loop")

#: violations shown per result; the JSON output (``--format json``) has all of them
MAX_VIOLATIONS_SHOWN = 10


def reproduce_command(
    result: ScenarioResult, adapter: str | None = None, *, program: str = "harness"
) -> str:
    """``harness run FILE --adapter NAME``: replays exactly this scenario against this adapter
    (``adapter`` is the reference to give, by default the result's adapter name). The file is
    named as from the current folder, a library scenario as ``harness-library/...``."""
    name = result.adapter if adapter is None else adapter
    path = shlex.quote(command_line_path(result.scenario.path))
    command = f"{program} run {path} --adapter {shlex.quote(name)}"
    return command + _quirks_option(result, "--quirks")


def _quirks_option(result: ScenarioResult, option: str) -> str:
    """The option naming the case's added quirks (e.g. `` --quirks no_index``) or, for a session
    scenario, its variations (`` --variations reused-ids``): the case to run, since the
    scenario's own runs every case. ``option`` is the quirks' option; the variations' is the
    same with ``variations`` for ``quirks``."""
    scenario = result.scenario
    if not isinstance(scenario, DriverScenario):
        option = option.replace("quirks", "variations")
    added = scenario.added
    return f" {option}={','.join(added) if added else 'none'}"


def reproduce_commands(
    result: ScenarioResult,
    adapter: str | None,
    *,
    pytest: bool = False,
    adapter_option: bool = True,
) -> list[str]:
    """The commands that replay exactly this case, each run as ``python -m``, so they work with
    whichever environment ran pytest, active or not.

    ``adapter`` is the reference the user gave (a bundled name, ``MODULE:FACTORY`` or
    ``exec:COMMAND``), or None for an adapter given as an object, which no command line can
    name; with ``pytest=True``, the pytest run of that one scenario comes too, naming the
    adapter only with ``adapter_option`` (an adapter from the configuration is left to it,
    so the item keeps its node id and ``--lf`` finds it)::

        reproduce_commands(result, "my_project.testing:make_adapter", pytest=True)
        # ['python -m harness run scenarios/x.yaml --adapter my_project.testing:make_adapter',
        #  'python -m pytest --harness-adapter=my_project.testing:make_adapter --harness-scenario=x']
    """
    only = f"--harness-scenario={shlex.quote(result.scenario.id)}"
    only += _quirks_option(result, "--harness-quirks")
    if adapter is None:
        return [f"python -m pytest {only}"] if pytest else []
    # ``harness run`` knows the bundled dialects only, not codecs a conftest.py registered
    runnable = not (isinstance(result.scenario, DriverScenario) and registered())
    commands = [reproduce_command(result, adapter, program="python -m harness")] if runnable else []
    if pytest and adapter_option:
        commands.append(f"python -m pytest --harness-adapter={shlex.quote(adapter)} {only}")
    elif pytest:
        commands.append(f"python -m pytest {only}")
    return commands


def excerpt(result: ScenarioResult, violation: Violation, radius: int = 2) -> list[str]:
    """The events around the violation's event, one line each, the event itself marked."""
    scenario = result.scenario
    lo, hi = (
        max(0, violation.event_index - radius),
        min(len(scenario.events), violation.event_index + radius + 1),
    )
    return [event_line(scenario, i, marked=i == violation.event_index) for i in range(lo, hi)]


def event_line(scenario: Scenario, index: int, event: Any = None, *, marked: bool = False) -> str:
    """One event of the expanded trace: its index, its line in the file the scenario's
    locations name, its kind, and its session (or a driver turn event's fields). Give the
    ``event`` when going through the trace: finding it by index re-makes a generated run."""
    event = scenario.events[index] if event is None else event
    session = getattr(event, "session_id", None)
    where = f"{session}  {_summary(event)}" if session is not None else _turn_summary(event)
    line = scenario.event_line(index)
    marker = ">" if marked else " "
    return f"{marker} {index:>6}  line {line:<4} {event.kind:<16} {where}".rstrip()


def chunk_line(number: int, read: Read, *, marked: bool = False, width: int | None = None) -> str:
    """Chunk ``number`` (counted from 1, as failure messages count reads), the canonical event
    it tells the turn up to, and its data escaped (cut to ``width`` characters if given)."""
    text = repr(read.data)
    if width is not None and len(text) > width:
        text = text[: width - 3] + "..."
    marker = ">" if marked else " "
    return f"{marker} chunk {number:>4}  event {read.origin:<4} {text}"


_NAMED_CHUNK = re.compile(r"\bchunk (\d+)\b")


def chunk_excerpt(
    result: ScenarioResult, violation: Violation, radius: int = 1, width: int = 100
) -> list[str]:
    """The chunks around the one the violation names (the first ``chunk N`` of its message,
    else the first chunk carrying its event), that one marked; empty when the replay did not
    feed the driver."""
    fed = result.driver_run.chunks if result.driver_run is not None else ()
    if not fed:
        return []
    named = _NAMED_CHUNK.search(violation.message)
    if named is not None:
        number = int(named.group(1))
    else:
        number = next((n for n, r in enumerate(fed, 1) if r.carried == violation.event_index), 0)
    if not 1 <= number <= len(fed):
        return []
    lo, hi = max(1, number - radius), min(len(fed), number + radius)
    return [chunk_line(n, fed[n - 1], marked=n == number, width=width) for n in range(lo, hi + 1)]


def _summary(event: object) -> str:
    for attr in ("message_id", "call_id", "name"):
        value = getattr(event, attr, None)
        if value:
            return f"{attr}={value}"
    calls = getattr(event, "calls", None)
    if calls:
        return "calls=" + ",".join(c.id for c in calls)
    return ""


def _turn_summary(event: object) -> str:
    """A driver turn event's fields, e.g. ``index=1 block=tool_use id=toolu_01 name=get_user``."""
    if not isinstance(event, TurnEvent):
        return ""
    parts = []
    for name, value in turn_event_to_json(event).items():
        if name == "type" or value == "":
            continue
        if name in ("text", "fragment"):  # streamed content: quoted, and kept short
            value = repr(value if len(value) <= 40 else value[:37] + "...")
        parts.append(f"{name}={value}")
    return " ".join(parts)


def render_violation(
    result: ScenarioResult, violation: Violation, *, with_excerpt: bool = True
) -> list[str]:
    out = [
        f"  [{violation.rule}] event {violation.event_index}, "
        f"{result.file_of(violation)}:{result.line_of(violation)}",
        f"    {violation.message}",
    ]
    if with_excerpt and violation.event_index >= 0:
        out.extend("      " + line for line in excerpt(result, violation))
    if with_excerpt:
        out.extend("      " + line for line in chunk_excerpt(result, violation))
    return out


def render_violations(
    result: ScenarioResult,
    *,
    limit: int = MAX_VIOLATIONS_SHOWN,
    cause: tuple[str, int] | None = None,
) -> list[str]:
    """The first ``limit`` root causes (``cause``: only those of this rule at this event),
    each located with its excerpt and followed by the violations that follow from it (one line
    each), then how many are left."""
    lines: list[str] = []
    roots = result.root_causes
    if cause is not None:
        roots = tuple(v for v in roots if (v.rule, v.event_index) == cause)
    for root in roots[:limit]:
        lines.extend(_violation_and_consequences(result, root))
    hidden = len(roots) - limit
    if hidden > 0:
        lines.append(f"  ... and {hidden} more root causes (--format json lists them all)")
    return lines


def _violation_and_consequences(result: ScenarioResult, root: Violation) -> list[str]:
    """A root violation located with its excerpt, then what follows from it, a line each."""
    lines = render_violation(result, root)
    follows = [v for v in result.violations if v.cause == (root.rule, root.event_index)]
    again = [v.event_index for v in follows if (v.rule, v.message) == (root.rule, root.message)]
    if again:
        lines.append(f"    the same again at event(s) {', '.join(map(str, again))}")
    for then in follows:
        if (then.rule, then.message) != (root.rule, root.message):
            lines.append(
                f"    which also breaks [{then.rule}] at event {then.event_index}: {then.message}"
            )
    return lines


#: diff lines shown under a failure; the rest are counted
MAX_DIFF_LINES = 40


def expected_diff(result: ScenarioResult) -> list[str]:
    """For a failed session or history scenario: what the reference consumer shows (its
    transcript, messages with their attached calls, and notifications; or the histories it
    stored and the transcripts it rebuilt from them) against what the adapter showed, as a
    unified diff; empty when they agree or either is missing."""
    if result.status != "fail" or result.scenario.layer == "driver":
        return []
    observed = _view_lines(result)
    reference = reference_result(result) if observed else None
    if reference is None:
        return []
    expected = _view_lines(reference)
    if not expected or expected == observed:
        return []
    diff = list(
        difflib.unified_diff(
            expected, observed, f"expected ({reference.adapter})", "observed", n=2, lineterm=""
        )
    )
    if len(diff) > MAX_DIFF_LINES:
        hidden = len(diff) - MAX_DIFF_LINES
        diff = [*diff[:MAX_DIFF_LINES], f"... and {hidden} more diff lines"]
    return diff


def _view_lines(result: ScenarioResult) -> list[str]:
    """What a consumer showed at the end, a line per message, attached call or notification."""
    lines: list[str] = []
    observation = result.observation
    if isinstance(observation, Observation):
        for session_id in sorted(observation.transcript.sessions):
            lines += _message_lines(
                session_id, observation.transcript.sessions[session_id].messages
            )
        for note in sorted(observation.notifications, key=lambda n: (n.session_id, n.tool_call_id)):
            lines.append(
                f"notification {note.session_id} {note.tool_call_id} ({note.tool_name}) {note.status}"
            )
    for session_id, stored in sorted((result.histories or {}).items()):
        lines.append(f"stored history of {session_id}:")
        for number, message in enumerate(stored.stored, 1):
            lines.append(f"  {number} {message.role}")
            lines.extend(f"    {_block(block)}" for block in message.blocks)
        if stored.rebuilt is not None:
            lines.append("rebuilt from it:")
            lines += _message_lines(session_id, stored.rebuilt)
    return lines


def _message_lines(session_id: str, messages: Sequence[Message]) -> list[str]:
    lines = []
    for i, message in enumerate(messages):
        name = message.message_id
        if name is None or name.startswith("resumed-"):
            name = f"#{i}"  # made up by the consumer: its position
        lines.append(f"{session_id}  {name} {message.role} {_short(message.text)}")
        for call in message.tool_calls:
            error = " (error)" if call.is_error else ""
            result = "no result" if call.result is None else _short(call.result)
            lines.append(f"{session_id}      call {call.id} ({call.name}) -> {result}{error}")
    return lines


def _block(block: Block) -> str:
    if isinstance(block, TextBlock | ThinkingBlock):
        kind = "text" if isinstance(block, TextBlock) else "thinking"
        return f"{kind} {_short(block.text)}"
    if isinstance(block, ToolUseBlock):
        return f"tool_use {block.id} ({block.name}) {_short(block.arguments)}"
    error = " (error)" if block.is_error else ""
    return f"tool_result {block.tool_use_id} {_short(block.content)}{error}"


def _short(text: str, width: int = 60) -> str:
    shown = repr(text)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def render_failure(result: ScenarioResult, reproduce: Sequence[str] | None = None) -> str:
    """One failed or errored result on its own, as the pytest plugin shows it: what went wrong,
    then the commands that reproduce it (by default ``harness run`` with the result's adapter
    name; see ``reproduce_commands``)."""
    scenario = result.scenario
    if result.status == "error":
        lines = [f"the adapter misbehaved: {result.error}"]
    else:
        lines = [
            f"{len(result.violations)} conformance violation(s) in {scenario.case_id} ({scenario.title})",
            *render_violations(result),
            *_diff_section(result),
        ]
    if reproduce is None:
        reproduce = reproduce_commands(result, result.adapter)
    lines += ["reproduce:", *(f"  {command}" for command in reproduce)]
    return "\n".join(lines)


def _diff_section(result: ScenarioResult) -> list[str]:
    diff = expected_diff(result)
    if not diff:
        return []
    return ["  what the reference shows (-) against what the adapter showed (+):"] + [
        f"    {line}" for line in diff
    ]


def render_table(
    results: Sequence[ScenarioResult],
    *,
    times: bool = False,
    every_case: bool = False,
    known: Collection[str] = (),
    causes: Sequence[Cause] | None = None,
) -> str:
    """A line per scenario that passed or was skipped, then each root cause of the failures
    once (``render_causes``), then the counts. ``every_case``: every failed case instead, its
    violations located under it. Scenarios of a layer the adapter does not implement are not
    listed: one line says how many were left out, and why. ``times``: each line also says the
    adapter's seconds and the harness's own (of all its cases, for a scenario whose passing
    cases share the line), and a last line the totals. ``known``: the causes a baseline
    accepts, marked as such. ``causes``: the results' root causes, if the caller has them."""
    lines: list[str] = []
    shown = [r for r in results if adapter_layers_if_left_out(r) is None]
    if causes is None:
        causes = group_causes(shown)
    for result in _one_line_per_passing_scenario(shown):
        if result.status in ("fail", "error") and not every_case:
            continue
        extra = ""
        if result.status == "fail":
            extra = f"  ({', '.join(result.rules_broken)})"
        if result.status == "pass":
            passed, cases = _cases_of(shown, result)
            if cases > 1:
                extra = (
                    f"  (all {cases} cases)"
                    if passed == cases
                    else f"  ({passed} of {cases} cases)"
                )
        if times:
            extra += "  " + _seconds(_cases(shown, result) if result.status == "pass" else [result])
        lines.append(f"{_MARK[result.status]} {result.scenario.case_id}  [{result.adapter}]{extra}")
        if result.status == "skip":
            lines.append(f"  skipped: {result.skip_reason}")
        if result.status == "error":
            lines.append(f"  {result.error}")
        if result.status in ("fail", "error"):
            lines.extend(render_violations(result))
            lines.extend(_diff_section(result))
            lines.append(f"  reproduce: {reproduce_command(result)}")
    if not every_case:
        lines.extend(render_causes(causes, known=known))
    left_out = left_out_line(results)
    if left_out is not None:
        lines.append(left_out)
    lines.append(summary_line(shown, causes))
    if times:
        lines.append(f"time: {_seconds(shown)}; only the adapter's counts against --timeout")
    return "\n".join(lines)


def render_causes(causes: Sequence[Cause], *, known: Collection[str] = ()) -> list[str]:
    """Each root cause once: where it is, how many cases show it and what brings it out, its
    violation in the smallest case (located, with what follows from it), and the command that
    replays that case. First-party causes first, then those only gateways' shapes bring out."""
    lines: list[str] = []
    for where in ("first-party", "gateway"):
        mine = [c for c in causes if c.origin == where]
        if not mine:
            continue
        heading = (
            "on shapes first-party servers send"
            if where == "first-party"
            else "only on shapes gateways and proxies send"
        )
        lines.append(f"{_count(len(mine), 'root cause')} {heading}:")
        for cause in mine:
            lines.extend(_cause_lines(cause, cause.key in known))
    return lines


def _cause_lines(cause: Cause, known: bool) -> list[str]:
    smallest = cause.smallest
    mark = "KNOWN" if known else _MARK[smallest.status]
    cases = _count(len(cause.cases), "case")
    what = "error" if cause.violation is None else cause.rule
    out = [
        f"{mark} {cause.scenario}  [{what}]  {cases}, {cause.trigger_text()}  [{smallest.adapter}]"
    ]
    if known:
        out.append(f"  known: {cause.key} is in the baseline")
    if cause.violation is None:
        out.append(f"  {smallest.error}")
    else:
        root = cause.violation  # in the smallest case's own events (a variation's reworked trace)
        out.extend(render_violations(smallest, cause=(root.rule, root.event_index)))
        out.extend(_diff_section(smallest))
    if len(cause.cases) > 1:
        out.append(f"  smallest case: {smallest.scenario.case_id}")
    out.append(f"  reproduce: {reproduce_command(smallest)}")
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _seconds(results: Sequence[ScenarioResult]) -> str:
    """The adapter's seconds and the harness's own work's, summed over ``results``."""
    adapter = sum(r.adapter_seconds for r in results)
    harness = sum(r.harness_seconds for r in results)
    return f"[adapter {adapter:.3f}s, harness {harness:.3f}s]"


def _one_line_per_passing_scenario(results: Sequence[ScenarioResult]) -> list[ScenarioResult]:
    """Every result but the passing quirk cases of a scenario after its first passing one: the
    table lists what went wrong case by case, and what passed once per scenario."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for result in results:
        key = (result.scenario.path, result.scenario.id, result.adapter)
        if result.status == "pass":
            if key in seen:
                continue
            seen.add(key)
        out.append(result)
    return out


def _cases_of(results: Sequence[ScenarioResult], one: ScenarioResult) -> tuple[int, int]:
    """How many of ``one``'s scenario's quirk cases passed, and how many there are."""
    mine = _cases(results, one)
    return sum(r.status == "pass" for r in mine), len(mine)


def _cases(results: Sequence[ScenarioResult], one: ScenarioResult) -> list[ScenarioResult]:
    """The results of ``one``'s scenario's quirk cases (``one`` among them)."""
    key = (one.scenario.path, one.scenario.id, one.adapter)
    return [r for r in results if (r.scenario.path, r.scenario.id, r.adapter) == key]


def adapter_layers_if_left_out(result: ScenarioResult) -> str | None:
    """The layers the adapter implements (as the replay names them, e.g. ``driver``), when the
    result is a skip because the scenario's layer is not one of them; otherwise None."""
    if result.adapter_layers is None:
        return None
    return ", ".join(result.adapter_layers) or "none"


def left_out_line(results: Sequence[ScenarioResult]) -> str | None:
    """E.g. ``62 scenarios of the session and history layers left out: the adapter implements
    driver``; None when every scenario is of a layer the adapter implements."""
    left_out = [
        (r, offered)
        for r in results
        if (offered := adapter_layers_if_left_out(r)) and not r.scenario.added  # as written
    ]
    if not left_out:
        return None
    offered = left_out[0][1]
    implements = "no layer" if offered == "none" else offered
    layers = [r.scenario.layer for r, _ in left_out]
    return left_out_sentence(layers, f"the adapter implements {implements}")


def left_out_sentence(layers: Sequence[str], why: str) -> str:
    """``N scenarios of the X and Y layers left out: WHY``, one layer named per scenario."""
    noun = "scenario" if len(layers) == 1 else "scenarios"
    return f"{len(layers)} {noun} of the {layers_named(layers)} left out: {why}"


def layers_named(layers: Iterable[str]) -> str:
    """E.g. ``session and history layers``, ``driver layer``, in the docs' order."""
    known = sorted(
        set(layers),
        key=lambda layer: _LAYER_ORDER.index(layer) if layer in _LAYER_ORDER else len(_LAYER_ORDER),
    )
    named = " and ".join([", ".join(known[:-1]), known[-1]] if len(known) > 1 else known)
    return f"{named} {'layers' if len(known) > 1 else 'layer'}"


def summary_line(results: Sequence[ScenarioResult], causes: Sequence[Cause] | None = None) -> str:
    """``161 cases of 12 scenarios: 150 passed, 9 failed (3 first-party, 6 gateway), 0 errors,
    2 skipped; 4 root causes (1 first-party, 3 gateway)``: the failures and their causes are
    counted apart by who sends the shapes they fail on, first-party first."""
    counts = {status: 0 for status in _MARK}
    for result in results:
        counts[result.status] += 1
    scenarios = len({(r.scenario.path, r.scenario.id) for r in results})
    counted = f"{len(results)} scenarios"
    if scenarios != len(results):  # quirk cases: say how many scenarios they came from
        counted = f"{len(results)} cases of {scenarios} scenarios"
    failed = f"{counts['fail']} failed"
    if counts["fail"]:
        failed += f" ({_by_origin([origin(r) for r in results if r.status == 'fail'])})"
    line = (
        f"{counted}: {counts['pass']} passed, {failed}, "
        f"{counts['error']} errors, {counts['skip']} skipped"
    )
    if causes is None:
        causes = group_causes(results)
    if causes:
        line += f"; {_count(len(causes), 'root cause')} ({_by_origin([c.origin for c in causes])})"
    return line


def _by_origin(origins: Sequence[str]) -> str:
    return f"{origins.count('first-party')} first-party, {origins.count('gateway')} gateway"
