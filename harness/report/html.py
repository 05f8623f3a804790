"""One self-contained HTML file for a run: a summary, then a swimlane picture of every failure.

    write_report("report.html", results, adapter="session-mutant-keyed-by-tool-id")

The file carries its styles and its small script inline and loads nothing, so it opens from
disk and works as a CI artifact. Everything a scenario or an adapter wrote is escaped.

- The summary: results per rule and per scenario (filterable), and the conformance matrix
  when several adapters ran.
- Per failing case, a timeline. Session and history scenarios: a lane per session, sub-sessions
  nested under their parent, the events in trace order. Driver scenarios: a lane for the reads
  of the wire (numbered as failure messages number chunks), one for text, one per tool call
  and one for the turn's end: where fragments arrived, where a call was complete, where the
  driver emitted it, where reading stopped. Each violation is marked at its event with its rule,
  message and reproduce command; long runs of uneventful events fold into a ``<details>``.
- Per failing case, what the consumer showed at the end next to what the reference consumer
  shows for the same scenario (the data of the syrupy snapshot), lines that differ marked.

The pytest plugin renders the pieces where the results are (an xdist worker) and assembles
them at the end: ``result_piece`` gives a result's piece, ``document_from_pieces`` the file.
"""

from __future__ import annotations

import difflib
import html
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from harness._files import write_output
from harness.library import command_line_path
from harness.model import driver as dv
from harness.model import session as ev
from harness.replay.result import ScenarioResult
from harness.report.text import (
    MAX_VIOLATIONS_SHOWN,
    adapter_layers_if_left_out,
    reproduce_commands,
    summary_line,
)
from harness.report.timeline import (
    Mark,
    ReadRow,
    SessionSwimlanes,
    Stop,
    driver_swimlanes,
    session_swimlanes,
)
from harness.results.causes import Cause, cause_records, group_causes, merged_records
from harness.results.compare import expected_data, observed_data
from harness.rules.registry import Violation
from harness.scenario import DriverScenario, SessionScenario

#: events either side of a violation that never fold
RADIUS = 3
#: a run of uneventful events this long or longer folds
FOLD_AT = 8
#: characters of an event's or a chunk's text shown in its cell
CELL_TEXT = 48

#: session events that always show: where sessions and turns begin and end
_LANDMARKS = frozenset(
    {"subsession_start", "subsession_end", "user_turn_start", "resume", "checkpoint"}
)


@dataclass(frozen=True)
class SummaryRow:
    """One result as the summary lists it (plain data: the plugin sends it between processes)."""

    case_id: str
    scenario_id: str
    layer: str
    adapter: str
    status: str
    #: rule id -> pass | fail | skip, for every rule checked
    rules: Mapping[str, str]
    #: the anchor of its failure section, or ""
    anchor: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SummaryRow:
        return cls(**data)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _short(text: str, limit: int = CELL_TEXT) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scenario_key(result: ScenarioResult) -> tuple[str, str, str]:
    """The scenario a case belongs to, with the adapter: one timeline is drawn per key."""
    return (result.scenario.path, result.scenario.id, result.adapter)


def anchor_of(result: ScenarioResult) -> str:
    """A stable id for the result's section."""
    raw = f"{result.adapter}-{result.scenario.case_id}"
    return "r-" + "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in raw)


def summary_row(result: ScenarioResult, *, anchored: bool = True) -> SummaryRow:
    """``anchored``: the result has a section of its own (a case standing for a root cause
    has; the other cases of that cause link to it through their scenario's row)."""
    return SummaryRow(
        result.scenario.case_id,
        result.scenario.id,
        result.scenario.layer,
        result.adapter,
        result.status,
        result.rule_statuses,
        anchor_of(result) if anchored and result.status in ("fail", "error") else "",
    )


# -- pieces made where the results are (an xdist worker), assembled at the end -----------------


