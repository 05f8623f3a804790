"""``harness matrix``: real consumer libraries over every quirk case of the driver scenarios, their
causes grouped into explained bugs, the parts environments write and their merge, and the
committed docs/conformance.md and docs/conformance.json.

Whether the committed document is current is CI's check: ``make matrix`` runs every environment
(noxfile.py) and CI fails on a difference from the committed files. For a new cause, write what
the library did in harness/adapters/libs/explanations/ and its script in docs/reproductions/.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import harness.adapters.libs
import harness.matrix
from harness.adapters.libs import LIBRARIES, Library, libraries
from harness.adapters.libs.explanations import (
    _REGISTERED,
    Explanation,
    Match,
    all_explanations,
    explanations,
)
from harness.adapters.loop.frameworks import FRAMEWORK_LOOPS, FrameworkLoop, LoopDialect
from harness.adapters.loop.frameworks.explanations import _REGISTERED as loop_explanations_registry
from harness.adapters.loop.frameworks.explanations import LoopExplanation, all_loop_explanations
from harness.adapters.process import DriverFailed, ProcessAdapter, ProcessFactory
from harness.adapters.registry import resolve_adapter
from harness.cli import main
from harness.codecs.registry import dialects
from harness.demo import render_libraries
from harness.loop import judge
from harness.loop.find import find_loop_scenario, loop_scenarios
from harness.loop.frameworks import FrameworkRun, loop_problems, run_frameworks
from harness.matrix import (
    LibraryRun,
    cause_json,
    document,
    merge,
    problems,
    render_json,
    render_markdown,
    render_summary,
    run_libraries,
)
from harness.model.driver import TextOut
from harness.model.loop import LoopRequest, ProgramOutcome, StreamedTurn
from harness.rules.loop import LoopFacts
from harness.rules.registry import RULES
from harness.scenario import load_scenario
from harness.scenario.cases import NONE
from harness.scenario.variations import VARIATIONS

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "scenarios" / "driver"
COMMITTED_JSON = ROOT / "docs" / "conformance.json"
COMMITTED_MD = ROOT / "docs" / "conformance.md"

#: a library no environment has
GHOST = Library(
    "ghost", "ghost_lib.adapter:make_adapter", ("ghost_lib_not_here",), ("ghost-lib",), "ghost"
)
#: a "library" with one known bug: a bundled driver mutant that emits text after its calls
MUTANT = Library(
    "mutant", "driver-mutant-anthropic-text-after-calls", ("harness",), ("streamharness",)
)
#: a Node.js library in a folder of its own: the Node helper's example driver over its stand-in
#: for openai-node, the helper's package resolving from its own folder
NODE = Library(
    "node-example",
    "exec:node js/streamharness/examples/openai-chat.mjs",
    ("streamharness",),
    ("streamharness",),
    extra="node",
    runtime="node",
    folder="js/streamharness",
)
#: the scenario that shows the mutant's bug, and one it passes
SHOWS = "text-before-tool-call"
PASSES = "empty-text-block-before-tool-call"


def scenarios(*names: str) -> list[Any]:
    return [load_scenario(DRIVER / f"{name}.yaml") for name in names]


@pytest.fixture(scope="module")
def mutant_run() -> LibraryRun:
    (run,) = run_libraries(scenarios(SHOWS, PASSES), [MUTANT])
    return run


@pytest.fixture
def explained(monkeypatch: pytest.MonkeyPatch) -> Explanation:
    """The mutant's bug, explained for the length of a test."""
    explanations("mutant")  # the package's own explanations are loaded first
    bug = Explanation(
        library="mutant", id="text-after-calls", text="It emits the text after the calls."
    )
    monkeypatch.setitem(_REGISTERED, "mutant", [bug])
    return bug


