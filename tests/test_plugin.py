"""The pytest plugin, run as a user runs it (pytester): adapters, selection, output, snapshots.

Most tests point the project at a copy of two library scenarios (one session, one driver) with
the built-in library switched off; the whole library goes through the plugin once, under xdist.
"""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections import Counter
from textwrap import dedent

# In-process runs drop the modules they import; hypothesis's plugin imports hypothesis at the end
# of each run, which then costs seconds of assertion rewriting every time unless it is loaded here.
import hypothesis  # noqa: F401
import pytest

from harness.adapters.registry import resolve_adapter
from harness.cli import main as harness_main
from harness.codecs import dialects
from harness.library import library_path
from harness.model import session as ev
from harness.replay import cases_to_run, replay
from harness.scenario import DriverScenario, Scenario, SessionScenario, load_scenario
from harness.scenario import cases as cases_module
from harness.scenario.cases import driver_cases, pairs_left_out
from harness.scenario.variations import session_cases
from tests.hostile.for_tests import driver_runs_held, long_call
from tests.projects_for_tests import outside_xdist, rule_table
from tests.scenarios_for_tests import as_session, load_every

MUTANT = "session-mutant-no-message-updated"

#: the scenarios most tests run: the mutant fails the first; the second is of the driver layer
PAIR = [
    load_scenario(library_path() / "session" / "backward-attachment-basic.yaml"),
    load_scenario(library_path() / "driver" / "text-before-tool-call.yaml"),
]
SESSION_ONE = as_session(PAIR[0])
#: a project's configuration: its scenarios/ folder, not the built-in library
SCENARIOS_INI = (
    '[tool.pytest.ini_options]\nharness_library = "false"\nharness_scenarios = ["scenarios"]\n'
)
#: the project's configuration for PAIR: its copies, and not the built-in library; each
#: scenario as written, one item each (the variations have tests of their own)
PAIR_INI = SCENARIOS_INI + 'harness_variations = "none"\n'
#: a conftest.py whose ``harness_adapter`` fixture gives the OpenAI Chat reference driver
CHAT_REFERENCE_FIXTURE = (
    "import pytest\n\n@pytest.fixture\ndef harness_adapter():\n"
    "    return 'driver-openai-chat-reference'\n"
)


def builtin_library() -> list[Scenario]:
    """Loaded only by the tests that need it: loading takes a while."""
    return load_every(library_path())


def failing_ids(adapter: str, scenarios: list[Scenario]) -> set[str]:
    return {s.id for s in scenarios if replay(s, adapter).status == "fail"}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An empty project with a tiny adapter module of its own."""
    outside_xdist(monkeypatch)
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
    common = ("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function")
    for run in ("runpytest", "runpytest_subprocess"):
        monkeypatch.setattr(pytester, run, functools.partial(getattr(pytester, run), *common))
    return pytester


@pytest.fixture
def pair(project: pytest.Pytester) -> pytest.Pytester:
    """The project with copies of PAIR in scenarios/, and the built-in library off."""
    folder = project.mkdir("scenarios")
    for scenario in PAIR:
        shutil.copy(scenario.path, folder)
    project.makepyprojecttoml(PAIR_INI)
    return project


@pytest.mark.slow
def test_the_whole_library_through_the_plugin_under_xdist_gives_what_replay_gives(project):
    """Both adapters on the command line, the built-in library collected by default, two workers:
    every item's outcome and the rule table agree with replaying the library directly."""
    library = builtin_library()
    session = [s for s in library if s.layer == "session"]
    # library scenarios of other layers: left out for these session-only adapters
    # (loop scenarios are served to whole programs: the harness_loop fixture, never collected)
    others = len([s for s in library if s.layer in ("history", "driver")])
    # every session scenario with its variations, one item each
    cases = cases_to_run(session, resolve_adapter("session-reference"))
    assert len(cases) > len(session)
    results = {
        adapter: [replay(c, adapter) for c in cases] for adapter in ("session-reference", MUTANT)
    }
    failing = {
        f"{r.scenario.id}[{MUTANT}]{r.scenario.case_id[len(r.scenario.id) :]}"
        for r in results[MUTANT]
        if r.status == "fail"
    }
    assert failing and not [r for r in results["session-reference"] if r.status == "fail"]
    result = project.runpytest_subprocess(
        "--harness-adapter=myadapters:good", f"--harness-adapter={MUTANT}", "-n", "2"
    )
    result.assert_outcomes(passed=2 * len(cases) - len(failing), failed=len(failing))
    for adapter in ("myadapters:good", MUTANT):
        result.stdout.fnmatch_lines(
            [
                f"{others} scenarios of the history and driver layers left out: {adapter} implements session"
            ]
        )
    failed = re.findall(r"^FAILED \S+::(\S+)", result.stdout.str(), re.M)
    assert sorted(failed) == sorted(failing)
    expected: Counter[tuple[str, str]] = Counter()
    for replayed in results.values():
        for r in replayed:
            for rule in r.rules_checked:
                if r.status in ("skip", "error"):
                    expected[rule, "skip"] += 1
                else:
                    expected[rule, "fail" if rule in r.rules_broken else "pass"] += 1
    # only the rules that checked something have a row
    rules = {rule for rule, status in expected if status != "skip"}
    assert rule_table(result.stdout.str()) == {
        rule: (expected[rule, "pass"], expected[rule, "fail"], expected[rule, "skip"])
        for rule in rules
    }