def result_piece(
    result: ScenarioResult, reproduce: Sequence[str], drawn: set[tuple[str, str, str]]
) -> str | None:
    """One result as JSON text for ``document_from_pieces``: its summary row and, for a
    failure, its section undrawn, and drawn too for the first failing case of its scenario
    among those pieced in this process (``drawn``, updated: the report draws the first case of
    a scenario, and a process sends its pieces in order); None for a result of a layer the
    adapter does not implement."""
    if adapter_layers_if_left_out(result) is not None:
        return None
    piece: dict[str, Any] = {"row": summary_row(result).to_json()}
    if result.status in ("fail", "error"):
        key = scenario_key(result)
        piece["key"] = list(key)
        piece["causes"] = cause_records(result, anchor=anchor_of(result))
        if key not in drawn:
            drawn.add(key)
            piece["drawn"] = failure_section(result, reproduce)
        piece["listed"] = failure_section(result, reproduce, timeline=False)
    return json.dumps(piece)


def document_from_pieces(pieces: Iterable[str], *, title: str = "Conformance report") -> str:
    """The report from the pieces of every result: each root cause listed once, and the case
    standing for it (the smallest) given a section, drawn where its process drew it."""
    loaded = [json.loads(text) for text in pieces]
    causes = merged_records(record for piece in loaded for record in piece.get("causes", ()))
    standing = {c["anchor"] for c in causes}
    rows, sections = [], [_causes_section(causes)] if causes else []
    for piece in loaded:
        row = SummaryRow.from_json(piece["row"])
        if row.anchor and row.anchor not in standing:
            row = replace(row, anchor="")  # its cause's case has the section
        rows.append(row)
        if row.anchor:
            sections.append(piece.get("drawn", piece["listed"]))
    return render_document(rows, sections, title=title)


def _causes_section(causes: Sequence[Mapping[str, Any]]) -> str:
    """Each root cause on one line (a record as ``results.causes.merged_records`` gives it, with
    the ``anchor`` of the case standing for it), linked to that case's section."""
    items = []
    for cause in causes:
        noun = "case" if cause["cases"] == 1 else "cases"
        items.append(
            f'<li class="{_e(cause["origin"])}"><a href="#{_e(cause["anchor"])}">'
            f"{_e(cause['scenario'])} [{_e(cause['rule'])}]</a> {cause['cases']} {noun}, "
            f"{_e(cause['origin'])}, {_e(cause['trigger'])}: {_e(_short(cause['message'], 160))}"
        )
    count = f"{len(causes)} root cause{'' if len(causes) == 1 else 's'}"
    return f"<section class=causes><h3>{count}</h3><ol>{''.join(items)}</ol></section>"


# -- the document -------------------------------------------------------------------------------


def render_report(
    results: Sequence[ScenarioResult],
    *,
    adapter: str | None = None,
    expectations: bool = True,
    title: str = "Conformance report",
    per_adapter: tuple[int, int] | None = None,
) -> str:
    """The whole file for ``results``. ``adapter``: the reference the user gave, for the
    reproduce commands (None: each result's adapter name); ``expectations``: replay each failing case against its layer's reference consumer, to show
    what a correct consumer shows next to what this one showed.

    Each root cause of the failures is listed once, and drawn once: its smallest case, with a
    timeline (the other cases of the cause link to it). ``per_adapter=(drawn, listed)`` keeps a
    run of many adapters (the demo) small: per adapter, only the ``drawn`` shortest failing
    cases are drawn and ``listed`` failures listed in all."""
    shown = [r for r in results if adapter_layers_if_left_out(r) is None]
    sections = []
    by_adapter: dict[str, list[ScenarioResult]] = {}
    for result in shown:
        if result.status in ("fail", "error"):
            by_adapter.setdefault(result.adapter, []).append(result)
    standing: set[int] | None = None  # one adapter's run: the cases standing for the causes
    for name, failures in by_adapter.items():
        if per_adapter is None:  # each root cause once: its smallest case, drawn
            causes = group_causes(failures)
            of_case: dict[int, list[Cause]] = {}
            for cause in causes:
                of_case.setdefault(id(cause.smallest), []).append(cause)
            standing = (standing or set()) | set(of_case)
            sections.append(
                _causes_section(
                    [
                        {
                            **c.to_json(),
                            "trigger": c.trigger_text(),
                            "anchor": anchor_of(c.smallest),
                        }
                        for c in causes
                    ]
                )
            )
            for result in {id(c.smallest): c.smallest for c in causes}.values():
                reference = result.adapter if adapter is None else adapter
                sections.append(
                    failure_section(
                        result,
                        reproduce_commands(result, reference),
                        expectations=expectations,
                        causes=of_case[id(result)],
                    )
                )
            continue
        shortest = sorted(failures, key=lambda r: len(r.scenario.events))[: per_adapter[0]]
        draw = {id(r) for r in shortest}
        listed = shortest + [r for r in failures if id(r) not in draw]
        listed = listed[: max(per_adapter[1], len(shortest))]
        for result in listed:
            reference = result.adapter if adapter is None else adapter
            commands = reproduce_commands(result, reference)
            sections.append(
                failure_section(
                    result, commands, expectations=expectations, timeline=id(result) in draw
                )
            )
        if len(listed) < len(failures):
            sections.append(
                f"<p class=note>… and {len(failures) - len(listed)} more failing cases of "
                f"{_e(name)}: <code>harness run PATH --adapter {_e(name)} --html FILE</code> "
                "reports them all.</p>"
            )
    left_out = len(results) - len(shown)
    return render_document(
        [summary_row(r, anchored=standing is None or id(r) in standing) for r in shown],
        sections,
        title=title,
        counts=summary_line(shown),
        note=f"{left_out} results of layers the adapter does not implement left out"
        if left_out
        else "",
    )


