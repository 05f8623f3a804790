"""``--adapter`` values as a hostile (or hurried) user types them, and runs that check nothing.

Any value is a run (exit 0, 1 or 5) or one usage error (exit 2) before anything runs, never a
traceback; the pytest plugin turns a bad adapter into one usage error at collection, and a
session whose scenarios were all skipped into exit 5 with one line that says so.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.adapters.registry import BUNDLED
from harness.cli import EXIT_NOTHING_CHECKED, EXIT_USAGE, main
from harness.library import library_path
from tests.budgets import examples
from tests.projects_for_tests import outside_xdist

SCENARIO = str(library_path() / "session" / "backward-attachment-basic.yaml")
HISTORY = str(library_path() / "history")
HOSTILE = Path(__file__).parent.parent / "processes" / "hostile_process.py"
STATS = {"inputs": 0, "seconds": 0.0}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's own errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def mistyped(name: str, data: st.DataObject) -> str:
    """``name`` with one character dropped, doubled or replaced."""
    at = data.draw(st.integers(0, len(name) - 1))
    how = data.draw(st.sampled_from(["drop", "double", "replace"]))
    if how == "drop":
        return name[:at] + name[at + 1 :]
    if how == "double":
        return name[:at] + name[at] + name[at:]
    return name[:at] + data.draw(st.characters(exclude_categories=["Cs"])) + name[at + 1 :]


#: values that cannot run anything: no program of these names exists, no such module either
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
QUOTES = st.text(st.sampled_from(" '\"\\\t"), max_size=8)
ADAPTERS = st.one_of(
    TEXT.filter(lambda text: ":" not in text),
    QUOTES.map(lambda text: "exec:" + text),
    st.tuples(QUOTES, TEXT).map(lambda t: f"exec:{t[0]}harness-no-such-program{t[1]}"),
    TEXT.map(lambda text: f"harness_no_such_module{text}:factory"),
    TEXT.map(lambda text: f"harness.adapters.session.reference:{text}"),
)


@pytest.mark.slow
@settings(
    max_examples=int(os.environ.get("HARNESS_FUZZ_EXAMPLES", examples(60))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_adapter_value_is_a_run_or_one_usage_error(data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        value = mistyped(data.draw(st.sampled_from(sorted(BUNDLED))), data)
    else:
        value = data.draw(ADAPTERS)
    started = time.monotonic()
    code, out, err = run("run", SCENARIO, f"--adapter={value}")
    STATS["inputs"] += 1
    STATS["seconds"] = max(STATS["seconds"], time.monotonic() - started)
    assert code in (0, 1, EXIT_USAGE, EXIT_NOTHING_CHECKED), (value, code, err)
    assert "Traceback" not in out + err
    if code == EXIT_USAGE:
        assert len(err.strip().splitlines()) == 1 or "Usage" in err or "usage" in err, err
        assert out == "", "a usage error comes before anything runs"
    if os.environ.get("HARNESS_FUZZ_STATS") and STATS["inputs"] % 20 == 0:
        print(f"\n--adapter values: {STATS}", file=sys.stderr)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("exec:'x", '"exec:\'x": cannot split the command line (No closing quotation)'),
        ("exec:", "exec: needs a command"),
        ("exec:harness-no-such-program --flag", "no program 'harness-no-such-program'"),
        ("exec:./harness-no-such-program", "'./harness-no-such-program' is not an executable"),
        (
            "session-referense",
            "unknown adapter 'session-referense'; did you mean 'session-reference'?",
        ),
    ],
)
def test_a_bad_adapter_is_one_usage_error(value: str, says: str) -> None:
    code, out, err = run("run", HISTORY, "--adapter", value)
    assert (code, out) == (EXIT_USAGE, "")
    assert err.count("\n") == 1 and says in err, err


def test_a_process_that_cannot_say_hello_is_one_usage_error() -> None:
    code, out, err = run(
        "run", HISTORY, "--adapter", f"exec:{sys.executable} {HOSTILE} '[[\"exit\", 3]]'"
    )
    assert (code, out) == (EXIT_USAGE, "")
    assert "cannot be used" in err and "exited (code 3) instead of answering 'hello'" in err


def test_a_run_that_skips_everything_exits_5_and_says_so() -> None:
    code, _, err = run("run", HISTORY, "--adapter", "session-reference")
    assert code == EXIT_NOTHING_CHECKED == 5
    assert "scenarios were skipped, so nothing was checked" in err


# -- the pytest plugin --------------------------------------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    outside_xdist(monkeypatch)
    scenarios = pytester.mkdir("scenarios")
    for path in (SCENARIO, str(library_path() / "driver" / "text-before-tool-call.yaml")):
        (scenarios / Path(path).name).write_text(Path(path).read_text(encoding="utf-8"))
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_library = "false"\nharness_scenarios = ["scenarios"]\n'
    )
    return pytester


def plain(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    options = ("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function")
    return project.runpytest(*options, *args)


@pytest.mark.parametrize(
    "value", ["session-referense", "exec:'x", "exec:harness-no-such-program", "no_such:make"]
)
def test_the_plugin_reports_a_bad_adapter_once_before_anything_runs(
    project: pytest.Pytester, value: str
) -> None:
    result = plain(project, f"--harness-adapter={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: harness:")]
    assert len(errors) == 1, result.stderr.str()
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


def test_the_plugin_says_when_no_scenario_was_checked(project: pytest.Pytester) -> None:
    project.makepyfile(
        adapters="class HistoryOnly:\n    layers = ('history',)\n\ndef make():\n"
        "    return HistoryOnly()\n"
    )
    project.syspathinsert()
    result = plain(project, "--harness-adapter=adapters:make")
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "2 scenarios of the session and driver layers left out: adapters:make implements history",
            "harness: every scenario was left out, so nothing was checked",
        ]
    )
    # another test that ran: the session checked something, the line still says what was not
    project.makepyfile(test_other="def test_other():\n    pass\n")
    result = plain(project, "--harness-adapter=adapters:make")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["harness: every scenario was left out, so nothing was checked"])


def test_the_plugin_says_when_every_scenario_was_skipped(project: pytest.Pytester) -> None:
    # an adapter from the fixture is known only when the items run: they are skips, not left out
    project.makeconftest(
        "import pytest\n\nclass HistoryOnly:\n    layers = ('history',)\n\n"
        "@pytest.fixture\ndef harness_adapter():\n    return 'adapters:make'\n"
    )
    project.makepyfile(
        adapters="from conftest import HistoryOnly\n\ndef make():\n    return HistoryOnly()\n"
    )
    project.syspathinsert()
    result = plain(project)
    result.assert_outcomes(skipped=2)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["harness: all 2 scenarios were skipped, so nothing was checked*"])
    project.makepyfile(test_other="def test_other():\n    pass\n")
    result = plain(project)
    result.assert_outcomes(passed=1, skipped=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["harness: all 2 scenarios were skipped*"])


def test_the_plugin_starts_an_exec_adapter_once_to_learn_its_layers(
    project: pytest.Pytester, tmp_path: Path
) -> None:
    """The hello that checks the process before anything runs also says its layers: the
    collection does not start it again to ask (every scenario here is of a layer it lacks)."""
    log = tmp_path / "starts.log"
    process = Path(__file__).parent.parent / "processes" / "history_process.py"
    wrapper = tmp_path / "history.sh"
    wrapper.write_text(f'#!/bin/sh\necho started >> "{log}"\nexec "{sys.executable}" "{process}"\n')
    wrapper.chmod(0o755)
    result = plain(project, f"--harness-adapter=exec:{wrapper}")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout.str()
    assert log.read_text().splitlines() == ["started"]


#: option values pytest's own parser lets through and the plugin must refuse
BAD_OPTIONS = st.one_of(
    st.sampled_from(["-1", "0", "nan", "inf", "1e400", "-0.0", "90000"]).map(
        lambda value: f"--harness-timeout={value}"
    ),
    st.sampled_from(["", " "]).map(lambda value: f"--harness-adapter={value}"),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12)
    .filter(lambda layer: layer not in ("session", "history", "driver"))
    .map(lambda layer: f"--harness-layer={layer}"),
    st.integers(max_value=0).map(lambda n: f"--harness-explore-examples={n}"),
)


@settings(
    deadline=None,
    max_examples=examples(8),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(option=BAD_OPTIONS)
def test_the_plugin_refuses_option_values_before_anything_runs(
    project: pytest.Pytester, option: str
) -> None:
    adapter = (
        () if option.startswith("--harness-adapter") else ("--harness-adapter=session-reference",)
    )
    result = plain(project, option, *adapter)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: harness:")]
    assert len(errors) == 1, result.stderr.str()
    assert option.split("=")[0] in errors[0] and "passed" not in result.stdout.str()


def test_harness_run_refuses_the_same_time_limits() -> None:
    for value in ("nan", "1e400", "-1"):
        code, _, err = run("run", HISTORY, "--adapter", "history-reference", "--timeout", value)
        assert code == EXIT_USAGE and "--timeout must be positive" in err, err