def test_command_line_adapter(pair):
    result = pair.runpytest("--harness-adapter=myadapters:good")
    # the driver scenario is left out for this session-only adapter, and said so once
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["1 scenario of the driver layer left out: myadapters:good implements session"]
    )
    table = rule_table(result.stdout.str())
    assert table["backward-attachment"] == (1, 0, 0)
    # no row for a rule that checked nothing; one line says how many
    assert "strict-assembly" not in table
    result.stdout.fnmatch_lines(["* rules of the history and driver layers checked no scenario"])


@pytest.mark.slow
def test_ini_adapter_brings_in_the_library(project):
    project.makepyprojecttoml('[tool.pytest.ini_options]\nharness_adapter = "myadapters:good"\n')
    result = project.runpytest("-k", SESSION_ONE.id)
    session = [
        s for s in builtin_library() if isinstance(s, SessionScenario) and s.layer == "session"
    ]
    # each scenario with its variations, one item each
    items = sum(len(session_cases(s)) for s in session)
    mine = len(session_cases(SESSION_ONE))
    result.assert_outcomes(passed=mine, deselected=items - mine)


def test_nothing_is_collected_without_an_adapter(project):
    project.makepyfile(test_plain="def test_one():\n    assert True\n")
    project.runpytest().assert_outcomes(passed=1)


def test_fixture_override_and_precedence(pair):
    assert failing_ids(MUTANT, PAIR) == {SESSION_ONE.id}
    pair.makepyprojecttoml(PAIR_INI + 'harness_adapter = "myadapters:good"\n')
    pair.makeconftest(
        f"import pytest\n\n@pytest.fixture\ndef harness_adapter():\n    return {MUTANT!r}\n"
    )
    # the overridden fixture beats the ini setting (its layers are known only when an item
    # runs: the driver scenario is a skip) ...
    pair.runpytest().assert_outcomes(failed=1, skipped=1)
    # ... and the command line beats the fixture
    pair.runpytest("--harness-adapter=myadapters:good").assert_outcomes(passed=1)


def test_several_adapters_give_one_item_per_scenario_and_adapter(pair):
    result = pair.runpytest(
        "--harness-adapter=myadapters:good", f"--harness-adapter={MUTANT}", "--collect-only", "-q"
    )
    ids = sorted(line.split("::", 1)[1] for line in result.stdout.lines if "::" in line)
    assert ids == sorted(f"{SESSION_ONE.id}[{a}]" for a in ("myadapters:good", MUTANT))


