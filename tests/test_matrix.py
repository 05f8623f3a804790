"""``harness matrix``: the real consumer libraries against the driver scenarios, its JSON and
Markdown, the committed docs/conformance.md, and a written explanation for every failure.

When a library's behaviour (or a rule) changes, the snapshot test below fails with the diff;
regenerate the document with

    .venv/bin/harness matrix --format markdown --out docs/conformance.md

and, for a new failure, write what the library did in harness/adapters/libs/explanations.py.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

import harness.matrix
from harness.adapters.libs import LIBRARIES, Library
from harness.adapters.libs.explanations import EXPLANATIONS
from harness.cli import main
from harness.demo import render_libraries
from harness.matrix import (
    LibraryRun,
    explanation,
    render_markdown,
    render_summary,
    run_libraries,
    to_json,
    written_explanation,
)
from harness.scenario import Scenario, load_all, load_scenario

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "scenarios" / "driver"
COMMITTED = ROOT / "docs" / "conformance.md"

#: a library no environment has
GHOST = Library(
    "ghost", "ghost_lib.adapter:make_adapter", ("ghost_lib_not_here",), ("ghost-lib",), "ghost"
)
#: a "library" whose failures nobody has explained: a bundled driver mutant
UNEXPLAINED = Library(
    "unexplained", "driver-mutant-anthropic-text-after-calls", ("harness",), ("streamharness",)
)


def driver_scenarios() -> list[Scenario]:
    scenarios, problems = load_all([str(DRIVER)])
    assert not problems
    return scenarios


@pytest.fixture(scope="module")
def runs() -> list[LibraryRun]:
    return run_libraries(driver_scenarios())


def test_a_library_that_is_not_installed_is_listed_with_its_extra() -> None:
    (run,) = run_libraries(driver_scenarios(), [GHOST])
    assert (run.installed, run.contract, run.results) == (False, None, ())
    assert to_json([run]) == {
        "libraries": [
            {
                "name": "ghost",
                "version": None,
                "adapter": "ghost_lib.adapter:make_adapter",
                "contract": None,
                "results": [],
                "install": "pip install 'streamharness[ghost]'",
            }
        ]
    }
    assert "not installed: pip install 'streamharness[ghost]'" in render_summary([run])
    assert "| ghost | not installed: `pip install 'streamharness[ghost]'` |" in render_markdown(
        [run]
    )


def test_a_failure_with_no_written_explanation_gets_one_from_its_violations() -> None:
    scenario = load_scenario(DRIVER / "text-before-tool-call.yaml")
    (run,) = run_libraries([scenario], [UNEXPLAINED])
    (result,) = run.results
    assert result.status == "fail"
    text = explanation(run, result)
    assert text is not None
    assert text.startswith("Not explained yet. The harness found: the outputs come in the order")


def test_the_json_document_has_one_entry_per_library_and_scenario(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness.matrix, "all_libraries", lambda: (GHOST, UNEXPLAINED))
    assert main(["matrix", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    ghost, unexplained = document["libraries"]
    assert ghost["results"] == []
    assert set(unexplained) == {"name", "version", "adapter", "contract", "results"}
    assert unexplained["contract"] == "per-call"
    assert len(unexplained["results"]) == len(list(DRIVER.glob("*.yaml")))
    for result in unexplained["results"]:
        assert set(result) == {"scenario", "status", "origin", "rules", "explanation"}
        assert result["origin"] in ("first-party", "gateway")
        assert (result["status"] == "fail") == bool(result["rules"])


def test_matrix_writes_the_markdown_to_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness.matrix, "all_libraries", lambda: (GHOST,))
    out = tmp_path / "conformance.md"
    assert main(["matrix", "--format", "markdown", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text(encoding="utf-8").startswith("# Real consumer libraries")


def test_the_demo_summary_needs_driver_scenarios() -> None:
    assert (
        render_libraries([load_scenario(ROOT / "scenarios" / "session" / "tool-first-turn.yaml")])
        is None
    )


# every driver adapter on every quirk case, through the demo: in make test, test_conformance and
# test_quirk_cases replay the same matrix (every mutant caught, every reference passing)
@pytest.mark.slow
@pytest.mark.exhaustive
def test_the_demo_passes_without_the_libraries(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness.matrix, "all_libraries", lambda: (GHOST,))
    code = main(["demo", str(DRIVER)])
    out = capsys.readouterr().out
    assert out.rstrip().endswith("ghost  not installed: pip install 'streamharness[ghost]'")
    assert not [line for line in out.splitlines() if line.startswith("!! ")], out
    assert code == 0


def test_every_explanation_names_a_library_and_a_driver_scenario() -> None:
    names = {library.name for library in LIBRARIES}
    scenarios = {path.stem for path in DRIVER.glob("*.yaml")}
    unknown = [key for key in EXPLANATIONS if key[0] not in names or key[1] not in scenarios]
    assert not unknown


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_every_failure_of_an_installed_library_is_explained(runs: list[LibraryRun]) -> None:
    unexplained = [
        f"{run.library.name}: {result.scenario.id} ({', '.join(result.rules_broken)})"
        for run in runs
        for result in run.failed
        if written_explanation(run.library.name, result.scenario.id) is None
    ]
    assert not unexplained, (
        "write what the library did in harness/adapters/libs/explanations.py:\n"
        + "\n".join(unexplained)
    )
    assert "Not explained yet" not in COMMITTED.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_no_explanation_outlives_its_failure(runs: list[LibraryRun]) -> None:
    # a library that changed, or a rule that stopped reporting a false positive, leaves its
    # explanation behind: it must go, or the document would explain nothing that happens
    failing = {(run.library.name, r.scenario.id) for run in runs for r in run.failed}
    installed = {run.library.name for run in runs if run.installed}
    stale = sorted(k for k in EXPLANATIONS if k[0] in installed and k not in failing)
    assert not stale, f"explanations of failures that no longer happen: {stale}"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_the_committed_conformance_document_is_current(runs: list[LibraryRun]) -> None:
    committed = COMMITTED.read_text(encoding="utf-8")
    here = {run.library.name: run.installed for run in runs}
    there = {
        library.name: f"| {library.name} | not installed" not in committed for library in LIBRARIES
    }
    if here != there:  # e.g. the litellm extra installed here: another run, not a change
        pytest.skip(f"the document was made with other libraries installed ({there}; here {here})")
    generated = render_markdown(runs)
    diff = "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            "docs/conformance.md (committed)",
            "harness matrix (now)",
        )
    )
    assert generated == committed, (
        "the libraries' results changed; if that is expected, regenerate with "
        "`harness matrix --format markdown --out docs/conformance.md`:\n" + diff
    )
