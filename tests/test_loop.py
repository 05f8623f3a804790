"""Agent loops over HTTP: the bundled loops (the real ``anthropic`` and ``openai`` SDKs, run as
programs against the stand-in on loopback) pass every loop scenario of their dialect, and every
mutant among them is caught by the rule its bug breaks."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from harness.adapters.loop import LOOPS, LoopProgram
from harness.loop import LoopResult, run_loop
from harness.loop.find import loop_scenarios
from harness.loop.report import render_table
from harness.scenario import LoopScenario
from tests.scenarios_for_tests import ROOT

pytest.importorskip("anthropic")
pytest.importorskip("openai")

pytestmark = pytest.mark.slow

#: the programs import this checkout's harness, whichever one the environment installed
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}
#: how long each response's final events are held back: a reference is never early, so a
#: short hold keeps its runs quick; a mutant gets long enough for an early request to be seen
#: on a loaded machine
SETTLE = {"reference": 0.05, "mutant": 0.3}
SCENARIOS = loop_scenarios()

#: the rules that catch each bug (the scenario that catches it first is the library's business)
CAUGHT_BY = {
    "pair-by-position": {"loop-forward-pairing", "loop-reverse-pairing", "loop-results-sent"},
    "run-cut-call": {"loop-no-incomplete-call"},
    "drop-thinking": {"loop-thinking-kept"},
    "text-before-results": {"loop-results-first"},
    "cut-body-ends-turn": set(),  # the dialect says which: see CAUGHT_IN
    "drop-text": {"loop-turn-sent-back"},
    "text-ends-loop": {"loop-request-count"},
    "early-request": {"loop-request-after-turn"},
    "subagent-in-parent": {"loop-own-history", "loop-forward-pairing"},
}
#: where a bug shows differently by dialect
CAUGHT_IN = {
    # Chat Completions: the cut call goes back; Responses: the text so far is taken for the answer
    "loop-openai-chat-mutant-cut-body-ends-turn": {"loop-no-incomplete-call"},
    "loop-openai-responses-mutant-cut-body-ends-turn": {"loop-program-exit"},
}


def run(scenario: LoopScenario, program: LoopProgram) -> LoopResult:
    return run_loop(
        scenario,
        program.command(),
        dialect=program.dialect,
        settle=SETTLE["reference" if program.bug is None else "mutant"],
        timeout=60,
        env=ENV,
    )


REFERENCES = [p for p in LOOPS.values() if p.bug is None]
MUTANTS = [p for p in LOOPS.values() if p.bug is not None]


def test_the_library_has_the_loop_scenarios_the_layer_needs():
    ids = {s.id for s in SCENARIOS}
    assert {
        "loop-two-tool-cycles",
        "loop-parallel-calls",
        "loop-max-tokens-cut-call",
        "loop-thinking-tool-turn",
        "loop-text-only-answer",
        "loop-subagent-delegation",
        "loop-body-cut-mid-call",
    } <= ids


@pytest.mark.parametrize(
    ("program", "scenario"),
    [
        pytest.param(p, s, id=f"{p.name}-{s.id}")
        for p in REFERENCES
        for s in SCENARIOS
        if p.dialect in s.dialects
    ],
)
def test_every_reference_loop_passes_every_loop_scenario_of_its_dialect(program, scenario):
    result = run(scenario, program)
    assert result.status == "pass", render_table([result])
    assert result.requests  # it was served, not skipped


@pytest.mark.parametrize("program", MUTANTS, ids=lambda p: p.name)
def test_every_loop_mutant_is_caught_by_the_rule_its_bug_breaks(program):
    failed = []
    for scenario in (s for s in SCENARIOS if program.dialect in s.dialects):
        result = run(scenario, program)
        if result.status == "fail":
            failed.append(result)
            break  # the library catches it; the rules it broke are checked below
    assert failed, f"no loop scenario catches {program.name}: {program.bug}"
    wanted = CAUGHT_IN.get(program.name) or CAUGHT_BY[_bug_of(program)]
    broken = set(failed[0].rules_broken)
    assert wanted <= broken, render_table(failed)


def test_every_loop_rule_is_needed_by_a_mutant_or_a_bad_program():
    from harness.rules import RULES

    needed = {rule for rules in (*CAUGHT_BY.values(), *CAUGHT_IN.values()) for rule in rules}
    # what no program built on an SDK sends: bodies that are not requests (test_loop_cli.py)
    needed.add("loop-request-readable")
    unneeded = sorted(r.id for r in RULES.values() if r.layer == "loop" and r.id not in needed)
    assert not unneeded, f"loop rules nothing catches: {unneeded}"


def _bug_of(program: LoopProgram) -> str:
    return next(b for b in CAUGHT_BY if program.name.endswith(b))


def test_every_bundled_mutant_names_a_known_bug():
    assert {_bug_of(p) for p in MUTANTS} == set(CAUGHT_BY)


def test_the_program_is_stopped_with_its_process_group(tmp_path: Path):
    """A program that leaves a child behind and hangs: the run ends at the time limit, says what
    it sent, and neither the program nor its child is left running."""
    pid_file = tmp_path / "child.pid"
    script = (
        f"sleep 300 & echo $! > {pid_file}; "
        'curl -s -X POST "$OPENAI_BASE_URL/chat/completions" -d "{}" > /dev/null; sleep 300'
    )
    scenario = next(s for s in SCENARIOS if s.id == "loop-two-tool-cycles")
    result = run_loop(scenario, ["sh", "-c", script], settle=0, timeout=2, env=ENV)
    assert result.status == "fail"
    assert result.outcome is not None and result.outcome.timed_out
    assert "loop-program-exit" in result.rules_broken
    text = render_table([result])
    assert "did not end within the time limit (2 s)" in text
    assert "it sent 1 request, the last POST /v1/chat/completions" in text
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5  # killed at once; reaped by init a moment later
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the program's child {child} outlived the run")


@pytest.mark.parametrize(
    ("scenario_id", "whole"), [("loop-body-cut-mid-call", False), ("loop-body-ends-mid-call", True)]
)
def test_a_cut_drops_the_connection_and_an_end_ends_the_body(scenario_id: str, whole: bool):
    """``cut:N`` is served as ``harness serve`` serves it, without the terminating chunk;
    ``end:N`` with it: a body whole to HTTP whose stream never ended."""
    import http.client
    import json
    import re

    from harness.standin.loop import serving_loop

    scenario = next(s for s in loop_scenarios() if s.id == scenario_id)
    with serving_loop(scenario, dialect="openai-chat", settle=0) as stand:
        host, port = stand.url.removeprefix("http://").rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Begin."}]}
        connection.request(
            "POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"}
        )
        response = connection.getresponse()
        if whole:
            data = response.read()
            assert data and b"[DONE]" not in data  # the stream never ended
            assert re.search(rb'"finish_reason": ?"', data) is None
        else:
            with pytest.raises(http.client.IncompleteRead):
                response.read()
        connection.close()


STOPS_AT_LIMIT = """\
import sys
import openai

client = openai.OpenAI(max_retries=0)
messages = [{"role": "user", "content": "Begin."}]
with client.chat.completions.stream(model="m", messages=messages) as stream:
    for _ in stream:
        pass
    reason = stream.current_completion_snapshot.choices[0].finish_reason
if reason == "length":
    print("the model ran out of tokens: raise max_tokens and ask again")
    sys.exit(STATUS)
"""


@pytest.mark.parametrize("status", [1, 0])
def test_a_loop_may_stop_with_an_error_at_the_token_limit(tmp_path: Path, status: int):
    """Stopping so that the user raises the limit is allowed (the complete call's result is
    not owed then); ending with 0 there takes the cut turn for the answer."""
    program = tmp_path / "agent.py"
    program.write_text(STOPS_AT_LIMIT.replace("STATUS", str(status)))
    scenario = next(s for s in loop_scenarios() if s.id == "loop-max-tokens-cut-call")
    result = run_loop(scenario, [sys.executable, str(program)], dialect="openai-chat", timeout=60)
    if status:
        assert result.status == "pass", render_table([result])
    else:
        assert result.status == "fail"
        assert set(result.rules_broken) == {"loop-request-count"}, render_table([result])