def write_report(path: str | Path, results: Sequence[ScenarioResult], **options: Any) -> Path:
    """``render_report`` written to ``path`` (UTF-8); the path written."""
    out = Path(path)
    write_output(out, render_report(results, **options), what="the HTML report")
    return out


def written(path: Path) -> str:
    """``HTML report written to PATH (503 kB)``: where, and how large."""
    size = path.stat().st_size
    shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} kB"
    return f"HTML report written to {path} ({shown})"


def render_document(
    rows: Sequence[SummaryRow],
    sections: Sequence[str],
    *,
    title: str = "Conformance report",
    counts: str = "",
    note: str = "",
) -> str:
    """The file from its pieces: the summary rows of every result, the failures' sections."""
    if not counts:
        tally = Counter(r.status for r in rows)
        counts = (
            f"{len(rows)} results: {tally['pass']} passed, {tally['fail']} failed, "
            f"{tally['error']} errors, {tally['skip']} skipped"
        )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style></head>",
        '<body data-ready="no">',
        f"<header><h1>{_e(title)}</h1><p class=counts>{_e(counts)}</p>",
        f"<p class=note>{_e(note)}</p>" if note else "",
        "</header>",
        _summary(rows),
        '<section id="failures"><h2>Failures</h2>',
        *(sections or ["<p>No failures.</p>"]),
        "</section>",
        f"<script>{_JS}</script>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _summary(rows: Sequence[SummaryRow]) -> str:
    out = [
        '<section id="summary"><h2>Summary</h2>',
        '<div class=controls><input id=filter type=search placeholder="filter: rule, scenario, '
        'adapter, status" aria-label="filter"> <label><input id=failing type=checkbox> failures '
        "only</label> <button type=button id=expand>expand all</button> "
        "<button type=button id=collapse>fold all</button></div>",
    ]
    per_rule: dict[str, Counter[str]] = {}
    for row in rows:
        for rule, status in row.rules.items():
            per_rule.setdefault(rule, Counter())[status] += 1
    out.append('<h3>By rule</h3><table class="filterable" id="by-rule"><thead><tr><th>rule')
    out.append("<th>passed<th>failed<th>skipped</thead><tbody>")
    for rule in sorted(per_rule):
        c = per_rule[rule]
        status = "fail" if c["fail"] else "pass" if c["pass"] else "skip"
        out.append(
            f'<tr class="{status}" data-status="{status}"><td>{_e(rule)}<td>{c["pass"]}'
            f"<td>{c['fail']}<td>{c['skip']}"
        )
    out.append("</tbody></table>")
    several = len({r.adapter for r in rows}) > 1
    out.append('<h3>By scenario</h3><table class="filterable" id="by-scenario"><thead><tr>')
    out.append("<th>status<th>scenario<th>cases<th>layer<th>adapter<th>rules broken</thead>")
    out.append("<tbody>")
    groups: dict[tuple[str, str], list[SummaryRow]] = {}
    for row in rows:
        groups.setdefault((row.scenario_id, row.adapter), []).append(row)
    left_out = 0
    for (scenario, name), cases in groups.items():
        status = min((r.status for r in cases), key=_WORST.__getitem__)
        if several and status in ("pass", "skip"):
            left_out += 1  # the matrix shows them
            continue
        broken = sorted({rule for r in cases for rule, s in r.rules.items() if s == "fail"})
        anchor = next((r.anchor for r in cases if r.anchor), "")
        label = _e(scenario)
        if anchor:
            label = f'<a href="#{_e(anchor)}">{label}</a>'
        failed = sum(r.status in ("fail", "error") for r in cases)
        count = f"{failed} of {len(cases)} failed" if failed else str(len(cases))
        out.append(
            f'<tr class="{status}" data-status="{status}"><td>{status.upper()}'
            f"<td>{label}<td>{count}<td>{_e(cases[0].layer)}<td>{_e(name)}"
            f"<td>{_e(', '.join(broken))}"
        )
    out.append("</tbody></table>")
    if left_out:
        out.append(f"<p class=note>{left_out} passing or skipped scenarios: see the matrix.</p>")
    if several:
        out.append(_matrix(rows))
    out.append("</section>")
    return "".join(out)


