"""Triage of a run at any size, through `harness run`: each root cause once, first-party apart
from gateway, and baselines that accept known causes and catch new and fixed ones."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.library import command_line_path

MERGES = "driver-mutant-openai-merges-same-index"
DRIVER = "scenarios/driver"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def merged_json() -> dict[str, Any]:
    """The JSON of a mutant that fails hundreds of quirk cases of the driver library."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", DRIVER, "--adapter", MERGES, "--format", "json"]) == 1
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


@pytest.mark.slow
def test_the_table_shows_each_cause_once_and_verbose_every_case(
    capsys: pytest.CaptureFixture[str], merged_json: dict[str, Any]
) -> None:
    failed = [r for r in merged_json["results"] if r["status"] == "fail"]
    causes = merged_json["causes"]
    assert len(failed) > 200 and len(causes) < len(failed) / 4
    code, table, _ = run(capsys, "run", DRIVER, "--adapter", MERGES)
    assert code == 1
    heads = [line for line in table.splitlines() if line.startswith("FAIL")]
    assert len(heads) == len(causes)
    # each cause says how many cases show it, and the counts add up to the failures' causes
    counts = [re.search(r"\]  (\d+) cases?,", h) for h in heads]
    counted = sum(int(found.group(1)) for found in counts if found is not None)
    assert counted == sum(len(r["causes"]) for r in failed)
    assert table.count("  reproduce: ") == len(causes)
    code, verbose, _ = run(capsys, "run", DRIVER, "--adapter", MERGES, "-v")
    assert len([line for line in verbose.splitlines() if line.startswith("FAIL")]) == len(failed)


@pytest.mark.slow
def test_the_json_says_each_results_origin_and_causes(
    merged_json: dict[str, Any],
) -> None:
    results = merged_json["results"]
    assert {r["origin"] for r in results} == {"first-party", "gateway"}
    keys = {c["cause"] for c in merged_json["causes"]}
    for result in results:
        assert set(result["causes"]) <= keys
        assert bool(result["causes"]) == (result["status"] in ("fail", "error"))
    for cause in merged_json["causes"]:
        assert cause["origin"] in ("first-party", "gateway") and cause["cases"] >= 1


def test_first_party_leaves_out_every_gateway_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "run", f"{DRIVER}/parallel-calls.yaml", "--adapter", MERGES, "--format", "json"
    )
    every = json.loads(out)["results"]
    code, out, _ = run(
        capsys,
        "run",
        f"{DRIVER}/parallel-calls.yaml",
        "--adapter",
        MERGES,
        "--format",
        "json",
        "--first-party",
    )
    first = json.loads(out)["results"]
    assert code == 0  # the mutant glues only calls that gateways send at one index
    assert {r["origin"] for r in first} == {"first-party"}
    assert len(first) == sum(r["origin"] == "first-party" for r in every) < len(every)


def test_the_summary_counts_first_party_and_gateway_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, table, _ = run(capsys, "run", f"{DRIVER}/parallel-calls.yaml", "--adapter", MERGES)
    summary = table.splitlines()[-1]
    found = re.search(r"(\d+) failed \((\d+) first-party, (\d+) gateway\)", summary)
    assert found is not None, summary
    failed, first, gateway = map(int, found.groups())
    assert failed == first + gateway and gateway > 0
    assert re.search(r"; \d+ root causes? \(0 first-party, \d+ gateway\)$", summary)


def test_a_baseline_accepts_known_causes_and_fails_on_new_and_fixed_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.yaml"
    scenario = f"{DRIVER}/parallel-calls.yaml"
    code, _, err = run(capsys, "run", scenario, "--adapter", MERGES, "--write-baseline", str(known))
    assert code == 1 and f"root causes to {known}" in err
    # green on its own baseline, the causes marked known in the table
    code, table, err = run(capsys, "run", scenario, "--adapter", MERGES, "--baseline", str(known))
    assert code == 0, err
    assert "KNOWN" in table and re.search(r"\d+ known causes, 0 new, 0 fixed", err)
    # red on a new cause: another bug fails other cases
    code, _, err = run(
        capsys,
        "run",
        scenario,
        "--adapter",
        "driver-mutant-openai-keys-by-id",
        "--baseline",
        str(known),
    )
    assert code == 1 and re.search(r"[1-9]\d* new", err)
    # a fixed entry: the reference fails none of them
    reference = "driver-openai-chat-reference"
    code, _, err = run(capsys, "run", scenario, "--adapter", reference, "--baseline", str(known))
    assert code == 1
    assert re.search(
        rf"fixed: {re.escape(str(known))}:\d+: parallel-calls:\S+ no longer fails", err
    )
    code, _, _ = run(
        capsys,
        "run",
        scenario,
        "--adapter",
        reference,
        "--baseline",
        str(known),
        "--baseline-warn-fixed",
    )
    assert code == 0
    # an entry of a scenario that did not run is not fixed
    other = f"{DRIVER}/name-every-chunk.yaml"
    code, _, err = run(capsys, "run", other, "--adapter", reference, "--baseline", str(known))
    assert code == 0 and "0 fixed" in err


def test_a_malformed_baseline_is_a_located_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "known.yaml"
    bad.write_text("harness-baseline: 1\ncauses:\n- reason: no cause\n", encoding="utf-8")
    code, _, err = run(
        capsys, "run", f"{DRIVER}/parallel-calls.yaml", "--adapter", MERGES, "--baseline", str(bad)
    )
    assert code == 2
    assert f"{bad}:3: error: each entry needs 'cause: SCENARIO:RULE@EVENT'" in err
    assert "Traceback" not in err


def test_the_html_report_lists_each_cause_once_and_draws_its_smallest_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    scenario = f"{DRIVER}/parallel-calls.yaml"
    _, out, _ = run(capsys, "run", scenario, "--adapter", MERGES, "--format", "json")
    data = json.loads(out)
    _, _, err = run(capsys, "run", scenario, "--adapter", MERGES, "--html", str(report))
    size = report.stat().st_size
    assert f"HTML report written to {report} ({round(size / 1e3)} kB)" in err
    html = report.read_text(encoding="utf-8")
    # a scenario is named as commands name it (from here, or harness-library/...), never by
    # the folder the package lies in
    library = str(Path(DRIVER).resolve().parent)
    assert f"<code>{command_line_path(library + '/driver/parallel-calls.yaml')}</code>" in html
    assert library not in html
    causes = re.search(r"<section class=causes>(.*?)</section>", html, re.S)
    assert causes is not None
    assert causes.group(1).count("<li") == len(data["causes"])
    smallest = {c["smallest_case"] for c in data["causes"]}
    assert html.count('<article class="failure"') == len(smallest)
    for cause in data["causes"]:
        assert f"root cause <code>{cause['cause']}</code>: {cause['cases']} case" in html


def test_the_demo_counts_causes_and_runs_first_party_shapes_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = f"{DRIVER}/parallel-calls.yaml"
    code, out, _ = run(capsys, "demo", scenario, "--jobs", "1")
    (line,) = [line for line in out.splitlines() if f" {MERGES} " in line]
    assert re.search(
        r"caught by .*parallel-apart.* in \d+ root causes \(0 first-party, \d+ gateway\)", line
    )
    code, out, _ = run(capsys, "demo", scenario, "--jobs", "1", "--first-party")
    (line,) = [line for line in out.splitlines() if f" {MERGES} " in line]
    assert "not caught on first-party shapes" in line
    assert code == 0  # a view of first-party shapes: only the references must pass
