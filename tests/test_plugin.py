"""The pytest plugin, run as a user runs it (pytester): adapters, selection, output, snapshots."""

from __future__ import annotations

import functools
import re
import sys
from textwrap import dedent

import pytest

from harness.cli import main as harness_main
from harness.library import library_path
from harness.replay import replay
from harness.scenario import load_all

LIBRARY, _ = load_all([library_path()])
SESSION = [s for s in LIBRARY if s.layer == "session"]
#: library scenarios of other layers, skipped for a session-only adapter
OTHERS = len(LIBRARY) - len(SESSION)
MUTANT = "session-mutant-no-message-updated"


def failing_ids(adapter: str) -> set[str]:
    return {s.id for s in SESSION if replay(s, adapter).status == "fail"}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An empty project with a tiny adapter module of its own."""
    # runs in this process: it must not think it is a worker of this suite's own xdist run
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(
        myadapters=dedent(
            """\
            from harness import ReferenceSessionConsumer

            def good():
                return ReferenceSessionConsumer()

            class DriverOnly:
                layers = ("driver",)

            def driver_only():
                return DriverOnly()
            """
        )
    )
    pytester.syspathinsert()
    # pytest-asyncio asks every project to choose its fixture loop scope; these ones do
    scope = ("-o", "asyncio_default_fixture_loop_scope=function")
    pytester.runpytest = functools.partial(pytester.runpytest, *scope)  # type: ignore[method-assign]
    pytester.runpytest_subprocess = functools.partial(pytester.runpytest_subprocess, *scope)  # type: ignore[method-assign]
    return pytester


def test_command_line_adapter_runs_the_whole_library(project):
    result = project.runpytest("--harness-adapter=myadapters:good", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(SESSION), skipped=OTHERS)
    result.stdout.fnmatch_lines(["*conformance by rule*", "backward-attachment * 0 * 0"])


def test_ini_adapter(project):
    project.makepyprojecttoml('[tool.pytest.ini_options]\nharness_adapter = "myadapters:good"\n')
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=len(SESSION), skipped=OTHERS)


def test_nothing_is_collected_without_an_adapter(project):
    project.makepyfile(test_plain="def test_one():\n    assert True\n")
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_fixture_override_and_precedence(project):
    expected_failures = len(failing_ids(MUTANT))
    assert expected_failures > 0
    project.makepyprojecttoml('[tool.pytest.ini_options]\nharness_adapter = "myadapters:good"\n')
    project.makeconftest(
        f"import pytest\n\n@pytest.fixture\ndef harness_adapter():\n    return {MUTANT!r}\n"
    )
    # the overridden fixture beats the ini setting ...
    fixture_run = project.runpytest("-p", "no:cacheprovider")
    fixture_run.assert_outcomes(
        passed=len(SESSION) - expected_failures, failed=expected_failures, skipped=OTHERS
    )
    # ... and the command line beats the fixture
    cli_run = project.runpytest("--harness-adapter=myadapters:good", "-p", "no:cacheprovider")
    cli_run.assert_outcomes(passed=len(SESSION), skipped=OTHERS)


def test_several_adapters_give_one_item_per_scenario_and_adapter(project):
    result = project.runpytest(
        "--harness-adapter=myadapters:good",
        f"--harness-adapter={MUTANT}",
        "-p",
        "no:cacheprovider",
        "--collect-only",
        "-q",
    )
    ids = [line for line in result.stdout.lines if "::" in line]
    assert len(ids) == 2 * len(LIBRARY)
    some = SESSION[0].id
    assert any(line.endswith(f"::{some}[myadapters:good]") for line in ids)
    assert any(line.endswith(f"::{some}[{MUTANT}]") for line in ids)


@pytest.mark.parametrize(
    ("option", "keep"),
    [
        ("--harness-layer=session", lambda s: s.layer == "session"),
        ("--harness-tag=resume", lambda s: "resume" in s.tags),
        ("--harness-rule=streamed-tool-results", lambda s: "streamed-tool-results" in s.rules),
    ],
)
def test_selection_by_layer_tag_and_rule(project, option, keep):
    wanted = [s for s in LIBRARY if keep(s)]
    runnable = [s for s in wanted if s.layer == "session"]
    assert runnable
    result = project.runpytest(
        "--harness-adapter=myadapters:good", option, "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=len(runnable), skipped=len(wanted) - len(runnable))


def test_keyword_selection_by_scenario_id(project):
    expression = "tool-first-turn and not subsession"
    matching = [s for s in LIBRARY if "tool-first-turn" in s.id and "subsession" not in s.id]
    runnable = [s for s in matching if s.layer == "session"]
    assert runnable
    result = project.runpytest(
        "--harness-adapter=myadapters:good", "-k", expression, "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=len(runnable), skipped=len(matching) - len(runnable))


def test_layer_the_adapter_lacks_is_skipped_with_the_reason(project):
    result = project.runpytest(
        "--harness-adapter=myadapters:driver_only", "-rs", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(skipped=len(LIBRARY))
    result.stdout.fnmatch_lines(["*needs the session layer; the adapter implements: driver*"])


def test_failure_shows_rule_event_line_excerpt_and_a_command_that_reproduces_it(project, capsys):
    scenario = next(s for s in SESSION if s.id == "backward-attachment-basic")
    expected = replay(scenario, MUTANT)
    (violation,) = expected.violations
    result = project.runpytest(
        f"--harness-adapter={MUTANT}", "-k", "backward-attachment-basic", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert (
        f"[backward-attachment] event {violation.event_index}, {scenario.path}:{expected.line_of(violation)}"
        in out
    )
    assert re.search(
        rf">\s+{violation.event_index}\s+line {expected.line_of(violation)}\s+tool_completed", out
    )
    command = re.search(r"harness run (\S+) --adapter (\S+)", out)
    assert command and command.group(1) == scenario.path
    # each reproduce command replays that failure on its own
    assert harness_main(["run", command.group(1), "--adapter", command.group(2)]) == 1
    assert "[backward-attachment]" in capsys.readouterr().out
    pytest_line = re.search(
        r"python -m pytest (--harness-adapter=\S+) (--harness-scenario=\S+)", out
    )
    assert pytest_line and pytest_line.group(2) == f"--harness-scenario={scenario.id}"
    again = project.runpytest(pytest_line.group(1), pytest_line.group(2), "-p", "no:cacheprovider")
    again.assert_outcomes(failed=1)


def test_a_failing_scenario_raises_a_conformance_failure_carrying_its_result(project):
    from harness import ConformanceFailure
    from harness.report import render_failure, reproduce_commands

    class Catch:
        def __init__(self) -> None:
            self.raised: list[BaseException] = []

        def pytest_exception_interact(self, node, call, report):
            self.raised.append(call.excinfo.value)

    catch = Catch()
    run = project.inline_run(
        f"--harness-adapter={MUTANT}",
        "--harness-scenario=backward-attachment-basic",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "-p",
        "no:cacheprovider",
        plugins=[catch],
    )
    run.assertoutcome(failed=1)
    (failure,) = catch.raised
    assert isinstance(failure, ConformanceFailure) and isinstance(failure, AssertionError)
    assert (failure.result.scenario.id, failure.result.status) == (
        "backward-attachment-basic",
        "fail",
    )
    # what pytest shows is the report alone, no traceback of the plugin's frames
    (report,) = [r for r in run.getreports("pytest_runtest_logreport") if r.failed]
    commands = reproduce_commands(failure.result, MUTANT, pytest=True)
    assert str(report.longrepr) == str(failure) == render_failure(failure.result, commands)


def test_own_scenario_folder_and_its_errors(project):
    folder = project.mkdir("my_scenarios")
    (folder / "mine.yaml").write_text(
        dedent(
            """\
            id: my-first-scenario
            title: mine
            description: one tool after a message
            source: our own bug tracker
            layer: session
            trace:
              - message: {id: m1, text: "ok"}
              - tool: {id: t1, name: lookup, result: "x"}
            """
        )
    )
    (folder / "broken.yaml").write_text(
        "id: broken\ntitle: b\ndescription: b\nsource: b\nlayer: session\ntrace:\n  - tool_explode: {}\n"
    )
    project.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_adapter = "myadapters:good"\nharness_library = "false"\n'
        'harness_scenarios = ["my_scenarios"]\n'
    )
    # a broken scenario file is a collection error, which stops the run as a broken test
    # module does; the message locates the problem
    stopped = project.runpytest("-p", "no:cacheprovider")
    stopped.assert_outcomes(errors=1)
    stopped.stdout.fnmatch_lines(["*broken.yaml:7: error: unknown event type 'tool_explode'*"])
    result = project.runpytest("-p", "no:cacheprovider", "-v", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*my_scenarios/mine.yaml::my-first-scenario*PASSED*"])


def test_junitxml_names_the_scenarios(project):
    project.runpytest(
        "--harness-adapter=myadapters:good",
        "-k",
        "tool-first-turn",
        "--junitxml=out.xml",
        "-p",
        "no:cacheprovider",
    )
    xml = (project.path / "out.xml").read_text()
    assert 'name="tool-first-turn[myadapters:good]"' in xml


def test_snapshots_are_created_compared_updated_and_unused_ones_reported(project):
    project.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_adapter = "myadapters:good"\nharness_snapshots = true\n'
    )
    quiet = ["-p", "no:cacheprovider"]
    project.runpytest("--snapshot-update", *quiet).assert_outcomes(
        passed=len(SESSION), skipped=OTHERS
    )
    folder = project.path / "__snapshots__" / "harness"
    assert sorted(p.stem for p in folder.iterdir()) == sorted(s.id for s in SESSION)
    snapshot = folder / "tool-first-turn.yaml"
    text = snapshot.read_text()
    scenario = next(s for s in SESSION if s.id == "tool-first-turn")
    first_call = next(e for e in scenario.trace if e.kind == "tool_completed").calls[0]
    assert "notifications: []" in text and f"id: {first_call.id}" in text
    project.runpytest(*quiet).assert_outcomes(passed=len(SESSION), skipped=OTHERS)
    # a changed snapshot fails, and --snapshot-update puts it right
    snapshot.write_text(text.replace("role: assistant", "role: thought", 1))
    project.runpytest("-k", "tool-first-turn and not subsession", *quiet).assert_outcomes(failed=1)
    updated = project.runpytest(
        "--snapshot-update", "-k", "tool-first-turn and not subsession", *quiet
    )
    updated.stdout.fnmatch_lines(["*1 snapshot updated*"])
    assert snapshot.read_text() == text
    # a snapshot no scenario uses any more is reported, and deleted on update
    (folder / "gone-scenario.yaml").write_text("{}\n")
    project.runpytest(*quiet).stdout.fnmatch_lines(["*1 snapshot unused*"])
    project.runpytest("--snapshot-update", *quiet).stdout.fnmatch_lines(["*Deleted gone-scenario*"])
    assert not (folder / "gone-scenario.yaml").exists()


def test_snapshot_assertion_in_a_users_own_test(project):
    project.makepyfile(
        test_mine=dedent(
            """\
            from harness import load_scenario, replay
            from harness.library import library_path

            def test_observation(harness_snapshot):
                scenario = load_scenario(library_path() / "session" / "tool-first-turn.yaml")
                result = replay(scenario, "session-reference")
                assert result.observation == harness_snapshot
            """
        )
    )
    project.runpytest("--snapshot-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    written = list((project.path / "__snapshots__").rglob("*.yaml"))
    assert len(written) == 1 and "sessions:" in written[0].read_text()
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_xdist_gives_the_same_results(project):
    failing = failing_ids(MUTANT)
    result = project.runpytest_subprocess(
        f"--harness-adapter={MUTANT}", "-n", "2", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=len(SESSION) - len(failing), failed=len(failing), skipped=OTHERS)
    failed = set(re.findall(r"FAILED \S+::(\S+)\[", result.stdout.str()))
    assert failed == failing
    result.stdout.fnmatch_lines(["*conformance by rule*"])


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("sys.exit(3)", "exited (code 3)"),
        ("print('garbage', flush=True)", "not JSON: 'garbage'"),
        ("time.sleep(60)", "did not return within 1s"),
    ],
    ids=["crash", "garbage", "hang"],
)
def test_out_of_process_adapter_that_misbehaves_fails_its_item(project, behaviour, words):
    project.makepyfile(
        consumer=dedent(
            f"""\
            import json, sys, time

            for line in sys.stdin:
                request = json.loads(line)
                if request["op"] == "hello":
                    print(json.dumps({{"ok": True, "protocol": 1, "layers": ["session"]}}), flush=True)
                elif request["op"] == "feed":
                    {behaviour}
                else:
                    print(json.dumps({{"ok": True}}), flush=True)
            """
        )
    )
    command = f"exec:{sys.executable} consumer.py"
    result = project.runpytest(
        f"--harness-adapter={command}",
        "--harness-scenario=backward-attachment-basic",
        "--harness-timeout=1",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "the adapter misbehaved" in out and words in out