def _matrix(rows: Sequence[SummaryRow]) -> str:
    """Per layer: a line per scenario, a column per adapter, each cell its cases' verdict."""
    order = _WORST
    out = ["<h3>Conformance matrix</h3><p class=note>A cell is the worst of the scenario's cases."]
    for layer in dict.fromkeys(r.layer for r in rows):
        mine = [r for r in rows if r.layer == layer]
        adapters = list(dict.fromkeys(r.adapter for r in mine))
        if len(adapters) < 2:
            continue
        cells: dict[tuple[str, str], str] = {}
        for r in mine:
            key = (r.scenario_id, r.adapter)
            if key not in cells or order[r.status] < order[cells[key]]:
                cells[key] = r.status
        out.append(f'<h4>{_e(layer)} layer</h4><div class=scroll><table class="matrix filterable">')
        out.append("<thead><tr><th>scenario")
        out.extend(f"<th class=vert><span>{_e(a)}</span>" for a in adapters)
        out.append("</thead><tbody>")
        for scenario in dict.fromkeys(r.scenario_id for r in mine):
            statuses = [cells.get((scenario, a), "") for a in adapters]
            worst = "fail" if "fail" in statuses or "error" in statuses else "pass"
            out.append(f'<tr data-status="{worst}"><td>{_e(scenario)}')
            out.extend(
                f'<td class="cell {s}" title="{_e(a)}: {s}">{_MATRIX_MARK.get(s, "")}'
                for a, s in zip(adapters, statuses, strict=True)
            )
        out.append("</tbody></table></div>")
    return "".join(out)


#: statuses from the worst
_WORST = {"fail": 0, "error": 1, "pass": 2, "skip": 3}

_MATRIX_MARK = {"pass": "·", "fail": "✗", "error": "!", "skip": "&ndash;"}


# -- one failure ----------------------------------------------------------------------------------


