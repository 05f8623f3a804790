"""What ``harness run`` prints: output cut off by a closed pipe, ``--layer``, and scenarios of a
layer the adapter does not implement, counted on one line instead of listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import EXIT_BROKEN_PIPE, main
from tests.scenarios_for_tests import library

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "scenarios"
BASIC = str(LIBRARY / "session" / "backward-attachment-basic.yaml")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def library_ids(*layers: str) -> set[str]:
    return {s.id for s in library() if s.layer in layers}


# -- a closed pipe --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["rules"],  # small: the output meets the closed pipe when it is flushed at the end
        ["run", str(LIBRARY / "session"), "--adapter", "session-reference"],
    ],
    ids=["rules", "run"],
)
def test_output_into_a_closed_pipe_ends_quietly_with_the_sigpipe_code(argv: list[str]) -> None:
    # The reader is gone before the first byte, as `| head` is once it has its lines.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "harness", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (EXIT_BROKEN_PIPE, "")
    assert EXIT_BROKEN_PIPE == 128 + 13  # 128 + SIGPIPE, what a shell reports for it


def test_the_sigpipe_code_is_only_for_a_closed_pipe() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness", "rules"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.count("\n") > 10


# -- --layer --------------------------------------------------------------------------------------


def test_layer_selects_the_scenarios_of_that_layer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "run",
        str(LIBRARY),
        "--adapter",
        "history-reference",
        "--layer",
        "history",
        "--format",
        "json",
    )
    assert code == 0
    results = json.loads(out)["results"]
    assert {r["scenario"] for r in results} == library_ids("history")
    assert {r["status"] for r in results} == {"pass"}


@pytest.mark.slow
def test_layer_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "run",
        str(LIBRARY),
        "--adapter",
        "session-reference",
        "--layer",
        "session",
        "--layer",
        "history",
        "--format",
        "json",
    )
    assert code == 0
    ids = {r["scenario"] for r in json.loads(out)["results"]}
    assert ids == library_ids("session", "history")


def test_an_unknown_layer_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", BASIC, "--adapter", "session-reference", "--layer", "sessions"])
    assert exc.value.code == 2
    assert "invalid choice: 'sessions'" in capsys.readouterr().err


def test_a_layer_with_no_scenario_under_the_paths_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(
        capsys, "run", BASIC, "--adapter", "session-reference", "--layer", "driver"
    )
    assert (code, out) == (2, "")
    assert err == f"harness: error: no scenario of the driver layer under {BASIC}\n"


# -- scenarios of a layer the adapter does not implement ------------------------------------------


@pytest.mark.slow
def test_table_counts_the_scenarios_of_other_layers_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(capsys, "run", str(LIBRARY), "--adapter", "driver-anthropic-reference")
    assert code == 0
    lines = out.splitlines()
    left_out = len(library_ids("session", "history", "loop"))
    assert lines[-2] == (
        f"{left_out} scenarios of the session, history and loop layers left out: "
        "the adapter implements driver"
    )
    assert not any("needs the" in line for line in lines)
    listed = [line for line in lines if line[:5] in ("PASS ", "FAIL ", "SKIP ", "ERROR")]
    driver = len(library_ids("driver"))
    assert len(listed) == driver  # every case passes: one line per scenario
    # the quirk cases are counted, each a result of its own in the JSON output
    code, out, _ = run_cli(
        capsys,
        "run",
        str(LIBRARY / "driver"),
        "--adapter",
        "driver-anthropic-reference",
        "--format",
        "json",
    )
    cases = len(json.loads(out)["results"])
    assert cases > 3 * driver
    assert lines[-1].startswith(f"{cases} cases of {driver} scenarios: ")
    # a driver scenario the adapter's dialect cannot run is still listed, with its reason
    assert "  skipped: the scenario runs in openai-chat, not anthropic" in lines


def test_table_names_one_layer_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "run", str(LIBRARY / "history"), BASIC, "--adapter", "history-reference"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == "1 scenario of the session layer left out: the adapter implements history"
    assert not any("backward-attachment-basic" in line for line in lines)


def test_table_has_no_left_out_line_when_every_layer_applies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        capsys, "run", BASIC, "--adapter", "session-reference", "--variations", "none"
    )
    assert code == 0
    assert out.splitlines() == [
        "PASS  backward-attachment-basic  [session-reference]",
        "1 scenarios: 1 passed, 0 failed, 0 errors, 0 skipped",
    ]


@pytest.mark.slow
def test_json_keeps_the_scenarios_of_other_layers_as_skips(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        capsys, "run", str(LIBRARY), "--adapter", "driver-anthropic-reference", "--format", "json"
    )
    assert code == 0
    results = json.loads(out)["results"]
    assert {r["scenario"] for r in results} == library_ids("session", "history", "driver", "loop")
    other_layers = library_ids("session", "history", "loop")
    other = [r for r in results if r["scenario"] in other_layers]
    assert {r["status"] for r in other} == {"skip"}
    assert all(r["skip_reason"].endswith("; the adapter implements: driver") for r in other)


@pytest.mark.slow
def test_a_violation_still_exits_1_with_other_layers_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        capsys,
        "run",
        str(LIBRARY),
        "--adapter",
        "driver-mutant-anthropic-ends-at-first-message-stop",
    )
    assert code == 1
    assert "scenarios of the session, history and loop layers left out" in out