def test_a_library_that_is_not_installed_is_listed_with_its_extra() -> None:
    (run,) = run_libraries(scenarios(PASSES), [GHOST])
    assert (run.installed, run.contract, run.results) == (False, None, ())
    assert document([run]) == {
        "libraries": [
            {
                "name": "ghost",
                "version": None,
                "adapter": "ghost_lib.adapter:make_adapter",
                "runtime": "python",
                "extra": "ghost",
                "layer": "driver",
                "contract": None,
                "install": "pip install 'streamharness[ghost]'",
            }
        ]
    }
    assert "not installed: pip install 'streamharness[ghost]'" in render_summary([run])
    markdown = render_markdown(document([run]))
    assert "| ghost | not installed: `pip install 'streamharness[ghost]'` |" in markdown


def need_node() -> None:
    if shutil.which("node") is None and not os.environ.get("CI"):
        pytest.skip("node is not installed (CI installs it)")


def test_a_node_library_resolves_its_packages_from_its_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need_node()
    monkeypatch.chdir(ROOT)  # its folder is relative to the project root
    helper = json.loads((ROOT / "js" / "streamharness" / "package.json").read_text())
    assert NODE.installed() and NODE.version() == helper["version"]
    # the project root has no node_modules, and is no package of that name
    assert not dataclasses.replace(NODE, folder=None).installed()
    absent = dataclasses.replace(NODE, folder="js/libs/absent")
    assert not absent.installed() and absent.version() is None


def test_a_node_library_runs_from_the_project_root(monkeypatch: pytest.MonkeyPatch) -> None:
    need_node()
    monkeypatch.chdir(ROOT)  # where its adapter command's path starts
    (run,) = run_libraries(scenarios(PASSES), [NODE], quirks=NONE)
    assert run.version is not None and run.contract == "per-message"
    assert [r.status for r in run.results] == ["pass"]


def test_a_node_library_is_installed_with_npm_and_reproduced_by_node_scripts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = dataclasses.replace(NODE, name="absent", folder="js/libs/absent")
    assert absent.install_hint() == "npm ci --prefix js/libs/absent"
    (record,) = document([LibraryRun(absent, None, None, ())])["libraries"]
    assert record["install"] == "npm ci --prefix js/libs/absent"
    monkeypatch.setattr(harness.adapters.libs, "LIBRARIES", (*LIBRARIES, NODE))
    bug = Explanation(library="node-example", id="a-bug", text="t")
    assert bug.reproduction.as_posix() == "docs/reproductions/node-example/a-bug.mjs"
    assert dataclasses.replace(bug, library="mutant").reproduction.suffix == ".py"


def test_the_matrix_runs_every_quirk_case(mutant_run: LibraryRun) -> None:
    written = len(scenarios(SHOWS, PASSES))
    assert len(mutant_run.results) > 10 * written
    added = {quirk for r in mutant_run.results for quirk in r.scenario.added}
    assert len(added) > len(dialects()["anthropic"].quirks) / 2


def test_causes_no_explanation_covers_are_listed_and_refused(mutant_run: LibraryRun) -> None:
    bugs, unexplained = mutant_run.bugs()
    assert bugs == []
    assert unexplained and {c.scenario for c in unexplained} == {SHOWS}
    entry = mutant_run.to_json()
    assert len(entry["unexplained"]) == len(unexplained)  # type: ignore[arg-type]
    found = problems([mutant_run])
    assert len(found) == len(unexplained)
    assert all(p.startswith(f"mutant: cause {SHOWS}:") and "not explained" in p for p in found)
    assert "### Not explained yet" in render_markdown(document([mutant_run]))


def test_an_explanation_groups_the_causes_it_covers(
    mutant_run: LibraryRun, explained: Explanation
) -> None:
    bugs, unexplained = mutant_run.bugs()
    assert unexplained == []
    (bug,) = bugs
    assert bug.explanation == explained
    assert len(bug.causes) == len(mutant_run.causes())
    assert sum(len(c.cases) for c in bug.causes) == len(mutant_run.failed_results())
    assert problems([mutant_run]) == []
    record = bug.to_json()
    assert record["reproduction"] == "docs/reproductions/mutant/text-after-calls.py"
    assert record["cases"] == len(mutant_run.failed_results())
    markdown = render_markdown(document([mutant_run]))
    assert "- **text-after-calls** (`" in markdown
    assert "It emits the text after the calls. Reproduced by" in markdown