def failure_section(
    result: ScenarioResult,
    reproduce: Sequence[str],
    *,
    expectations: bool = True,
    timeline: bool = True,
    causes: Sequence[Cause] = (),
) -> str:
    """The section of one failed or errored result: what broke, the timeline, and the final
    observation next to the reference consumer's. ``timeline=False``: what broke only (a
    further case of a scenario whose first failing case is drawn). ``causes``: the root causes
    the case stands for (the smallest case of each), said under its heading."""
    scenario = result.scenario
    head = (
        f'<article class="failure" id="{_e(anchor_of(result))}" data-layer="{_e(scenario.layer)}">'
        f"<h3><span class=badge>{result.status.upper()}</span> {_e(scenario.case_id)} "
        f"<small>[{_e(result.adapter)}] {_e(scenario.layer)} layer</small></h3>"
        f"<p class=title>{_e(scenario.title)} <code>{_e(command_line_path(scenario.path))}</code></p>"
    )
    commands = "".join(f"<code class=reproduce>{_e(c)}</code>" for c in reproduce)
    repro = f"<div class=repro><b>reproduce</b>{commands}</div>" if commands else ""
    parts = [head]
    for cause in causes:
        others = len(cause.cases) - 1
        shown_for = f"; it stands for {others} more" if others else ""
        parts.append(
            f"<p class=cause>root cause <code>{_e(cause.key)}</code>: {len(cause.cases)} "
            f"case{'' if len(cause.cases) == 1 else 's'}, {_e(cause.origin)}, "
            f"{_e(cause.trigger_text())}{shown_for}</p>"
        )
    parts.append(repro)
    if result.status == "error":
        parts.append(f"<p class=error>the adapter misbehaved: {_e(result.error)}</p>")
    roots = result.root_causes
    if roots:
        parts.append("<ol class=violations>")
        for v in roots[:MAX_VIOLATIONS_SHOWN]:
            parts.append(
                f'<li><a href="#{_e(anchor_of(result))}-v{v.event_index}">[{_e(v.rule)}]</a> '
                f"event {v.event_index}, {_e(command_line_path(result.file_of(v)))}:{result.line_of(v)}: "
                f"{_e(v.message)}"
            )
        if len(roots) > MAX_VIOLATIONS_SHOWN:
            hidden = len(roots) - MAX_VIOLATIONS_SHOWN
            parts.append(f"<li class=more>… and {hidden} more, each marked on the timeline")
        parts.append("</ol>")
    if not timeline:
        parts.append(
            "<p class=note>Another case of a scenario drawn above; a report of this case alone "
            "(the reproduce command with <code>--html FILE</code>) draws its timeline.</p>"
        )
    elif isinstance(scenario, DriverScenario):
        parts.append(_driver_timeline(result, reproduce))
    else:
        parts.append(_session_timeline(result, reproduce))
    if expectations and timeline:
        parts.append(_comparison(result))
    parts.append("</article>")
    return "".join(parts)


def _callouts(result: ScenarioResult, violations: Iterable[Violation], reproduce: str) -> str:
    out = []
    seen: set[int] = set()
    for v in violations:
        anchor = (
            f' id="{_e(anchor_of(result))}-v{v.event_index}"' if v.event_index not in seen else ""
        )
        seen.add(v.event_index)
        cause = f" (follows from [{_e(v.cause[0])}] at event {v.cause[1]})" if v.cause else ""
        out.append(
            f"<div class=callout{anchor} "
            f'data-rule="{_e(v.rule)}"><b class=rule>[{_e(v.rule)}]</b> event {v.event_index}'
            f"{cause}, {_e(command_line_path(result.file_of(v)))}:{result.line_of(v)}"
            f"<div class=message>{_e(v.message)}</div>{reproduce}</div>"
        )
    return "".join(out)


def _violations_at(result: ScenarioResult) -> dict[int, list[Violation]]:
    at: dict[int, list[Violation]] = {}
    for v in result.violations:
        at.setdefault(v.event_index, []).append(v)
    return at


def _fold(rows: Sequence[tuple[bool, str, str]]) -> list[str]:
    """Rows (eventful, html, what it is); runs of ``FOLD_AT`` or more uneventful rows go into a
    ``<details>`` whose summary says how many and of what."""
    out: list[str] = []
    run: list[tuple[bool, str, str]] = []

    def flush() -> None:
        if len(run) >= FOLD_AT:
            kinds = Counter(what for _, _, what in run)
            said = ", ".join(f"{_e(k)} &times;{n}" for k, n in kinds.most_common(4))
            out.append(
                f"<details class=fold><summary>{len(run)} uneventful rows folded ({said})"
                f"</summary>{''.join(h for _, h, _ in run)}</details>"
            )
        else:
            out.extend(h for _, h, _ in run)
        run.clear()

    for row in rows:
        if row[0]:
            flush()
            out.append(row[1])
        else:
            run.append(row)
    flush()
    return out


