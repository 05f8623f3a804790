"""Heavy driver inputs: rules that stay near-linear in the calls (checked against the plain
quadratic or cubic definitions on small generated turns), the harness's own time kept apart
from the adapter's, and turns of 1,000 tool calls run to the right verdict."""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.bench_driver import REFERENCES, turn_of_calls
from harness.cli import main
from harness.model.driver import (
    ArgumentsDelta,
    ByteRead,
    ExpectedCall,
    ToolCallOut,
    TurnFacts,
    WireChunk,
)
from harness.model.driver_run import DriverRun
from harness.replay import replay
from harness.replay._watchdog import Hung, Progress, run_guarded
from harness.rules.driver import _Merges
from harness.rules.driver_timing import DriverTimeline, _Unnamed, same_arguments
from harness.scenario import DriverScenario, load_scenario, parse_scenario
from tests.budgets import examples

ROOT = Path(__file__).resolve().parent.parent

# -- the rules against their plain definitions -------------------------------------------------

texts = st.text(alphabet="ab{}", max_size=3)


@st.composite
def calls_and_emitted(draw: st.DrawFn) -> tuple[list[ExpectedCall], list[ToolCallOut]]:
    calls = [
        ExpectedCall(draw(st.integers(0, 2)), n, f"c{n}", name, arguments, n, n)
        for n, (name, arguments) in enumerate(
            draw(st.lists(st.tuples(st.text(alphabet="xy", max_size=2), texts), max_size=8))
        )
    ]
    pieces = st.sampled_from([c.arguments for c in calls] or [""]) | texts
    names = st.sampled_from([c.name for c in calls] or [""]) | st.text(alphabet="xy", max_size=2)
    emitted = [
        ToolCallOut(f"e{n}", draw(names) + draw(names), draw(pieces) + draw(pieces) + tail, True)
        for n, tail in enumerate(draw(st.lists(texts, max_size=4)))
    ]
    return calls, emitted


def merged_pairs(calls: list[ExpectedCall], emitted: ToolCallOut) -> list[tuple[int, int]]:
    """parallel-apart as first written: every pair of calls, for each emitted call."""
    return [
        (n, m)
        for n in range(len(calls))
        for m in range(n + 1, len(calls))
        if calls[n].cycle == calls[m].cycle
        and (
            (
                emitted.arguments.startswith(calls[n].arguments + calls[m].arguments)
                and calls[n].arguments
                and calls[m].arguments
            )
            or (calls[n].name and calls[m].name and emitted.name == calls[n].name + calls[m].name)
        )
    ]


@settings(max_examples=examples(300), deadline=None)
@given(calls_and_emitted())
def test_merged_calls_are_found_as_trying_every_pair_finds_them(drawn):
    calls, emitted = drawn
    merges = _Merges(calls)
    for out in emitted:
        assert merges.pairs(out) == merged_pairs(calls, out)


def unnamed_match(calls: list[ExpectedCall], outputs: list[ToolCallOut]) -> list[str | None]:
    """Matching calls without ids as first written: a pass over the calls for each output."""
    taken: set[str] = set()
    out: list[str | None] = []
    for emitted in outputs:
        same = [c for c in calls if c.name == emitted.name]
        alike = [c for c in same if same_arguments(emitted.arguments, c.arguments)]
        for pick in (
            [c for c in alike if c.id not in taken],
            alike,
            [c for c in same if c.id not in taken],
            [c for c in reversed(same) if c.id in taken],
            [c for c in calls if c.id not in taken],
        ):
            if pick:
                taken.add(pick[0].id)
                out.append(pick[0].id)
                break
        else:
            out.append(None)
    return out


arguments = st.sampled_from(["", "{}", " {} ", '{"a":1}', '{ "a" : 1 }', '{"a":', "x"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("xyz"), arguments), max_size=6),
    st.lists(st.tuples(st.sampled_from("xyzw"), arguments), max_size=8),
)
def test_calls_without_ids_are_matched_as_a_pass_per_output_matches_them(turn, driver):
    calls = [ExpectedCall(0, n, f"#{n}", name, args, n, n) for n, (name, args) in enumerate(turn)]
    outputs = [ToolCallOut("", name, args, True) for name, args in driver]
    match = _Unnamed(calls).match
    assert [match(out) for out in outputs] == unnamed_match(calls, outputs)


@st.composite
def runs(draw: st.DrawFn) -> DriverRun:
    events = draw(st.integers(1, 8))
    content = frozenset(draw(st.sets(st.integers(0, events - 1))))

    def part() -> WireChunk:
        origin = draw(st.integers(0, events - 1))
        return WireChunk("", origin, draw(st.booleans()), draw(st.integers(-1, events - 1)))

    if draw(st.booleans()):
        chunks: tuple[WireChunk | ByteRead, ...] = tuple(
            part() for _ in range(draw(st.integers(0, 8)))
        )
    else:
        chunks = tuple(
            ByteRead(b"", 0, parts=tuple(part() for _ in range(draw(st.integers(0, 3)))))
            for _ in range(draw(st.integers(0, 8)))
        )
    facts = TurnFacts((), (), (), 0, "end_turn", content=content)
    return DriverRun("test", chunks, facts, (), len(chunks), False, False, None, False, None)


def content_reads(run: DriverRun, after: int, until: int) -> list[int]:
    """The reads carrying content, as first written: a walk over the reads in between."""
    found = []
    for n in range(max(after, 0), min(until, len(run.chunks))):
        parts = run.chunks[n].delivered
        if n + 1 == until and len(parts) > 1:
            continue
        if any(p.carries and p.carried in run.facts.content for p in parts):
            found.append(n + 1)
    return found


