"""The HTML report: the document's structure, escaping and folding, the shells that write it,
and the reports opened in a real browser (headless Chromium)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import struct
import subprocess
import zlib
from functools import cache
from pathlib import Path

import pytest

import harness.report
from harness.adapters.registry import resolve_adapter
from harness.cli import main
from harness.html_report import FOLD_AT, render_report, write_report
from harness.library import command_line_path, library_path
from harness.model import session as ev
from harness.model.trace import Trace
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.replay.result import ScenarioResult
from harness.rules.registry import Violation
from harness.scenario import discover, load_scenario
from tests.scenarios_for_tests import LIBRARY, as_session

SESSION = ("session-mutant-keyed-by-tool-id", "session/same-id-parent-and-subsession.yaml")
HISTORY = ("history-mutant-subagent-into-parent", "history/delegation-labelled-burst-3000.yaml")
DRIVER = ("driver-mutant-anthropic-batches-calls", "driver/parallel-calls.yaml")


@cache
def _results(adapter: str, path: str) -> tuple[ScenarioResult, ...]:
    info = resolve_adapter(adapter)
    cases = cases_for([load_scenario(LIBRARY / path)], info, "none", variations="none")
    return tuple(replay(case, info) for case in cases)


@cache
def _report(adapter: str, path: str) -> str:
    return render_report(_results(adapter, path), adapter=adapter)


def _outside_folds(document: str) -> str:
    return re.sub(r"<details class=fold>.*?</details>", "", document, flags=re.S)


def test_a_session_failure_has_a_lane_per_session_the_sub_session_nested():
    document = _report(*SESSION)
    result = _results(*SESSION)[0]
    assert result.status == "fail"
    assert 'data-session="main"' in document
    # the sub-session's lane sits under its parent, in a header row of its own
    assert re.search(
        r'data-session="proofreader"[^>]*>proofreader <span class=via>in main', document
    )
    assert document.index('data-session="main"') < document.index('data-session="proofreader"')


def test_the_violation_is_marked_at_its_event_with_rule_message_and_reproduce_command():
    document = _report(*SESSION)
    result = _results(*SESSION)[0]
    first = result.root_causes[0]
    marked = re.search(rf'<div class="row k-\w+ marked"><i>{first.event_index}</i>', document)
    assert marked is not None
    callout = document[marked.end() :].split("</div></div>", 1)[0]
    assert f"[{first.rule}]" in callout
    path = command_line_path(library_path() / SESSION[1])  # as from this folder
    command = f"python -m harness run {path} --adapter {SESSION[0]}"
    assert command in document
    assert "harness run" in callout


def test_the_final_observation_is_shown_next_to_the_reference_consumers():
    document = _report(*SESSION)
    assert "expected (what session-reference shows)" in document
    assert f"observed ({SESSION[0]})" in document
    assert '<span class="diff">' not in document  # its notifications were wrong mid-run only
    wrong_at_the_end = (
        "session-mutant-attach-at-next-message",
        "session/backward-attachment-basic.yaml",
    )
    assert _results(*wrong_at_the_end)[0].status == "fail"
    document = _report(*wrong_at_the_end)
    assert '<span class="diff">' in document  # the lines that differ are marked


def test_a_long_trace_folds_its_uneventful_runs_and_keeps_the_violations_out_of_the_folds():
    results = _results(*HISTORY)
    assert results[0].status == "fail" and len(results[0].scenario.events) > 3000
    document = _report(*HISTORY)
    folds = re.findall(r"<details class=fold><summary>(\d+) uneventful rows", document)
    assert folds and all(int(n) >= FOLD_AT for n in folds)
    assert sum(map(int, folds)) > 1000
    # every event is still there, to unfold; the marked ones outside any fold
    assert document.count('<div class="row k-') == len(results[0].scenario.events)
    outside = _outside_folds(document)
    for v in results[0].violations:
        assert f'marked"><i>{v.event_index}</i>' in outside


def test_a_driver_failure_has_lanes_for_the_wire_text_each_call_and_the_turn_end():
    document = _report(*DRIVER)
    result = _results(*DRIVER)[0]
    assert result.status == "fail" and result.driver_run is not None
    for lane in ("wire", "text", "call write_file call_1", "call write_file call_2", "turn end"):
        assert f">{lane}</div>" in document
    assert "fragment" in document and "<b class=n-complete>complete</b>" in document
    assert "<b class=n-emitted>emitted</b>" in document
    assert f"reading stopped after chunk {result.driver_run.reads} of" in document
    # chunks numbered from 1, as failure messages number them
    assert "<i>1</i>" in document and "<i>0</i>" not in document


def test_everything_from_scenarios_and_adapters_is_escaped():
    result = _results(*SESSION)[0]
    scenario = as_session(result.scenario)
    evil = "<script>alert(1)</script>"
    trace = Trace(
        dataclasses.replace(e, text=f"</span>{evil}") if isinstance(e, ev.MessageDelta) else e
        for e in scenario.trace
    )
    forged = dataclasses.replace(
        result,
        scenario=dataclasses.replace(scenario, title=evil, trace=trace),
        adapter=f'"><img src=x onerror=alert(2)>{evil}',
        violations=(Violation(f"rule{evil}", 3, f"expected {evil}", subject=evil),),
    )
    document = render_report([forged], adapter=evil)
    assert evil not in document
    assert "<img" not in document
    assert document.count("<script>") == 1  # the report's own
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in document


def test_the_document_is_self_contained():
    document = _report(*DRIVER)
    assert "<style>" in document and "<script>" in document
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", document)
    assert "http://" not in document and "https://" not in document


def test_the_styles_and_the_script_are_the_asset_files_inline():
    assets = Path(harness.report.__file__).parent / "assets"
    css = (assets / "report.css").read_text(encoding="utf-8")
    js = (assets / "report.js").read_text(encoding="utf-8")
    document = _report(*DRIVER)
    assert f"<style>\n{css}.c2{{grid-column:2}}" in document
    assert f"<script>\n{js}</script>" in document


def test_the_summary_lists_rules_and_scenarios_and_a_matrix_when_several_adapters_ran():
    scenario = load_scenario(LIBRARY / SESSION[1])
    results = [replay(scenario, "session-reference"), replay(scenario, SESSION[0])]
    document = render_report(results, expectations=False)
    assert 'id="by-rule"' in document and 'id="by-scenario"' in document
    assert "Conformance matrix" in document
    assert '<td class="cell fail" title="session-mutant-keyed-by-tool-id: fail">' in document
    alone = render_report(results[1:], expectations=False)
    assert "Conformance matrix" not in alone


def test_a_report_of_the_whole_library_against_a_session_mutant_stays_small(tmp_path):
    info = resolve_adapter(SESSION[0])
    scenarios = [load_scenario(p) for p in discover([LIBRARY / "session"])]
    results = [replay(s, info) for s in scenarios]
    assert any(r.status == "fail" for r in results)
    path = write_report(tmp_path / "report.html", results, adapter=SESSION[0])
    assert path.stat().st_size < 2_000_000


def test_harness_run_writes_the_report(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(["run", str(LIBRARY / SESSION[1]), "--adapter", SESSION[0], "--html", str(out)])
    assert code == 1
    document = out.read_text(encoding="utf-8")
    assert "same-id-parent-and-subsession" in document and "marked" in document


def test_the_plugin_writes_the_report(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        f"--harness-adapter={SESSION[0]}",
        "--harness-scenario=same-id-parent-and-subsession",
        "--harness-scenario=tool-first-turn",
        "--harness-variations=none",
        "--harness-html=report.html",
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*HTML report written to report.html*"])
    document = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "same-id-parent-and-subsession" in document and "tool-first-turn" in document
    assert "python -m pytest --harness-adapter=session-mutant-keyed-by-tool-id" in document


# -- in a real browser ------------------------------------------------------------------------------

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
# CI installs a browser (.ci/run): there, none found is a failure, not a skip
needs_browser = pytest.mark.skipif(
    CHROMIUM is None and os.environ.get("CI") != "true",
    reason="no headless browser: install Debian's chromium package (apt-get install chromium)",
)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None, "CI=true but no chromium on PATH: .ci/run installs it"
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",  # as root in a container
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        *args,
    ]
    env = {**os.environ, "HOME": str(tmp_path)}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def _png_pixels(data: bytes) -> tuple[int, list[bytes]]:
    """The width and the rows of pixels of an 8-bit RGB(A) PNG (stdlib only)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    size = 4 if colour == 6 else 3
    raw, stride, rows = zlib.decompress(idat), width * size, []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - size] if x >= size else 0
            b, c = previous[x], previous[x - size] if x >= size else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, [bytes(r) for r in rows]