def _near(indices: Iterable[int], count: int) -> set[int]:
    near: set[int] = set()
    for i in indices:
        near.update(range(max(0, i - RADIUS), min(count, i + RADIUS + 1)))
    return near


def _lanes_grid(count: int, width: int = 230) -> str:
    """The inline style that gives the rows their columns: the index, then ``count`` lanes."""
    return f"--cols: 4.5em repeat({count}, {width}px); --lanes-w: {count * width}px"


#: the lane columns the stylesheet names (``c2`` is the first lane); later ones are styled inline
_NAMED_COLUMNS = 40


def _cell(column: int, classes: str = "") -> str:
    """The opening tag of a cell in grid column ``column``."""
    if column <= _NAMED_COLUMNS:
        return f"<span class='c{column}{classes}'>"
    return f"<span class='{classes.strip()}' style='grid-column:{column}'>"


# -- session and history ------------------------------------------------------------------------


def _nesting_header(lanes: SessionSwimlanes) -> str:
    """A header row per depth: each session spans the lanes of its own sub-sessions, so a
    delegation is drawn inside the session that made it."""
    rows = []
    for depth in range(max((lane.depth for lane in lanes.lanes), default=0) + 1):
        cells = []
        for lane in lanes.lanes:
            if lane.depth != depth:
                continue
            up = lane.parent
            via = f"<span class=via>in {_e(up)}</span>" if up else ""
            cells.append(
                f'<div class="lane-head d{min(depth, 4)}" data-session="{_e(lane.session)}" '
                f'style="grid-column: {lane.start + 2} / {lane.end + 2}">{_e(lane.session)} {via}</div>'
            )
        rows.append(f'<div class="row head">{"".join(cells)}</div>')
    return "".join(rows)


def _event_text(event: ev.SessionEvent) -> str:
    if isinstance(event, ev.MessageDelta | ev.UserMessage):
        return f"{event.message_id} {_short(repr(event.text), 30)}"
    if isinstance(event, ev.MessageStart):
        return f"{event.message_id} ({event.role})"
    if isinstance(event, ev.MessageEnd):
        return event.message_id
    if isinstance(event, ev.ToolSelect | ev.ToolExecuting | ev.ToolCompleted):
        return " ".join(f"{c.name} {c.id}" for c in event.calls)
    if isinstance(event, ev.ToolStreamPart):
        return f"{event.event_type} {event.tool_name} {event.call_id}"
    if isinstance(event, ev.Checkpoint):
        return event.name
    if isinstance(event, ev.Resume):
        return f"{len(event.history)} stored messages"
    if isinstance(event, ev.SystemMessage):
        return _short(event.text, 30)
    return ""


def _event_ids(event: ev.SessionEvent) -> set[str]:
    ids = {c.id for c in getattr(event, "calls", ())}
    call_id = getattr(event, "call_id", None)
    if call_id:
        ids.add(call_id)
    return ids


def _session_timeline(result: ScenarioResult, reproduce: Sequence[str]) -> str:
    scenario = result.scenario
    assert isinstance(scenario, SessionScenario)
    trace = scenario.events
    lanes = session_swimlanes(trace)
    at = _violations_at(result)
    subjects = {s for v in result.violations for s in v.subject.split()}
    keep = _near((i for i in at if i >= 0), len(trace))
    repro = _repro_line(reproduce)
    rows: list[tuple[bool, str, str]] = []
    for i, event in enumerate(trace):
        marked = i in at
        eventful = (
            i in keep
            or event.kind in _LANDMARKS
            or bool(subjects & _event_ids(event))
            or i in (0, len(trace) - 1)
        )
        column = lanes.lane_of(event.session_id) + 2
        classes = f"row k-{event.kind}" + (" marked" if marked else "")
        row = (
            f'<div class="{classes}"><i>{i}</i>{_cell(column)}<b>{event.kind}</b> '
            f"{_e(_event_text(event))}</span></div>"
        )
        if marked:
            row += _callouts(result, at[i], repro)
        rows.append((eventful, row, event.kind))
    whole = _callouts(result, at.get(-1, ()), repro)
    count = len(lanes.lanes)
    return (
        f'<div class="timeline session" style="{_lanes_grid(count)}" data-lanes="{count}">'
        f"{whole}{_nesting_header(lanes)}{''.join(_fold(rows))}</div>"
    )


