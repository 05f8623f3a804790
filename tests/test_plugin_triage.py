"""Triage under pytest (pytester, as a user runs it, in a process of its own so that the inner
run's items never reach this suite's report): each root cause once in the summary,
first-party apart from gateway, the tag and first-party selections by each case's own tags, and
a baseline that makes known causes xfail and a fixed entry XPASS(strict)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli import main
from harness.library import library_path
from tests.projects_for_tests import outside_xdist

#: pytest runs in pytest: seconds each
pytestmark = pytest.mark.slow

MERGES = "driver-mutant-openai-merges-same-index"
SCENARIO = "parallel-calls"
INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
PATH = str(Path(__file__).resolve().parent.parent / "scenarios" / "driver" / f"{SCENARIO}.yaml")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    outside_xdist(monkeypatch)
    pytester.makeini(INI)
    return pytester


def _cases(capsys: pytest.CaptureFixture[str], *extra: str) -> list[dict[str, object]]:
    main(
        [
            "run",
            PATH,
            "--adapter",
            MERGES,
            "--format",
            "json",
            *extra,
        ]
    )
    results: list[dict[str, object]] = json.loads(capsys.readouterr().out)["results"]
    return results


def test_the_summary_shows_each_root_cause_once(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", PATH, "--adapter", MERGES, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    failed = [r for r in data["results"] if r["status"] == "fail"]
    result = project.runpytest_subprocess(
        f"--harness-adapter={MERGES}", f"--harness-scenario={SCENARIO}"
    )
    # a per-call mutant skips the cases judged only per message (interleaved fragments)
    skipped = [r for r in data["results"] if r["status"] == "skip"]
    result.assert_outcomes(
        failed=len(failed),
        passed=len(data["results"]) - len(failed) - len(skipped),
        skipped=len(skipped),
    )
    text = result.stdout.str()
    section = text[text.index("root causes") : text.index("conformance by rule")]
    assert re.search(
        rf"{len(failed)} scenario items failed: 0 first-party, {len(failed)} gateway; "
        rf"{len(data['causes'])} root causes \(0 first-party, {len(data['causes'])} gateway\)",
        section,
    )
    for cause in data["causes"]:
        (line,) = [line for line in section.splitlines() if line.startswith(f"  {cause['cause']} ")]
        assert f"  {cause['cases']} case" in line
    assert section.count("    python -m pytest ") == len(data["causes"])


def test_the_tag_and_first_party_selections_read_each_cases_tags(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    every = _cases(capsys)
    gateway = sum(r["origin"] == "gateway" for r in every)
    first = len(every) - gateway
    assert gateway and first
    common = (f"--harness-adapter={MERGES}", f"--harness-scenario={SCENARIO}", "--collect-only")
    tagged = project.runpytest_subprocess(*common, "--harness-tag=gateway", "-q")
    assert len(re.findall(r"::\S+", tagged.stdout.str())) == gateway
    only_first = project.runpytest_subprocess(*common, "--harness-first-party", "-q")
    assert len(re.findall(r"::\S+", only_first.stdout.str())) == first
    project.makeini(INI + "harness_first_party = true\n")
    from_ini = project.runpytest_subprocess(*common, "-q")
    assert len(re.findall(r"::\S+", from_ini.stdout.str())) == first


def test_a_baseline_makes_known_causes_xfail_and_a_fixed_entry_xpass_strict(
    project: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known = tmp_path / "known.yaml"
    main(
        [
            "run",
            PATH,
            "--adapter",
            MERGES,
            "--write-baseline",
            str(known),
        ]
    )
    capsys.readouterr()
    failed = sum(r["status"] == "fail" for r in _cases(capsys))
    option = f"--harness-baseline={known}"
    green = project.runpytest_subprocess(
        f"--harness-adapter={MERGES}", f"--harness-scenario={SCENARIO}", option
    )
    outcomes = green.parseoutcomes()
    assert outcomes.get("xfailed") == failed and "failed" not in outcomes
    assert green.ret == 0
    # another bug fails with causes the baseline does not know
    red = project.runpytest_subprocess(
        "--harness-adapter=driver-mutant-openai-keys-by-id",
        f"--harness-scenario={SCENARIO}",
        option,
    )
    assert red.ret == 1 and red.parseoutcomes().get("failed", 0) > 0
    # the reference: each entry's smallest case passes, XPASS(strict)
    smallest = {
        line.split(": ", 1)[1].strip()
        for line in known.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("smallest:")
    }
    fixed = project.runpytest_subprocess(
        "--harness-adapter=driver-openai-chat-reference",
        f"--harness-scenario={SCENARIO}",
        option,
        "-rX",
    )
    assert fixed.ret == 1
    assert fixed.parseoutcomes().get("failed") == len(smallest)
    assert len(re.findall(r"XPASS\(strict\)", fixed.stdout.str())) == len(smallest)
    project.makeini(INI + "harness_baseline_strict = false\n")
    warned = project.runpytest_subprocess(
        "--harness-adapter=driver-openai-chat-reference", f"--harness-scenario={SCENARIO}", option
    )
    assert warned.ret == 0 and warned.parseoutcomes().get("xpassed") == len(smallest)


def test_a_malformed_baseline_is_a_usage_error_naming_its_line(
    project: pytest.Pytester, tmp_path: Path
) -> None:
    bad = tmp_path / "known.yaml"
    bad.write_text("harness-baseline: 1\ncauses:\n- cause: 7\n", encoding="utf-8")
    result = project.runpytest_subprocess(
        f"--harness-adapter={MERGES}", f"--harness-baseline={bad}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*harness: {bad}:3: each entry needs 'cause: SCENARIO:RULE@EVENT'*"]
    )


@pytest.mark.parametrize(
    "fixture",
    [
        "@pytest.fixture\ndef harness_adapter():\n    return 'session-reference'\n",
        "@pytest_asyncio.fixture\nasync def harness_adapter():\n    return 'session-reference'\n",
    ],
    ids=["sync", "async"],
)
def test_an_overridden_adapter_fixture_counts_as_configured(
    project: pytest.Pytester, fixture: str
) -> None:
    """With the default ``harness_library = auto``, the library is collected for a conftest.py
    that names the adapter by overriding the fixture, as for the option or the ini value."""
    project.makeconftest("import pytest\nimport pytest_asyncio\n\n\n" + fixture)
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    from harness.scenario import load_all

    session = load_all([str(Path(PATH).parents[1] / "session")])[0]
    assert result.parseoutcomes().get("passed") == len(session)


def test_the_configuration_leaves_a_scenario_or_a_rule_unchecked_with_a_reason(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(library_path() / "driver" / "name-every-chunk.yaml")
    main(["run", path, "--adapter", MERGES, "--format", "json"])
    statuses = [r["status"] for r in json.loads(capsys.readouterr().out)["results"]]
    failing, passing = statuses.count("fail"), statuses.count("pass")
    assert failing and passing and failing + passing == len(statuses)
    common = (f"--harness-adapter={MERGES}", "--harness-scenario=name-every-chunk", "-rs")
    # the mutant glues a call's name repeated on every chunk: strict-assembly alone sees it
    project.runpytest_subprocess(*common).assert_outcomes(failed=failing, passed=passing)
    project.makeini(
        INI
        + "harness_skip =\n    name-every-chunk rule:strict-assembly: our gateway never repeats names\n"
    )
    project.runpytest_subprocess(*common).assert_outcomes(passed=len(statuses))
    project.makeini(INI + "harness_skip =\n    name-every-chunk: not our dialect\n")
    skipped = project.runpytest_subprocess(*common)
    skipped.assert_outcomes(skipped=len(statuses))
    skipped.stdout.fnmatch_lines(["*harness_skip: not our dialect*"])
    project.makeini(INI + "harness_skip =\n    rule:strict-assembly\n")
    refused = project.runpytest_subprocess(*common)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*harness_skip: 'rule:strict-assembly' should be*a reason is required*"]
    )