@pytest.mark.slow
@needs_browser
@pytest.mark.parametrize("case", [SESSION, HISTORY, DRIVER], ids=["session", "history", "driver"])
def test_reports_render_in_headless_chromium(case, tmp_path):
    adapter, path = case
    report = write_report(tmp_path / "report.html", _results(adapter, path), adapter=adapter)
    url = report.resolve().as_uri()

    dom = _chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert 'data-ready="yes"' in html  # the report's script ran
    assert "lane-head" in html and 'class="timeline' in html
    assert re.search(r'class="row[^"]* marked"', html)
    assert 'class="callout"' in html
    assert "harness run " in html and f"--adapter {adapter}" in html

    shot = tmp_path / "shot.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,1400", url)
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    width, rows = _png_pixels(shot.read_bytes())
    size = len(rows[0]) // width
    pixels = [row[i : i + 3] for row in rows[::4] for i in range(0, len(row), size * 4)]
    colours = set(pixels)
    inked = sum(p != b"\xff\xff\xff" for p in pixels)
    assert len(colours) > 20, f"a nearly blank screenshot: {len(colours)} colours"
    assert inked / len(pixels) > 0.02, f"only {inked} of {len(pixels)} pixels are not white"


def test_lane_text_wraps_inside_its_lane_instead_of_being_cut() -> None:
    """A lane's cell (a fragment, an emitted call, a chunk) shows its whole excerpt, wrapped
    within the lane; the whole chunk stays in the cell's title."""
    css = (Path(harness.report.__file__).parent / "assets" / "report.css").read_text("utf-8")
    rule = re.search(r"\.row>span\{([^}]*)\}", css)
    assert rule is not None
    declarations = dict(d.split(":", 1) for d in rule.group(1).replace("\n", "").split(";") if d)
    assert declarations.get("white-space") == "normal"
    assert "text-overflow" not in declarations and declarations.get("overflow") != "hidden"