def _repro_line(reproduce: Sequence[str]) -> str:
    if not reproduce:
        return ""
    return f"<div class=repro-line>reproduce: <code>{_e(reproduce[0])}</code></div>"


# -- driver -------------------------------------------------------------------------------------


def _driver_timeline(result: ScenarioResult, reproduce: Sequence[str]) -> str:
    lanes = driver_swimlanes(result)
    if lanes is None:
        return "<p class=note>The driver was not run far enough to draw its reads.</p>"
    stop, cancel, count = lanes.stop, lanes.cancel, len(lanes.reads)
    notes = {
        cell: [_mark_note(mark, lanes.final_stop) for mark in marks]
        for cell, marks in lanes.cells().items()
    }
    at: dict[int, list[Violation]] = {}
    for read, v in lanes.violations:
        at.setdefault(read, []).append(v)
    keep = _near((r - 1 for r in at if r > 0), count)
    repro = _repro_line(reproduce)
    rows: list[tuple[bool, str, str]] = []
    for line in lanes.reads:
        n, chunk = line.number, line.chunk
        kind = _chunk_kind(line)
        whole = _e(_short(_chunk_text(chunk, None), 2000))
        cells = [
            f"<span class='c2 wire' title=\"{whole}\"><b>{_e(kind)}</b> "
            f"{_e(_chunk_text(chunk))}</span>"
        ]
        notable = False
        for lane_no in range(1, len(lanes.lanes)):
            noted = notes.get((n, lane_no))
            if not noted:
                continue
            notable = notable or any(note.startswith("<") or "stop" in note for note in noted)
            cells.append(
                f"{_cell(lane_no + 2, _note_classes(noted))}"
                f"{'<br>'.join(_note(note) for note in noted)}</span>"
            )
        classes = "row" + (" marked" if n in at else "") + (" unread" if n > stop.after else "")
        row = f'<div class="{classes}"><i>{n}</i>{"".join(cells)}</div>'
        if n in at:
            row += _callouts(result, at[n], repro)
        if n == stop.after:
            row += _stop_line(stop)
        if cancel is not None and n == cancel.after:
            row += (
                f"<div class='line cancel'>the read after chunk {n} is cancelled"
                f"{' (the driver asked for it)' if cancel.ended_the_driver else ''}</div>"
            )
        eventful = notable or n - 1 in keep or n in (1, count, stop.after)
        rows.append((eventful, row, kind or "framing"))
    head = "".join(
        f'<div class="lane-head d{0 if i == 0 else 1}" style="grid-column:{i + 2}">'
        f"{_e(lane.name)}</div>"
        for i, lane in enumerate(lanes.lanes)
    )
    before = ""
    if stop.after == 0:
        before = _stop_line(stop)
    whole = _callouts(result, at.get(-1, ()), repro)
    width = len(lanes.lanes)
    return (
        f'<div class="timeline driver" style="{_lanes_grid(width)}" data-lanes="{width}">'
        f"<p class=note>{_e(lanes.dialect)}, {count} reads, emits calls {_e(lanes.contract)}</p>"
        f'{whole}<div class="row head">{head}</div>{before}{"".join(_fold(rows))}</div>'
    )