def test_an_explanation_that_covers_no_cause_is_refused(
    mutant_run: LibraryRun, monkeypatch: pytest.MonkeyPatch, explained: Explanation
) -> None:
    idle = Explanation(
        scenarios=frozenset({PASSES}), library="mutant", id="never", text="Never happens."
    )
    monkeypatch.setitem(_REGISTERED, "mutant", [idle, explained])
    assert problems([mutant_run]) == ["mutant: explanation 'never' covers no cause of this run"]


@pytest.mark.parametrize(
    ("explanation", "triggers", "covered"),
    [
        (Explanation(library="l", id="a", text="t"), ((),), True),
        (Explanation(library="l", id="a", text="t", quirks=frozenset({"no_index"})), ((),), False),
        (
            Explanation(library="l", id="a", text="t", quirks=frozenset({"no_index"})),
            (("no_index",),),
            True,
        ),
        # every smallest quirk set must hold one of the quirks
        (
            Explanation(library="l", id="a", text="t", quirks=frozenset({"no_index"})),
            (("no_index",), ("keep_alive",)),
            False,
        ),
        (Explanation(library="l", id="a", text="t", as_written=True), (("no_index",),), False),
        (Explanation(library="l", id="a", text="t", as_written=False), (("no_index",),), True),
        (Explanation(library="l", id="a", text="t", scenarios=frozenset({"other"})), ((),), False),
        (
            Explanation(library="l", id="a", text="t", rules=frozenset({"parallel-apart"})),
            ((),),
            False,
        ),
        # one bug as a scenario as written, and elsewhere under a quirk
        (
            Explanation(
                scenarios=frozenset({"other"}),
                alternatives=(Match(quirks=frozenset({"no_index"})),),
                library="l",
                id="a",
                text="t",
            ),
            (("no_index",),),
            True,
        ),
    ],
)
def test_what_an_explanation_covers(
    explanation: Explanation, triggers: tuple[tuple[str, ...], ...], covered: bool
) -> None:
    assert explanation.covers("s", "strict-assembly", triggers) is covered


def test_every_explanation_names_what_exists() -> None:
    names = {library.name: library for library in libraries()}
    # a driver library's causes are brought out by quirks, a session library's by variations
    known_scenarios = {
        layer: {path.stem for path in (ROOT / "scenarios" / layer).glob("*.yaml")}
        for layer in ("driver", "session")
    }
    quirks = {
        "driver": {q for codec in dialects().values() for q in codec.quirks},
        "session": set(VARIATIONS),
    }
    wrong = []
    for e in all_explanations():
        if e.library not in names:
            wrong.append(f"{e.library}/{e.id}: no such library")
            continue
        layer = names[e.library].layer
        wrong += [
            f"{e.library}/{e.id}: no {layer} scenario {s}"
            for s in (e.scenarios or set()) - known_scenarios[layer]
        ]
        wrong += [f"{e.library}/{e.id}: no rule {r}" for r in (e.rules or ()) if r not in RULES]
        wrong += [f"{e.library}/{e.id}: no quirk {q}" for q in (e.quirks or set()) - quirks[layer]]
    assert not wrong


