"""Baseline files: written by root cause, read back with located errors, judged against a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import ScenarioError
from harness.replay.result import ScenarioResult
from harness.results.baseline import read_baseline, render_baseline, write_baseline
from harness.results.causes import group_causes
from harness.rules.registry import Violation
from harness.scenario import load_scenario


def _failed(rule: str, event: int, message: str = "m") -> ScenarioResult:
    scenario = load_scenario("scenarios/driver/parallel-calls.yaml")
    return ScenarioResult(scenario, "a", "fail", (Violation(rule, event, message),))


def test_a_written_baseline_reads_back_as_its_causes(tmp_path: Path) -> None:
    causes = group_causes([_failed("parallel-apart", 9, "merged: 'é' and \"x\""), _failed("r", 2)])
    path = tmp_path / "known.yaml"
    write_baseline(path, causes)
    baseline = read_baseline(path)
    assert list(baseline.entries) == [c.key for c in causes]
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Known failures") and "é" in text  # written as it is, not escaped
    # each entry is at its own line, for messages
    lines = text.splitlines()
    for entry in baseline.entries.values():
        assert lines[entry.line - 1].lstrip("- ").startswith("cause: " + entry.cause)


def test_a_reason_a_person_wrote_is_kept_when_the_baseline_is_written_again(
    tmp_path: Path,
) -> None:
    causes = group_causes([_failed("parallel-apart", 9)])
    path = tmp_path / "known.yaml"
    write_baseline(path, causes)
    text = path.read_text(encoding="utf-8").replace(
        "  origin:", "  reason: the gateway we use never sends it\n  origin:", 1
    )
    path.write_text(text, encoding="utf-8")
    write_baseline(path, causes)
    assert read_baseline(path).entries[causes[0].key].reason == "the gateway we use never sends it"


def test_judging_a_run_tells_known_new_and_fixed_causes(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    write_baseline(path, group_causes([_failed("parallel-apart", 9), _failed("gone", 3)]))
    baseline = read_baseline(path)
    now = group_causes([_failed("parallel-apart", 9), _failed("strict-assembly", 4)])
    judged = baseline.judge(now, ran={"parallel-calls"})
    assert [c.key for c in judged.known] == ["parallel-calls:parallel-apart@9"]
    assert [c.key for c in judged.new] == ["parallel-calls:strict-assembly@4"]
    assert [e.cause for e in judged.fixed] == ["parallel-calls:gone@3"]
    assert "1 known cause, 1 new, 1 fixed" in judged.lines()[0]
    assert (
        f"{path}:{judged.fixed[0].line}: parallel-calls:gone@3 no longer fails"
        in (judged.lines()[1])
    )
    # an entry of a scenario that did not run is not fixed: nothing was checked
    assert not baseline.judge(now, ran={"another"}).fixed


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "the baseline is empty"),
        ("causes: []\n", 1, "not a baseline: a baseline starts 'harness-baseline: 1'"),
        ("harness-baseline: 1\ncauses: {a: 1}\n", 2, "'causes' should be a list"),
        (
            "harness-baseline: 1\ncauses:\n- cause: s:r@1\n- cause: 12\n",
            4,
            "each entry needs 'cause: SCENARIO:RULE@EVENT'",
        ),
        (
            "harness-baseline: 1\ncauses:\n- cause: s:r@1\n- cause: s:r@1\n",
            4,
            r"s:r@1 is listed twice \(first at line 3\)",
        ),
        ("harness-baseline: 1\ncauses: [\n", 3, "invalid YAML"),
    ],
)
def test_a_malformed_baseline_is_a_located_error(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = tmp_path / "known.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=message) as caught:
        read_baseline(path)
    assert caught.value.problems[0].path == str(path)
    assert caught.value.problems[0].line == line


def test_no_causes_is_a_baseline_with_no_entries(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    path.write_text(render_baseline([]), encoding="utf-8")
    assert read_baseline(path).entries == {}