def _mark_note(mark: Mark, final_stop: int) -> str:
    """A mark as its cell says it; ``<word>`` first for what the driver did (and where a call
    was complete or due), which ``_note`` draws as a highlighted word."""
    kind, output = mark.kind, mark.output
    if kind == "arrives":
        return f"arrives {_short(repr(mark.text), 28)}"
    if kind == "stop_reason":
        return f"stop_reason {mark.text}"
    if kind == "message_stop":
        return "message_stop" + (" (ends the turn)" if mark.event == final_stop else "")
    if kind == "starts":
        return "starts"
    if kind == "fragment":
        return f"fragment {_short(repr(mark.text), 24)}"
    if kind in ("complete", "due"):
        return f"<{kind}>"
    if kind == "raised":
        return f"<raised> {_short(mark.text, 40)}"
    # emitted or refused: the output says what
    if isinstance(output, dv.TextOut):
        return f"<emitted> {_short(repr(output.text), 28)}"
    if isinstance(output, dv.ToolCallOut):
        valid = "valid" if output.valid else "invalid"
        return f"<emitted> {valid} {_short(output.arguments, 24)}"
    if isinstance(output, dv.TurnEnd):
        return f"<emitted> turn_end {output.stop_reason}"
    if isinstance(output, dv.ErrorReport):
        return f"<emitted> error {_short(output.message, 40)}"
    assert isinstance(output, dv.Refusal), mark
    return f"<refused> {_short(output.reason, 40)}"


def _stop_line(stop: Stop) -> str:
    more = ", then asked for more" if stop.asked_for_more else ""
    return (
        f"<div class='line stop'>reading stopped after chunk {stop.after} of {stop.of}{more}"
        f"{'; the stream was closed' if stop.closed else ''}</div>"
    )


def _note(note: str) -> str:
    if note.startswith("<"):
        word, _, rest = note[1:].partition(">")
        return f"<b class=n-{word}>{word}</b>{_e(rest)}"
    return _e(note)


def _note_classes(notes: Sequence[str]) -> str:
    words = {note[1:].partition(">")[0] for note in notes if note.startswith("<")}
    return "".join(f" has-{w}" for w in sorted(words))


def _chunk_kind(read: ReadRow) -> str:
    """What a read tells of the turn for the first time (a ping or a keep-alive: nothing)."""
    kinds = " ".join(read.kinds)
    if isinstance(read.chunk, dv.ByteRead):
        return f"{len(read.chunk.data)} bytes {kinds}".rstrip()
    return kinds


def _chunk_text(chunk: dv.Read, limit: int | None = CELL_TEXT) -> str:
    data = chunk.data
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text.strip() if limit is None else _short(text.strip(), limit)


# -- the final observation next to the reference consumer's --------------------------------------


def _dump(data: Any) -> list[str]:
    if data is None:
        return ["(nothing observed)"]
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return text.splitlines()


def _comparison(result: ScenarioResult) -> str:
    observed = _dump(observed_data(result))
    expected = expected_data(result)
    if expected is None:
        body = _column("observed", observed, set())
        return f"<div class=compare><h4>Final observation</h4><div class=cols>{body}</div></div>"
    name, data = expected
    wanted = _dump(data)
    matcher = difflib.SequenceMatcher(a=wanted, b=observed, autojunk=False)
    only_wanted: set[int] = set()
    only_seen: set[int] = set()
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag != "equal":
            only_wanted.update(range(a0, a1))
            only_seen.update(range(b0, b1))
    return (
        "<div class=compare><h4>Final observation</h4><div class=cols>"
        f"{_column(f'expected (what {name} shows)', wanted, only_wanted)}"
        f"{_column(f'observed ({result.adapter})', observed, only_seen)}"
        "</div></div>"
    )


def _column(title: str, lines: Sequence[str], differ: set[int]) -> str:
    body = "\n".join(
        f'<span class="{"diff" if i in differ else "same"}">{_e(line)}</span>'
        for i, line in enumerate(lines)
    )
    return f"<div class=col><h5>{_e(title)}</h5><pre>{body}</pre></div>"


def _asset(name: str) -> str:
    """A file of ``assets/`` as the document carries it inline, after a line break."""
    return "\n" + (files("harness.report") / "assets" / name).read_bytes().decode("utf-8")


#: the styles: the stylesheet, then a rule for each lane column ``_cell`` names by its class
_CSS = _asset("report.css") + "".join(
    f".c{n}{{grid-column:{n}}}" for n in range(2, _NAMED_COLUMNS + 1)
)
#: the script: the summary's filter, folding all or none, opening the fold a link points into
_JS = _asset("report.js")