def test_the_json_document_and_the_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(harness.matrix, "all_libraries", lambda: (GHOST, MUTANT))
    monkeypatch.setattr(harness.matrix, "driver_scenarios", lambda: scenarios(SHOWS))
    out = tmp_path / "part.json"
    assert main(["matrix", "--library", "mutant", "--format", "json", "--out", str(out)]) == 0
    assert main(["matrix", "--library", "mutant", "--check", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out) == json.loads(out.read_text(encoding="utf-8"))
    assert captured.err.startswith(f"matrix: mutant: cause {SHOWS}:")
    (entry,) = json.loads(captured.out)["libraries"]
    assert set(entry) == {
        "name", "version", "adapter", "runtime", "extra", "layer", "contract", "cases", "bugs",
        "unexplained",
    }  # fmt: skip
    assert entry["cases"]["first-party"]["fail"] + entry["cases"]["gateway"]["fail"] > 0


def test_unknown_library_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--library", "nope"]) == 2
    assert "--library: no library named nope" in capsys.readouterr().err


def entry(name: str, version: str | None = "1.0") -> dict[str, Any]:
    return {"name": name, "version": version, "adapter": "x:y", "contract": "per-call"}


def test_merge_orders_the_libraries_and_fills_the_missing() -> None:
    first, second = LIBRARIES[0].name, LIBRARIES[1].name
    merged = merge([{"libraries": [entry(second)]}, {"libraries": [entry(first)]}])
    names = [e["name"] for e in merged["libraries"]]
    assert names[:2] == [first, second]
    assert set(names) == {library.name for library in libraries()}
    missing = merged["libraries"][2]
    assert missing["version"] is None and missing["install"].startswith("pip install")


def test_merge_keeps_a_run_over_a_missing_one_and_refuses_two_different_runs() -> None:
    name = LIBRARIES[0].name
    kept = merge([{"libraries": [entry(name, None)]}, {"libraries": [entry(name)]}])
    assert kept["libraries"][0]["version"] == "1.0"
    with pytest.raises(ValueError, match=f"b.json: {name} differs"):
        merge([{"libraries": [entry(name)]}, {"libraries": [entry(name, "2.0")]}], ["a", "b.json"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a matrix part (JSON)"),
        ('{"libraries": [{"nam": 1}]}', "not a matrix part: it should be"),
        ("[]", "not a matrix part: it should be"),
    ],
)
def test_a_bad_part_is_named(
    content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    part = tmp_path / "part.json"
    part.write_text(content, encoding="utf-8")
    assert main(["matrix", "--from", str(part)]) == 2
    err = capsys.readouterr().err
    assert str(part) in err and message in err


def test_the_committed_markdown_is_made_from_the_committed_json() -> None:
    committed = json.loads(COMMITTED_JSON.read_text(encoding="utf-8"))
    assert render_markdown(committed) == COMMITTED_MD.read_text(encoding="utf-8")
    assert render_json(merge([committed])) == COMMITTED_JSON.read_text(encoding="utf-8")


def test_the_committed_matrix_covers_every_library_and_explains_every_cause() -> None:
    committed = json.loads(COMMITTED_JSON.read_text(encoding="utf-8"))
    entries = {e["name"]: e for e in committed["libraries"]}
    assert set(entries) == {library.name for library in LIBRARIES}
    missing = [name for name, e in entries.items() if e["version"] is None]
    assert not missing, f"run in no environment: {missing}"
    unexplained = [name for name, e in entries.items() if e["unexplained"]]
    assert not unexplained


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


def test_ids_a_library_makes_up_are_masked(mutant_run: LibraryRun) -> None:
    # pydantic-ai names a call it cannot place pyd_ai_<32 hex>, agno a uuid, the AI SDK 16
    # letters and digits (generateId): anew on every run
    cause = mutant_run.causes()[0]
    assert cause.violation is not None
    made_up = dataclasses.replace(
        cause.violation,
        message="call 'pyd_ai_6bef2570d59b45ce8a8d8785c94e3ab0' and "
        "'10c4841c-4bae-4311-8fbb-47fd84c4bbca' and 'Ukjdp0IEKmXScsls' beside call_1 and "
        "'internationalize'",
    )
    record = cause_json(dataclasses.replace(cause, violation=made_up))
    assert record["message"] == (
        "call 'pyd_ai_<made-up>' and '<made-up>' and '<made-up>' beside call_1 and "
        "'internationalize'"
    )


def test_an_exec_library_drives_case_after_case_in_one_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The matrix keeps a driver process whose turn ended with done for the next case (its
    start is most of a Node.js library's time); one killed or mid-turn is never kept."""
    need_node()
    monkeypatch.chdir(ROOT)
    adapters: list[ProcessAdapter] = []
    made = ProcessFactory.__call__

    def recording(self: ProcessFactory) -> ProcessAdapter:
        adapter = made(self)
        adapters.append(adapter)
        return adapter

    monkeypatch.setattr(ProcessFactory, "__call__", recording)
    (run,) = run_libraries(scenarios(PASSES, SHOWS, PASSES), [NODE], quirks=NONE)
    assert [r.status for r in run.results] == ["pass", "pass", "pass"]
    # the probe's process came first
    assert len({a.process.pid for a in adapters[-3:]}) == 1
    assert all(a.process.poll() is not None for a in adapters)  # none left waiting

    factory = resolve_adapter(NODE.adapter).factory
    assert isinstance(factory, ProcessFactory)
    with factory.reusing():
        first = factory()
        with contextlib.suppress(DriverFailed):
            list(first.drive(iter(())))  # a turn that ends with done (an error is a done too)
        first.close()
        assert factory() is first
        text = 'data: {"choices": [{"index": 0, "delta": {"content": "a"}}]}\n\n'
        turn = first.drive(itertools.repeat(text))
        assert isinstance(next(turn), TextOut)  # and left there, mid-turn: not kept
        first.close()
        fresh = factory()
        assert fresh is not first and first.process.poll() is not None
        fresh.kill()
        fresh.close()
        last = factory()
        assert last is not fresh
        with contextlib.suppress(DriverFailed):
            list(last.drive(iter(())))
        last.close()  # kept, between turns: closed on leaving
        assert last.process.poll() is None
    assert last.process.poll() is not None


#: a UI protocol's "consumer" with one known bug: the AG-UI mutant that shows a result delivered
#: twice as two tool messages
SESSION_MUTANT = Library(
    "ag-ui-mutant",
    "session-mutant-ag-ui-result-appended-again",
    ("harness",),
    ("streamharness",),
    layer="session",
)


def test_a_ui_consumer_runs_the_session_cases_its_protocol_carries() -> None:
    written = [
        load_scenario(ROOT / "scenarios" / "session" / f"{name}.yaml")
        for name in ("duplicate-completion", "tool-first-turn")
    ]
    (run,) = run_libraries([*scenarios(PASSES), *written], [SESSION_MUTANT], quirks=NONE)
    assert run.contract == "ag-ui"
    assert [(r.scenario.id, r.status) for r in run.results] == [
        ("duplicate-completion", "fail"),
        ("tool-first-turn", "pass"),
    ]  # the driver scenario is not its layer's
    assert [cause.rule for cause in run.causes()] == ["exactly-once"]
    (entry,) = document([run])["libraries"]
    assert entry["layer"] == "session"
    driver = LibraryRun(MUTANT, "1.0", "per-call", ())
    text = render_markdown(document([run, driver]))
    # the driver libraries' table and sections first, then the consumers' table and sections
    assert text.index("## mutant 1.0") < text.index("## UI protocol consumers")
    assert text.index("| [ag-ui-mutant](#lib-ag-ui-mutant) |") < text.index("## ag-ui-mutant")
    assert "Session dialect: ag-ui." in text


# -- framework loops: their runs in the document, merged and drawn ----------------------------------

#: a framework loop that is "installed" wherever the harness is
FAKE_LOOP = FrameworkLoop(
    "fake", "Agent.fake", "fake_framework.agent", ("--api", "fake"),
    (LoopDialect("anthropic", ("--model", "anthropic"), "harness"),),
    "harness", "streamharness", "fake",
)  # fmt: skip


def _answer_request() -> LoopRequest:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Begin."}]}
    return LoopRequest(1, "POST", "/v1/messages", json.dumps(body).encode(), 0)


@pytest.fixture
def loop_run() -> FrameworkRun:
    """The fake loop passing the text-only scenario, and sending nothing on two-tool-cycles."""
    text_only = find_loop_scenario("loop-text-only-answer")
    answer = StreamedTurn(
        "Hello! There is nothing to look up: the answer is 42.", (), (), "end_turn", False
    )
    passed = judge(
        text_only,
        LoopFacts(
            "anthropic", (answer,), ("main",), (_answer_request(),), ProgramOutcome(0, False, 1.5)
        ),
    )
    cycles = find_loop_scenario("loop-two-tool-cycles")
    silent = LoopFacts(
        "anthropic", (None, None, None), ("main",) * 3, (), ProgramOutcome(0, False, 2.37)
    )
    failed = judge(cycles, silent)
    assert (passed.status, failed.status) == ("pass", "fail")
    return FrameworkRun(FAKE_LOOP, "1.0 (harness 0.1)", (passed, failed))


@pytest.fixture
def explained_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        loop_explanations_registry,
        "fake",
        [
            LoopExplanation(
                "fake", "never-asks", "It never sends a request.",
                frozenset({"loop-two-tool-cycles"}), None, frozenset({"loop-request-count"}),
                "harness",
            )
        ],
    )  # fmt: skip


def test_a_loop_run_is_written_without_timings_or_paths(loop_run: FrameworkRun) -> None:
    entry = loop_run.to_json()
    runs = entry["runs"]
    assert [(r["scenario"], r["status"]) for r in runs] == [
        ("loop-text-only-answer", "pass"),
        ("loop-two-tool-cycles", "fail"),
    ]
    failed = runs[1]
    assert failed["rules"] == ["loop-request-count"]
    assert failed["explanation"] is None
    (violation,) = failed["violations"]
    assert violation["message"].endswith("(it exited with status 0 after N s)")
    assert failed["reproduce"] == (
        "python -m harness loop harness-library/loop/two-tool-cycles.yaml --dialect anthropic "
        "-- python -m fake_framework.agent --api fake --model anthropic"
    )
    assert entry["unexplained"] == ["loop-two-tool-cycles[anthropic]"]
    (problem,) = loop_problems([loop_run])
    assert problem.startswith("fake: loop-two-tool-cycles[anthropic] failed (loop-request-count)")
    markdown = render_markdown(document([], [loop_run]))
    assert (
        "#### Not explained yet" in markdown and "- `loop-two-tool-cycles[anthropic]`" in markdown
    )


def test_an_explained_loop_failure_is_drawn_with_its_verdict_and_evidence(
    loop_run: FrameworkRun, explained_loop: None
) -> None:
    assert loop_problems([loop_run]) == []
    entry = loop_run.to_json()
    assert entry["bugs"] == [
        {
            "id": "never-asks",
            "verdict": "harness",
            "explanation": "It never sends a request.",
            "reproduction": "docs/reproductions/fake/never-asks.py",
            "runs": ["loop-two-tool-cycles[anthropic]"],
        }
    ]
    markdown = render_markdown(document([], [loop_run]))
    assert "## Agent frameworks' loops against the loop scenarios" in markdown
    assert (
        "| [fake](#loop-fake) | 1.0 (harness 0.1) | `Agent.fake` | 1 passed, 1 failed | 0 "
        "| 1 (1 run) |" in markdown
    )
    assert "| scenario | anthropic |" in markdown
    assert "| loop-text-only-answer | pass |" in markdown
    assert "| loop-two-tool-cycles | **fail** (`loop-request-count`) |" in markdown
    assert (
        "- **never-asks** (the harness's question; `loop-two-tool-cycles[anthropic]`): "
        "It never sends a request. Reproduced by [docs/reproductions/fake/never-asks.py]"
        "(../docs/reproductions/fake/never-asks.py)." in markdown
    )
    assert "python -m harness loop harness-library/loop/two-tool-cycles.yaml" in markdown
    assert "`loop-request-count`, response 1: the program sent no request" in markdown


def test_an_explanation_that_covers_no_failed_run_is_refused(
    loop_run: FrameworkRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = LoopExplanation(
        "fake", "cut-call-run", "It runs the cut call.",
        frozenset({"loop-max-tokens-cut-call"}), None, frozenset({"loop-no-incomplete-call"}),
    )  # fmt: skip
    monkeypatch.setitem(loop_explanations_registry, "fake", [other])
    assert loop_problems([loop_run])[-1] == "fake: explanation 'cut-call-run' covers no failed run"


def test_merge_orders_the_loops_fills_the_missing_and_keeps_a_document_without_loops() -> None:
    first, second = FRAMEWORK_LOOPS[0].name, FRAMEWORK_LOOPS[1].name
    ran = {"name": second, "version": "1.0", "runs": []}
    merged = merge([{"libraries": [], "loops": [ran]}, {"libraries": []}])
    names = [e["name"] for e in merged["loops"]]
    assert names == [loop.name for loop in FRAMEWORK_LOOPS]
    assert merged["loops"][1] == ran
    missing = merged["loops"][0]
    assert missing["name"] == first and missing["version"] is None
    assert missing["install"].startswith("pip install")
    assert "loops" not in merge([{"libraries": []}])  # a matrix made before the loops joined it
    with pytest.raises(ValueError, match=f"b.json: {second} differs"):
        merge(
            [
                {"libraries": [], "loops": [ran]},
                {"libraries": [], "loops": [{**ran, "version": "2"}]},
            ],
            ["a", "b.json"],
        )


def test_a_not_installed_loop_is_listed_with_its_extra() -> None:
    missing = FrameworkLoop(
        "ghost-loop", "Agent.haunt", "ghost.agent", (), FAKE_LOOP.dialects,
        "ghost_framework_not_here", "ghost", "ghost",
    )  # fmt: skip
    (run,) = run_frameworks([missing])
    assert (run.installed, run.results) == (False, ())
    markdown = render_markdown(document([], [run]))
    assert "| ghost-loop | not installed: `pip install 'streamharness[ghost]'` |" in markdown


def test_every_loop_explanation_names_what_exists() -> None:
    loops = {loop.name: loop for loop in FRAMEWORK_LOOPS}
    scenarios = {s.id for s in loop_scenarios()}
    wrong = []
    for e in all_loop_explanations():
        loop = loops.get(e.loop)
        if loop is None:
            wrong.append(f"{e.loop}/{e.id}: no such framework loop")
            continue
        wrong += [f"{e.loop}/{e.id}: no loop scenario {s}" for s in e.scenarios - scenarios]
        wrong += [
            f"{e.loop}/{e.id}: no loop rule {r}"
            for r in e.rules
            if r not in RULES or RULES[r].layer != "loop"
        ]
        spoken = {d.dialect for d in loop.dialects}
        wrong += [f"{e.loop}/{e.id}: it does not speak {d}" for d in (e.dialects or set()) - spoken]
    assert not wrong


def test_an_unknown_loop_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--loop", "nope"]) == 2
    assert "--loop: no framework loop named nope" in capsys.readouterr().err


def test_a_part_with_loops_is_read(tmp_path: Path, loop_run: FrameworkRun) -> None:
    part = tmp_path / "part.json"
    part.write_text(render_json(document([], [loop_run])), encoding="utf-8")
    out = tmp_path / "merged.md"
    assert main(["matrix", "--from", str(part), "--out", str(out)]) == 0
    assert "| [fake](#loop-fake) |" in out.read_text(encoding="utf-8")
