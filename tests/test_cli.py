"""The command line: output formats and exit codes (0 pass, 1 violated, 2 usage or input)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.adapters.registry import BUNDLED
from harness.cli import main
from harness.scenario.variations import session_cases
from tests.heap import frozen
from tests.scenarios_for_tests import load_session

ROOT = Path(__file__).resolve().parents[1]
BASIC = str(ROOT / "scenarios" / "session" / "backward-attachment-basic.yaml")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_passes_with_exit_0(capsys):
    code, out, _ = run_cli(capsys, "run", BASIC, "--adapter", "session-reference")
    assert code == 0
    assert out.splitlines()[0].startswith("PASS  backward-attachment-basic  [session-reference]")
    n = len(session_cases(load_session(BASIC)))  # the scenario and its variations
    assert n > 1
    assert (
        out.splitlines()[-1]
        == f"{n} cases of 1 scenarios: {n} passed, 0 failed, 0 errors, 0 skipped"
    )


def test_run_json_document_for_a_violation(capsys):
    code, out, _ = run_cli(
        capsys,
        "run",
        BASIC,
        "--adapter",
        "session-mutant-no-message-updated",
        "--format",
        "json",
        "--variations",
        "none",
    )
    assert code == 1
    document = json.loads(out)
    (result,) = document["results"]
    assert (result["scenario"], result["adapter"], result["status"]) == (
        "backward-attachment-basic",
        "session-mutant-no-message-updated",
        "fail",
    )
    (violation,) = result["violations"]
    assert violation["rule"] == "backward-attachment"
    assert isinstance(violation["event_index"], int) and "message updated" in violation["message"]


def test_table_failure_shows_rule_line_excerpt_and_reproduce_command(capsys):
    code, out, _ = run_cli(
        capsys, "run", BASIC, "--adapter", "session-mutant-attach-at-next-message"
    )
    assert code == 1
    assert "[backward-attachment] event" in out
    assert f"{BASIC}:15" in out  # the tool step
    assert ">" in out and "tool_completed" in out
    # named from the current folder (the tests run from the checkout)
    relative = "scenarios/session/backward-attachment-basic.yaml"
    assert (
        f"reproduce: harness run {relative} --adapter session-mutant-attach-at-next-message" in out
    )


def test_rule_selection_by_id(capsys):
    code, _, _ = run_cli(
        capsys,
        "run",
        BASIC,
        "--adapter",
        "session-mutant-no-message-updated",
        "--skip-rule",
        "backward-attachment",
        "--skip-rule",  # which would see the missing notice behind it
        "reference-comparison",
    )
    assert code == 0


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["run", BASIC, "--adapter", "nope"], "unknown adapter 'nope'"),
        (
            ["run", BASIC, "--adapter", "session-reference", "--rule", "no-such-rule"],
            "unknown rule id 'no-such-rule'",
        ),
        (
            ["run", "/no/such/path.yaml", "--adapter", "session-reference"],
            "/no/such/path.yaml:1: error: no such file",
        ),
        (["bench", "--events", "5000000000"], "--events must be between"),
    ],
)
def test_usage_errors_exit_2(capsys, argv, words):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert words in err


def test_missing_adapter_option_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", BASIC])
    assert exc.value.code == 2


def test_run_on_an_empty_folder_is_an_input_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", str(tmp_path), "--adapter", "session-reference")
    assert code == 2 and "no scenario files" in err


def test_adapters_json_lists_every_bundled_adapter(capsys):
    code, out, _ = run_cli(capsys, "adapters", "--format", "json")
    listed = json.loads(out)
    assert code == 0
    assert [a["name"] for a in listed] == list(BUNDLED)
    for entry in listed:
        assert entry["layer"] in ("session", "driver", "history")
        assert entry["kind"] in ("reference", "mutant")
        assert ("bug" in entry) == (entry["kind"] == "mutant")
        if entry["kind"] == "mutant":
            assert entry["bug"].endswith(".")


def test_validate_reports_count(capsys):
    code, out, _ = run_cli(capsys, "validate", BASIC)
    assert code == 0 and out.startswith("1 scenarios valid")


@pytest.mark.slow
def test_bench_prints_its_figures(capsys):
    with frozen():  # the bench collects before each timed run: not the whole worker's heap
        code, out, _ = run_cli(capsys, "bench", "--events", "2000")
    assert code == 0
    names = [line.split("=", 1)[0] for line in out.splitlines()]
    assert names == [
        "events",
        "harness_seconds",
        "bare_seconds",
        "feed_seconds",
        "expand_seconds",
        "events_per_second",
        "overhead_ratio",
        "feed_only_ratio",
        "loop_overhead_ratio",
        "load_seconds",
        "peak_rss_mb",
    ]
    figures = dict(line.split("=", 1) for line in out.splitlines())
    assert 1_950 <= int(figures["events"]) <= 2000  # the burst's walk may stop a few short
    assert float(figures["peak_rss_mb"]) > 0 and float(figures["load_seconds"]) > 0
    ratio = float(figures["harness_seconds"]) / float(figures["bare_seconds"])
    assert ratio == pytest.approx(float(figures["overhead_ratio"]), rel=0.01)
    ratio = float(figures["harness_seconds"]) / float(figures["feed_seconds"])
    assert ratio == pytest.approx(float(figures["feed_only_ratio"]), rel=0.01)


def test_python_dash_m_entry_point():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            BASIC,
            "--adapter",
            "session-reference",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["status"] == "pass"


DRIVER = str(ROOT / "scenarios" / "driver" / "parallel-calls.yaml")


def test_show_prints_a_session_scenarios_events_as_failures_number_them(capsys):
    from harness.report import event_line
    from harness.scenario import load_scenario

    scenario = load_scenario(BASIC)
    code, out, _ = run_cli(capsys, "show", BASIC)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{BASIC}: {scenario.id} ({scenario.title}), {len(scenario.events)} events"
    assert lines[1:] == [event_line(scenario, i) for i in range(len(scenario.events))]


def test_show_prints_the_exact_chunks_a_driver_reads_in_a_quirk_case(capsys):
    from harness.codecs import dialects
    from harness.scenario import DriverScenario, load_scenario
    from harness.scenario.cases import select_cases

    code, out, _ = run_cli(
        capsys, "show", DRIVER, "--dialect", "openai-chat", "--quirk", "no_index"
    )
    assert code == 0
    lines = out.splitlines()
    assert "parallel-calls[openai-chat+no_index]" in lines[0]
    codec = dialects()["openai-chat"]
    scenario = load_scenario(DRIVER)
    assert isinstance(scenario, DriverScenario)
    (case,) = select_cases(scenario, codec, ("no_index",))
    chunks = codec.encode(case.turn, case.quirks)
    assert len(lines) == 1 + len(chunks)
    for number, (line, chunk) in enumerate(zip(lines[1:], chunks, strict=True), 1):
        assert line == f"  chunk {number:>4}  event {chunk.origin:<4} {chunk.data!r}"


def test_show_the_reads_of_a_bytes_driver_and_usage_errors(capsys):
    code, out, _ = run_cli(capsys, "show", DRIVER, "--dialect", "anthropic", "--reads", "bytes")
    assert code == 0 and "reads of the body's bytes" in out.splitlines()[0]
    assert "chunk    1  event 0    b'" in out
    code, _, err = run_cli(capsys, "show", BASIC, "--dialect", "anthropic")
    assert code == 2 and "are for driver scenarios" in err
    code, _, err = run_cli(capsys, "show", DRIVER, "--dialect", "openai-chat", "--quirk", "nope")
    assert code == 2 and "no quirk 'nope'" in err


class _Terminal:
    """A stdout that says it is a terminal, keeping what is written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_run_shows_progress_on_a_terminal_and_clears_it(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    folder = str(ROOT / "scenarios" / "session")
    assert main(["run", folder, "--adapter", "session-reference"]) == 0
    first, _, rest = terminal.text.partition("\n")
    # the counter and the time elapsed, in place, then cleared before the table
    assert re.match(r"\r\x1b\[Kscenario 1/\d+ \S+  \d+\.\ds", first)
    assert "\r\x1b[KPASS " in first
    assert "\r" not in rest


def test_no_progress_when_the_output_is_not_a_terminal(capsys):
    code, out, _ = run_cli(
        capsys, "run", str(ROOT / "scenarios" / "session"), "--adapter", "session-reference"
    )
    assert code == 0 and "\r" not in out and "\x1b" not in out


def _verdicts(rows) -> list[tuple[str, list[tuple[str, str, tuple[object, ...]]]]]:
    return [
        (row.adapter.name, [(r.scenario.case_id, r.status, r.violations) for r in row.results])
        for row in rows
    ]


@pytest.mark.slow
def test_the_demo_in_two_processes_gives_what_one_gives():
    from harness.demo import run_matrix, run_matrix_parallel
    from harness.scenario import load_all

    paths = [
        str(ROOT / "scenarios" / "history"),
        str(ROOT / "scenarios" / "driver" / "parallel-calls.yaml"),
    ]
    scenarios, problems = load_all(paths)
    assert not problems
    rows, libraries = run_matrix_parallel(paths, scenarios, 2)
    alone = run_matrix(scenarios)
    assert _verdicts(rows) == _verdicts(alone)
    # every bundled adapter of both layers ran, the mutants among them failing somewhere
    assert len(rows) == sum(1 for a in BUNDLED.values() if a.layer in ("history", "driver"))
    assert any(r.status == "fail" for row in rows for r in row.results)
    assert libraries is not None  # a driver scenario was among them


@pytest.mark.slow
def test_a_worker_that_ran_other_cases_stops_the_parallel_demo():
    from harness.demo import run_matrix_parallel
    from harness.scenario import load_all

    history = str(ROOT / "scenarios" / "history")
    scenarios, _ = load_all([history])
    # the workers load another scenario than this process has: their cases are not these
    other = [
        str(
            ROOT
            / "scenarios"
            / "history"
            / sorted(p.name for p in (ROOT / "scenarios" / "history").glob("*.yaml"))[0]
        )
    ]
    with pytest.raises(RuntimeError, match="ran other cases"):
        run_matrix_parallel(other, scenarios, 2)


def test_demo_jobs_must_be_one_or_more(capsys):
    code, _, err = run_cli(capsys, "demo", BASIC, "--jobs", "0")
    assert code == 2 and "--jobs" in err


@pytest.mark.slow
def test_demo_shows_progress_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    main(["demo", str(ROOT / "scenarios" / "session" / "backward-attachment-basic.yaml")])
    # the first case to come back, of whichever session adapter (they run in parallel)
    assert re.match(r"\r\x1b\[K1 cases replayed \(session-[\w-]+\)  \d+\.\ds", terminal.text)