@pytest.mark.parametrize(
    ("option", "keep"),
    [
        ("--harness-layer=session", lambda s: s.layer == "session"),
        ("--harness-tag=order", lambda s: "order" in s.tags),
        ("--harness-rule=backward-attachment", lambda s: "backward-attachment" in s.rules),
    ],
)
def test_selection_by_layer_tag_and_rule(pair, option, keep):
    wanted = [s for s in PAIR if keep(s)]
    # each option keeps one of the two
    assert len(wanted) == 1
    runnable = [s for s in wanted if s.layer == "session"]
    result = pair.runpytest("--harness-adapter=myadapters:good", option, "-v")
    result.assert_outcomes(passed=len(runnable))
    if runnable:
        result.stdout.fnmatch_lines([f"*::{wanted[0].id}*"])


def test_keyword_selection_by_scenario_id(pair):
    expression = "(basic or before) and not tool"
    matching = [s for s in PAIR if ("basic" in s.id or "before" in s.id) and "tool" not in s.id]
    assert matching == [SESSION_ONE]
    result = pair.runpytest("--harness-adapter=myadapters:good", "-k", expression)
    result.assert_outcomes(passed=1)


def test_scenarios_of_a_layer_the_adapter_lacks_are_left_out_with_one_line(pair):
    result = pair.runpytest("--harness-adapter=myadapters:driver_only", "-rs")
    # the driver scenario is for it (and skips: it names no dialect); the session one is not
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["1 scenario of the session layer left out: myadapters:driver_only implements driver"]
    )


def test_a_fixtures_adapter_lacking_a_layer_skips_with_the_reason(pair):
    pair.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef harness_adapter():\n"
        "    return 'myadapters:driver_only'\n"
    )
    result = pair.runpytest("-rs")
    result.assert_outcomes(skipped=len(PAIR))
    result.stdout.fnmatch_lines(["*needs the session layer; the adapter implements: driver*"])


def test_failure_shows_rule_event_line_excerpt_and_a_command_that_reproduces_it(pair, capsys):
    scenario = load_scenario(pair.path / "scenarios" / f"{SESSION_ONE.id}.yaml")
    expected = replay(scenario, MUTANT)
    (violation,) = expected.violations
    line = expected.line_of(violation)
    result = pair.runpytest(f"--harness-adapter={MUTANT}")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"[backward-attachment] event {violation.event_index}, {scenario.path}:{line}" in out
    assert re.search(rf">\s+{violation.event_index}\s+line {line}\s+tool_completed", out)
    # run as python -m, with the file named from where pytest ran
    command = re.search(r"python -m harness run (\S+) --adapter (\S+)", out)
    assert command and command.groups() == (f"scenarios/{SESSION_ONE.id}.yaml", MUTANT)
    # each reproduce command replays that failure on its own
    assert harness_main(["run", command.group(1), "--adapter", command.group(2)]) == 1
    assert "[backward-attachment]" in capsys.readouterr().out
    pytest_line = re.search(
        r"python -m pytest (--harness-adapter=\S+) (--harness-scenario=\S+)", out
    )
    assert pytest_line and pytest_line.group(2) == f"--harness-scenario={scenario.id}"
    again = pair.runpytest(pytest_line.group(1), pytest_line.group(2))
    again.assert_outcomes(failed=1)


def test_the_pytest_command_for_a_configured_adapter_keeps_the_node_id_so_lf_finds_it(pair):
    pair.makepyprojecttoml(PAIR_INI + f'harness_adapter = "{MUTANT}"\n')
    # --lf needs the cache, which this module's runs otherwise switch off
    first = pair.runpytest("-p", "cacheprovider")
    first.assert_outcomes(failed=1)
    # once in the failure, and again in the short summary where it is not cut (CI=true)
    (command,) = set(re.findall(r"^  (python -m pytest .*)$", first.stdout.str(), re.M))
    assert (
        command == f"python -m pytest --harness-scenario={SESSION_ONE.id} --harness-variations=none"
    )
    failed = re.findall(r"^FAILED (\S+)", first.stdout.str(), re.M)
    again = pair.runpytest("-p", "cacheprovider", "--lf", *command.split()[3:], "-v")
    again.assert_outcomes(failed=1)
    assert re.findall(r"^FAILED (\S+)", again.stdout.str(), re.M) == failed
    again.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*"])


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
        "--harness-variations=none",
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
    stopped = project.runpytest()
    stopped.assert_outcomes(errors=1)
    stopped.stdout.fnmatch_lines(["*broken.yaml:7: error: unknown event type 'tool_explode'*"])
    result = project.runpytest("-v", "--continue-on-collection-errors")
    # a scenario of one's own runs under its variations too: as written, observed after every
    # event, and with its one two-character delta split
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*my_scenarios/mine.yaml::my-first-scenario PASSED*",
            "*my_scenarios/mine.yaml::my-first-scenario[[]every-event[]] PASSED*",
            "*my_scenarios/mine.yaml::my-first-scenario[[]split-deltas[]] PASSED*",
        ]
    )


