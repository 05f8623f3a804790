"""harness explore: generated scenarios against every bundled adapter. Each mutant's bug is
found with the default budget, shrunk, written as a scenario that validates, reproduces on its
own and that the matching reference passes; no reference breaks."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

import harness.explore
from harness.adapters.registry import BUNDLED, AdapterInfo, adapter_dialect, declared
from harness.cli import main
from harness.explore import DEFAULT_EXAMPLES, EXAMPLE_TIMEOUT, explore
from harness.model.driver_run import declared_contract
from harness.replay import replay
from harness.scenario import load_scenario
from harness.strategies import scenario_from_document
from tests.budgets import within

EXPLORED_LAYERS = ("session", "history", "driver")
MUTANTS = [a for a in BUNDLED.values() if a.kind == "mutant" and a.layer in EXPLORED_LAYERS]
REFERENCES = [a for a in BUNDLED.values() if a.kind == "reference" and a.layer in EXPLORED_LAYERS]
#: a generated replay's time limit: a slow machine's stall must not look like a failing example
#: (which hypothesis, finding it passes when replayed, reports as flaky)
LIMIT = within(EXAMPLE_TIMEOUT)

#: what make test explores: a mutant of each layer and dialect, the quickest found, and a driver
#: reference of each way of reading (that the session and history references pass generated
#: traces, tests/test_session_strategies.py shows in make test); the exhaustive tier explores
#: the others (README, Developing)
SAMPLE = {
    "session-mutant-resume-skips-tool-calls",
    "history-mutant-interrupted-left-open",
    "driver-mutant-anthropic-ignores-cancellation",
    "driver-mutant-openai-crashes-on-usage-chunk",
    "driver-mutant-responses-rejects-unknown-fields",
    "driver-mutant-gemini-array-element-per-read",
    "driver-mutant-ag-ui-end-closes-latest-call",
    "driver-openai-chat-reference",
    "driver-anthropic-bytes-reference",
    "anthropic",
}


#: mutants whose bug needs a shape the generated traces do not hold, with that shape; the
#: library's scenarios catch each (tests/test_conformance.py). Strict: once exploration finds
#: one, its entry must go
BEYOND_GENERATED = {
    "session-mutant-late-executing-shown": (
        "a select or executing that arrives after its call's completion: generated calls go "
        "through their lifecycle in order"
    ),
    "session-mutant-user-message-clears-all": (
        "a user message inside a sub-session (its prompt): generated sub-sessions open with a "
        "message or a tool call"
    ),
    "session-mutant-resume-keeps-notifications": (
        "a resume whose history holds the result of a call still shown running: generated "
        "resumes come at a turn's end or before any live event"
    ),
    "history-mutant-request-drops-signature": "generated histories hold no thinking signature",
    "driver-mutant-openai-first-json-value": (
        "arguments with data after a complete JSON value: generated fragments add up to one value"
    ),
    **{
        f"driver-mutant-{name}": "generated turns hold no server error and no transport cut"
        for name in (
            "anthropic-ignores-error-events",
            "anthropic-flushes-open-calls-on-error",
            "openai-chat-body-end-is-turn-end",
        )
    },
}

#: mutants whose shape the generator draws, but rarely: within the budget one run meets it and
#: another does not (the draw is not yet the same in every process), so these are marked
#: xfail without strict; exploration's draw needs weighting so that each is met every time
RARELY_DRAWN = {
    **{
        f"driver-mutant-{name}": (
            "a lone CR or CRLF line end: every SSE dialect has both quirks among many more, "
            "and the budget's 300 draws meet them in some runs only"
        )
        for name in (
            "anthropic-no-lone-cr",
            "openai-chat-no-lone-cr",
            "openai-responses-no-lone-cr",
            "gemini-sse-no-lone-cr",
            "ag-ui-no-lone-cr",
            "openai-chat-lines-end-at-lf",
            "openai-responses-lines-end-at-lf",
            "ag-ui-lines-end-at-lf",
        )
    },
    **{
        f"driver-mutant-{name}": (
            "found by exploration before the quirk set grew; with the new quirks the budget's "
            "300 draws meet its shape in some runs only: exploration's draw needs weighting"
        )
        for name in (
            "openai-merges-same-index",
            "gemini-first-call-per-response",
            "responses-next-item-ends-call",
            "openai-first-call-per-delta",
            "openai-fragment-to-last-call",
        )
    },
    # consumers of a UI protocol: exploration draws canonical traces, and the shapes these bugs
    # need (a sub-agent reusing an id from an earlier run, a result delivered twice, a resume's
    # snapshot) are rare among the draws the protocol can carry
    **{
        info.name: (
            "a UI protocol's consumer: the generated traces its protocol carries meet the "
            "shape its bug needs in some runs only"
        )
        for info in BUNDLED.values()
        if info.kind == "mutant" and getattr(info.factory, "session_dialect", None) is not None
    },
}


def sampled(names: list[str]) -> list[object]:
    """``names`` as parameters, those not in SAMPLE marked exhaustive."""
    return [
        pytest.param(
            name,
            marks=(() if name in SAMPLE else (pytest.mark.exhaustive,))
            + (
                (pytest.mark.xfail(reason=BEYOND_GENERATED[name], strict=True),)
                if name in BEYOND_GENERATED
                else (pytest.mark.xfail(reason=RARELY_DRAWN[name], strict=False),)
                if name in RARELY_DRAWN
                else ()
            ),
            id=name,
        )
        for name in names
    ]


def test_the_sample_names_adapters_and_libraries_there_are() -> None:
    assert {a.name for a in MUTANTS + REFERENCES} | set(CORRECT_LIBRARIES) >= SAMPLE


def reference_for(mutant: AdapterInfo) -> AdapterInfo:
    """The reference the mutant was made from: same layer, dialect, way of reading and
    emission contract (a dialect may have a per-call and a per-message reference)."""
    if mutant.layer != "driver":
        return BUNDLED[f"{mutant.layer}-reference"]
    same = [
        r
        for r in REFERENCES
        if r.layer == mutant.layer
        and adapter_dialect(r) == adapter_dialect(mutant)
        and declared(r, "reads") == declared(mutant, "reads")
        and declared_contract(r.factory) == declared_contract(mutant.factory)
    ]
    assert len(same) == 1, (mutant.name, same)
    return same[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", sampled([a.name for a in MUTANTS]))
def test_exploration_finds_each_mutant_and_keeps_a_small_scenario(
    name: str, tmp_path: Path
) -> None:
    mutant = BUNDLED[name]
    exploration = explore(mutant, seed=0, out=tmp_path, timeout=LIMIT)
    assert exploration.found is not None, f"{mutant.name}: nothing found in {DEFAULT_EXAMPLES}"
    assert exploration.path is not None and exploration.path.parent == tmp_path
    # the written file validates, fails on its own, and the mutant's reference passes it
    assert main(["validate", str(exploration.path)]) == 0
    kept = load_scenario(exploration.path)
    alone = replay(kept, mutant)
    assert alone.status in ("fail", "error")
    assert replay(kept, reference_for(mutant)).status == "pass"
    assert len(kept.events) <= 25, f"{mutant.name}: shrunk to {len(kept.events)} events"
    text = exploration.path.read_text()
    assert f"# Replay: harness run {exploration.path} --adapter {mutant.name}" in text
    assert set(yaml.safe_load(text).get("rules", [])) == set(alone.rules_broken)


@pytest.mark.slow
@pytest.mark.parametrize("name", sampled([a.name for a in REFERENCES]))
def test_exploration_finds_nothing_in_a_reference(name: str, tmp_path: Path) -> None:
    exploration = explore(BUNDLED[name], seed=1, out=tmp_path, timeout=LIMIT)
    assert exploration.found is None, "\n".join(exploration.lines())
    assert not list(tmp_path.iterdir())


def test_a_seed_gives_the_same_counterexample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no example database: the second run must find the same by its seed, not by remembering
    monkeypatch.setattr(harness.explore, "settings", functools.partial(settings, database=None))
    mutant = "driver-mutant-anthropic-ignores-cancellation"
    first = explore(mutant, seed=7, out=tmp_path / "a", max_examples=50, timeout=LIMIT)
    again = explore(mutant, seed=7, out=tmp_path / "b", max_examples=50, timeout=LIMIT)
    assert first.path is not None and again.path is not None
    assert first.path.read_text().replace("/a/", "/b/") == again.path.read_text()


@pytest.mark.slow
def test_the_command_line_exits_by_what_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path)
    assert (
        main(
            [
                "explore",
                "--adapter",
                "driver-anthropic-reference",
                "--seed",
                "2",
                "--max-examples",
                "30",
                "--out",
                out,
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines()[-1] == "nothing found"
    mutant = "driver-mutant-anthropic-ends-at-first-message-stop"
    assert main(["explore", "--adapter", mutant, "--seed", "2", "--out", out]) == 1
    printed = capsys.readouterr().out
    assert "found: [turn-lifetime]" in printed and f"replay it: harness run {out}/" in printed
    command = printed.splitlines()[-1].split("replay it: ", 1)[1].split()
    assert main(command[1:]) == 1  # the printed command replays it
    capsys.readouterr()
    for bad in (
        ["--adapter", "no-such-adapter"],
        ["--adapter", mutant, "--max-examples", "0"],
        ["--adapter", mutant, "--layer", "session"],
    ):
        assert main(["explore", *bad, "--out", out]) == 2
        assert capsys.readouterr().err.startswith("harness: error: ")


def test_one_read_holding_a_call_text_and_the_completion_keeps_the_stream_order() -> None:
    """Found by exploration: with no *.done events a call is complete only at
    response.completed, so text after the call's start comes out first; one read of bytes that
    holds all of it must not turn that into an order violation."""
    document = {
        "id": "text-inside-one-read",
        "title": "t",
        "description": "d",
        "source": "explore",
        "layer": "driver",
        "dialects": ["openai-responses"],
        "quirks": ["no_done_events"],
        "byte_cuts": [],
        "trace": [
            {
                "cycle": {
                    "blocks": [
                        {"tool_use": {"id": "call_1", "name": "f", "fragments": ["{}"]}},
                        {"text": {"text": "0", "chunks": 1}},
                        {"tool_use": {"id": "call_2", "name": "f", "fragments": ["{}"]}},
                    ]
                }
            }
        ],
    }
    scenario = scenario_from_document(document)
    assert replay(scenario, "driver-openai-responses-bytes-reference").status == "pass"
    assert replay(scenario, "driver-openai-responses-reference").status == "pass"


@pytest.mark.slow
@pytest.mark.xfail(
    strict=False,
    reason="under the plugin, exploration seeded by --hypothesis-seed=4 found nothing in 100 "
    "examples where harness explore --seed 4 finds this mutant, and seeded draws differ "
    "between processes: to be found out",
)
def test_the_plugin_explores_each_adapter_given(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_library = "false"\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )
    mutant = "driver-mutant-openai-crashes-on-usage-chunk"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--harness-explore",
        f"--harness-adapter={mutant}",
        "--harness-adapter=driver-openai-chat-reference",
        "--hypothesis-seed=4",
        "--harness-explore-examples=100",
    )
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert f"harness-explore[{mutant}]" in out and "[robust-framing]" in out
    assert list((pytester.path / "harness-explored").glob(f"explored-{mutant}-4.yaml"))


#: the libraries whose streaming path the conformance matrix finds correct on first-party shapes
#: (openai-chat-final and langchain-core have documented bugs there: docs/conformance.md)
CORRECT_LIBRARIES = ("anthropic", "openai-chat", "openai-responses", "pydantic-ai")


@pytest.mark.slow
@pytest.mark.parametrize("name", sampled(list(CORRECT_LIBRARIES)))
def test_exploration_of_first_party_streams_finds_nothing_in_a_correct_library(
    name: str, tmp_path: Path
) -> None:
    from harness.adapters.libs import LIBRARIES

    (library,) = [lib for lib in LIBRARIES if lib.name == name]
    if library.version() is None:
        pytest.skip(f"{name} is not installed")
    exploration = explore(library.adapter, seed=5, out=tmp_path, first_party=True, timeout=LIMIT)
    assert exploration.found is None, "\n".join(exploration.lines())


# -- an adapter that does not answer the same scenario the same way twice -----------------------


def unsteady_adapter(mutant: str, every: int = 3) -> AdapterInfo:
    """The session reference, except every ``every``-th adapter made (from the first), which is
    the mutant: a consumer whose behaviour depends on more than the events it is fed."""
    made = itertools.count()

    def make() -> object:
        return BUNDLED[mutant if next(made) % every == 0 else "session-reference"].factory()

    make.layers = ("session",)  # type: ignore[attr-defined]
    return AdapterInfo("unsteady", "session", "external", make)


def no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """No example database: a run repeats by its seed alone."""
    monkeypatch.setattr(harness.explore, "settings", functools.partial(settings, database=None))


def test_a_consumer_that_is_not_deterministic_is_reported_as_such_with_both_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the example fails while shrinking and passes when hypothesis replays it (its FlakyFailure)
    no_database(monkeypatch)
    adapter = unsteady_adapter("session-mutant-duplicate-completion-attached")
    exploration = explore(adapter, seed=0, out=tmp_path, max_examples=100)
    assert exploration.found is not None and exploration.found.status == "fail"
    assert exploration.rerun is not None and exploration.rerun.status == "pass"
    assert exploration.found.scenario.events == exploration.rerun.scenario.events
    lines = exploration.lines()
    assert lines[1].startswith("found: the adapter is not deterministic: a generated scenario of ")
    assert lines[1].endswith(" events failed, then passed when replayed unchanged")
    assert lines[2].startswith("first run: [exactly-once] event "), lines
    assert lines[3] == "second run: passed, no rule broken"
    # what the adapter showed each time: the first run's second copy of a call, then none
    assert lines[4] == "what the adapter showed, first run (-) against second run (+):"
    assert lines[5].startswith("    -transcript.sessions['main'].messages["), lines
    assert all(line.startswith(("    -", "    +")) for line in lines[5:]), lines


def test_the_command_line_reports_a_consumer_that_is_not_deterministic_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_database(monkeypatch)
    adapter = unsteady_adapter("session-mutant-no-cleanup-interaction-end")
    monkeypatch.setattr("harness.adapters.registry.resolve_adapter", lambda name: adapter)
    argv = ["explore", "--adapter", "unsteady", "--seed", "0", "--max-examples", "100"]
    assert main([*argv, "--out", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "found: the adapter is not deterministic" in out
    assert "\nfirst run: [cleanup-interaction-end] event " in out
    assert "\nsecond run: passed, no rule broken\n" in out
    # the leftover notice was cleared later in the run: the end looked the same
    assert "what the adapter showed at the end was the same both times" in out
    assert "Traceback" not in out + err and "Flaky" not in out + err


def test_a_counterexample_passing_when_replayed_from_its_file_is_reported_with_both_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the adapter changes its behaviour between the search and the replay of the written file
    buggy = [True]

    def make() -> object:
        mutant = "session-mutant-duplicate-completion-attached"
        return BUNDLED[mutant if buggy[0] else "session-reference"].factory()

    make.layers = ("session",)  # type: ignore[attr-defined]

    def load_after_the_search(path: str | Path) -> object:
        buggy[0] = False
        return load_scenario(path)

    monkeypatch.setattr(harness.explore, "load_scenario", load_after_the_search)
    adapter = AdapterInfo("unsteady", "session", "external", make)
    exploration = explore(adapter, seed=0, out=tmp_path, max_examples=100)
    assert exploration.rerun is not None and exploration.rerun.status == "pass"
    assert exploration.path is not None and exploration.path.is_file()
    lines = exploration.lines()
    assert lines[1].startswith("found: the adapter is not deterministic: ")
    assert "second run: passed, no rule broken" in lines
    assert lines[-2:] == [f"written to {exploration.path}", f"replay it: {exploration.command}"]