@settings(max_examples=examples(300), deadline=None)
@given(runs())
def test_content_reads_are_counted_as_walking_the_reads_counts_them(run):
    check = DriverTimeline(run)
    for after in range(-1, len(run.chunks) + 2):
        for until in range(-1, len(run.chunks) + 2):
            walked = content_reads(run, after, until)
            assert check.content_read(after, until) == (
                (walked[0], len(walked)) if walked else (None, 0)
            )


# -- the adapter's time and the harness's ---------------------------------------------------------


def test_the_harness_own_work_does_not_count_against_the_adapter_limit():
    def body(progress: Progress) -> str:
        with progress.harness():
            time.sleep(0.6)  # three time limits of the harness's own work
        return "done"

    progress = Progress()
    assert run_guarded(body, limit=0.2, progress=progress) == "done"
    assert progress.harness_seconds >= 0.6


def test_the_adapter_stalling_outside_the_harness_work_is_still_a_hang():
    def body(progress: Progress) -> None:
        with progress.harness():
            time.sleep(0.1)
        time.sleep(2)  # the adapter's

    with pytest.raises(Hung):
        run_guarded(body, limit=0.3)


def test_slow_rules_are_the_harness_time_not_a_hung_driver(monkeypatch):
    replay_driver = importlib.import_module("harness.replay.driver")  # ``replay`` is a function too
    facts = replay_driver.turn_facts

    def slow_facts(turn):  # as slow as the cubic check on 1,000 calls was
        time.sleep(0.6)
        return facts(turn)

    monkeypatch.setattr(replay_driver, "turn_facts", slow_facts)
    scenario = load_scenario(ROOT / "scenarios/driver/parallel-calls.yaml")
    result = replay(scenario, "driver-anthropic-reference", timeout=0.3)
    assert (result.status, result.error) == ("pass", None)
    assert result.harness_seconds >= 0.6
    assert result.adapter_seconds == pytest.approx(result.seconds - result.harness_seconds)
    assert result.adapter_seconds < 0.3  # the 0.6 s of slow facts are not the adapter's
    times = result.to_json()["seconds"]
    assert isinstance(times, dict)
    assert set(times) == {"adapter", "harness"}


def test_harness_run_verbose_says_the_adapter_time_and_the_harness_time(capsys):
    scenario = str(ROOT / "scenarios/driver/parallel-calls.yaml")
    code = main(["run", scenario, "--adapter", "driver-anthropic-reference", "--quirks=none", "-v"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert re.fullmatch(
        r"PASS  parallel-calls  \[driver-anthropic-reference\]  \[adapter [\d.]+s, harness [\d.]+s\]",
        out[0],
    )
    assert re.fullmatch(
        r"time: \[adapter [\d.]+s, harness [\d.]+s\]; only the adapter's counts against --timeout",
        out[-1],
    )


# -- 1,000 tool calls ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("adapter", REFERENCES)
def test_one_message_of_1000_parallel_calls_passes_every_reference(adapter):
    scenario = parse_scenario(turn_of_calls(1000, cycles=False), "<1000 calls>")
    result = replay(scenario, adapter)
    assert (result.status, result.error, result.violations) == ("pass", None, ())


@pytest.mark.slow
@pytest.mark.parametrize("adapter", ["driver-anthropic-agent-reference", "driver-ag-ui-reference"])
def test_1000_tool_cycles_pass_the_references_of_agent_streams(adapter):
    scenario = parse_scenario(turn_of_calls(1000, cycles=True), "<1000 cycles>")
    result = replay(scenario, adapter)
    assert (result.status, result.error, result.violations) == ("pass", None, ())


def _cycles_with_one_corrupt_call(cycles: int, corrupt: int) -> Iterator[str]:
    yield "id: corrupt-call-late\ntitle: t\ndescription: d\nsource: tests\nlayer: driver\ntrace:"
    for n in range(cycles):
        if n != corrupt:
            yield f"  - cycle: {{blocks: [tool_use: {{id: toolu_{n}, name: ls, input: {{n: {n}}}}}]}}"
            continue
        yield from (
            "  - message_start: {message_id: msg_corrupt}",
            f"  - block_start: {{index: 0, block: tool_use, id: toolu_{n}, name: ls}}",
            f"  - arguments_delta: {{index: 0, fragment: '{{\"n\": {n}'}}",  # its brace lost
            "  - block_stop: {index: 0}",
            "  - message_delta: {stop_reason: tool_use}",
            "  - message_stop:",
        )
    yield '  - cycle: {blocks: [text: "done"]}'


@pytest.mark.slow
def test_a_mutant_is_caught_at_the_right_event_of_1000_tool_cycles():
    scenario = parse_scenario("\n".join(_cycles_with_one_corrupt_call(1000, 700)), "<corrupt>")
    assert isinstance(scenario, DriverScenario)
    assert replay(scenario, "driver-anthropic-agent-reference").status == "pass"
    result = replay(scenario, "driver-mutant-anthropic-lenient-json")
    assert result.status == "fail"
    (violation,) = result.violations
    assert violation.rule == "strict-assembly"
    # the corrupt call's block stop, 700 cycles into the turn
    before, stop = scenario.turn[violation.event_index - 1 : violation.event_index + 1]
    assert (stop.kind, before) == ("block_stop", ArgumentsDelta(index=0, fragment='{"n": 700'))