def test_junitxml_names_the_scenarios(pair):
    pair.runpytest("--harness-adapter=myadapters:good", "--junitxml=out.xml")
    xml = (pair.path / "out.xml").read_text()
    assert f'name="{SESSION_ONE.id}[myadapters:good]"' in xml


def test_snapshots_are_created_compared_updated_and_unused_ones_reported(pair):
    pair.makepyprojecttoml(
        PAIR_INI + 'harness_adapter = "myadapters:good"\nharness_snapshots = true\n'
    )
    pair.runpytest("--snapshot-update").assert_outcomes(passed=1)
    # one per replayed scenario: the driver scenario, left out, has none
    folder = pair.path / "__snapshots__" / "harness"
    assert [p.name for p in folder.iterdir()] == [f"{SESSION_ONE.id}.yaml"]
    snapshot = folder / f"{SESSION_ONE.id}.yaml"
    text = snapshot.read_text()
    first_call = next(e for e in SESSION_ONE.trace if isinstance(e, ev.ToolCompleted)).calls[0]
    assert "notifications: []" in text and f"id: {first_call.id}" in text
    pair.runpytest().assert_outcomes(passed=1)
    # a changed snapshot fails, and --snapshot-update puts it right
    snapshot.write_text(text.replace("role: assistant", "role: thought", 1))
    pair.runpytest().assert_outcomes(failed=1)
    updated = pair.runpytest("--snapshot-update")
    updated.stdout.fnmatch_lines(["*1 snapshot updated*"])
    assert snapshot.read_text() == text
    # a snapshot no scenario uses any more is reported, and deleted on update
    (folder / "gone-scenario.yaml").write_text("{}\n")
    pair.runpytest().stdout.fnmatch_lines(["*1 snapshot unused*"])
    pair.runpytest("--snapshot-update").stdout.fnmatch_lines(["*Deleted gone-scenario*"])
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
    project.runpytest("--snapshot-update").assert_outcomes(passed=1)
    written = list((project.path / "__snapshots__").rglob("*.yaml"))
    assert len(written) == 1 and "sessions:" in written[0].read_text()
    project.runpytest().assert_outcomes(passed=1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("sys.exit(3)", "exited (code 3)"),
        ("print('garbage', flush=True)", "not JSON: 'garbage'"),
        ("time.sleep(60)", "did not return within 1s"),
    ],
    ids=["crash", "garbage", "hang"],
)
def test_out_of_process_adapter_that_misbehaves_fails_its_item(pair, behaviour, words):
    pair.makepyfile(
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
    result = pair.runpytest(
        f"--harness-adapter={command}",
        f"--harness-scenario={SESSION_ONE.id}",
        "--harness-timeout=1",
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "the adapter misbehaved" in out and words in out


def test_a_ui_protocols_producer_variant_is_an_item_selected_and_reproduced_by_name(project):
    # the plugin makes the same cases as harness run: for a consumer of AG-UI, the scenario
    # under each producer variant of its dialect, selected by --harness-variations
    args = (
        "--harness-adapter=session-mutant-ag-ui-chunks-ignored",
        "--harness-scenario=tool-first-turn",
        "-p",
        "no:cacheprovider",
    )
    collected = project.runpytest(*args, "--collect-only", "-q")
    collected.stdout.fnmatch_lines(["*tool-first-turn*chunk-events?"])
    result = project.runpytest(*args, "--harness-variations=chunk-events")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*--harness-variations=chunk-events*"])


def test_pytest_says_what_a_long_turn_left_out(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's items are the same cases, and its summary says the same note, once."""
    long_call(project.path / "scenarios")
    project.makepyprojecttoml(SCENARIOS_INI)
    adapter = "--harness-adapter=driver-openai-chat-reference"
    every = project.runpytest(adapter)
    assert "run only for turns up to" not in every.stdout.str()
    pairs = every.parseoutcomes()["passed"]
    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 10_000)
    result = project.runpytest(adapter)
    singles = result.parseoutcomes()["passed"]
    assert 1 < singles < pairs
    result.stdout.fnmatch_lines(
        ["long (openai-chat): a turn of 0.0 MB runs each quirk alone; its pairs of quirks *"]
    )
    assert result.stdout.str().count("runs each quirk alone") == 1


def test_pytest_says_what_a_long_turn_left_out_with_the_fixture_s_adapter(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter the overridden ``harness_adapter`` fixture gives is known only when the item
    runs, so the item finds its cases then: the summary said nothing of the pairs it left
    out. One item runs every case, and a quirk that leaves the long turn as written does not
    make it a skip."""
    long_call(project.path / "scenarios")
    project.makepyprojecttoml(SCENARIOS_INI)
    project.makeconftest(CHAT_REFERENCE_FIXTURE)
    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 10_000)
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["long (openai-chat): a turn of 0.0 MB runs each quirk alone; its pairs of quirks *"]
    )
    assert result.stdout.str().count("runs each quirk alone") == 1


def test_pytest_under_xdist_says_what_a_long_turn_left_out(project: pytest.Pytester) -> None:
    """The workers collect; the controller, which prints the summary, does not."""
    path = long_call(project.path / "scenarios", size=1_100_000)
    project.makepyprojecttoml(SCENARIOS_INI)
    long_turn = load_scenario(path)
    assert isinstance(long_turn, DriverScenario)
    codec = dialects()["openai-chat"]
    singles = len(driver_cases(long_turn, codec))
    assert pairs_left_out(long_turn, codec) is not None
    result = project.runpytest_subprocess(
        "--harness-adapter=driver-openai-chat-reference", "-n", "2"
    )
    outcomes = result.parseoutcomes()  # a quirk that leaves the stream as written: a skip
    assert outcomes["passed"] + outcomes["skipped"] == singles and "failed" not in outcomes
    result.stdout.fnmatch_lines(["long (openai-chat): a turn of 1.1 MB runs each quirk alone; *"])
    assert result.stdout.str().count("runs each quirk alone") == 1


def test_pytest_under_xdist_says_what_the_fixture_s_long_turns_left_out(
    project: pytest.Pytester,
) -> None:
    """With the fixture's adapter the worker that runs an item finds its cases: the controller
    took the notes of the first worker to finish, and lost the other's."""
    path = long_call(project.path / "scenarios", size=1_100_000)
    path.with_name("other.yaml").write_text(path.read_text().replace("id: long", "id: other"))
    project.makepyprojecttoml(SCENARIOS_INI)
    project.makeconftest(CHAT_REFERENCE_FIXTURE)
    result = project.runpytest_subprocess("-n", "2")
    result.assert_outcomes(passed=2)
    text = result.stdout.str()
    for name in ("long", "other"):
        assert text.count(f"{name} (openai-chat): a turn of 1.1 MB runs each quirk alone") == 1


def test_pytest_holds_no_case_s_outputs_once_its_item_is_reported(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item kept its results in its stash for the whole session: every case's stream and
    outputs, tens of megabytes each for a long turn. Once the item is reported they go."""
    long_call(project.path / "scenarios", size=2_000)
    project.makepyprojecttoml(SCENARIOS_INI)
    alive = driver_runs_held(monkeypatch)  # earlier cases held as each starts
    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 1_000)  # single quirks: a few cases
    result = project.runpytest("--harness-adapter=driver-openai-chat-reference")
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes.get("skipped", 0) == len(alive) and outcomes["passed"] > 5
    assert not any(alive), alive
