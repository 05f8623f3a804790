"""Rendering results: the violation located, the events around it, the commands that reproduce it."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from harness import ConformanceFailure, Violation
from harness.library import library_path
from harness.replay import ScenarioResult, replay
from harness.report import (
    MAX_VIOLATIONS_SHOWN,
    expected_diff,
    render_failure,
    render_table,
    reproduce_commands,
)
from harness.scenario import load_scenario

LIBRARY = library_path()
DRIVER_MUTANT = "driver-mutant-anthropic-batches-calls"
SESSION_MUTANT = "session-mutant-no-message-updated"


def _failure(scenario: str, adapter: str) -> ScenarioResult:
    result = replay(load_scenario(LIBRARY / scenario), adapter)
    assert result.status == "fail"
    return result


@pytest.fixture(scope="module")
def driver_failure():
    return _failure("driver/assembled-message-parallel-calls.yaml", DRIVER_MUTANT)


@pytest.fixture(scope="module")
def session_failure():
    return _failure("session/backward-attachment-basic.yaml", SESSION_MUTANT)


def test_a_driver_failure_shows_the_turn_events_around_the_violation(driver_failure):
    violation = driver_failure.violations[0]
    at = violation.event_index
    turn = driver_failure.scenario.turn
    text = render_failure(driver_failure)
    event = turn[at]
    marked = [line for line in text.splitlines() if re.match(r"\s*>\s+\d", line)]
    # one marked event per root cause; what follows from one is a line beneath it, no excerpt
    assert len(marked) == len(driver_failure.root_causes)
    assert re.search(
        rf"^\s+>\s+{at}\s+line {event.line}\s+{event.kind}\s+index={event.index}$", text, re.M
    )
    # the two events either side, unmarked, in the same style
    for i in (at - 2, at - 1, at + 1, at + 2):
        assert re.search(rf"^\s{{7}}\s+{i}\s+line {turn[i].line}\s+{turn[i].kind}\b", text, re.M)
    # the CLI's table shows the same excerpt
    assert all(line in render_table([driver_failure]) for line in marked)


def test_a_driver_excerpt_names_blocks_calls_and_fragments(driver_failure):
    text = render_failure(driver_failure)
    assert "block_start      index=2 block=tool_use id=toolu_02U name=get_user" in text
    assert "arguments_delta  index=1 fragment='" in text
    assert "message_delta    stop_reason=tool_use" in text


def test_a_session_excerpt_names_the_session(session_failure):
    (violation,) = session_failure.violations
    text = render_failure(session_failure)
    assert re.search(
        rf">\s+{violation.event_index}\s+line \d+\s+tool_completed\s+main  calls=", text
    )


def test_the_failure_text_locates_each_violation_and_ends_with_the_reproduce_commands(
    session_failure,
):
    (violation,) = session_failure.violations
    scenario = session_failure.scenario
    commands = reproduce_commands(session_failure, SESSION_MUTANT, pytest=True)
    lines = render_failure(session_failure, commands).splitlines()
    assert lines[0] == f"1 conformance violation(s) in {scenario.id} ({scenario.title})"
    assert lines[1] == (
        f"  [{violation.rule}] event {violation.event_index}, "
        f"{scenario.path}:{session_failure.line_of(violation)}"
    )
    assert lines[-3:] == ["reproduce:", *(f"  {c}" for c in commands)]


def test_one_cap_on_the_violations_shown_for_the_table_and_the_failure(session_failure):
    many = tuple(Violation("backward-attachment", -1, f"problem {n}") for n in range(13))
    result = replace(session_failure, violations=many)
    hidden = 13 - MAX_VIOLATIONS_SHOWN
    for text in (render_failure(result), render_table([result])):
        assert f"problem {MAX_VIOLATIONS_SHOWN - 1}\n" in text
        assert f"problem {MAX_VIOLATIONS_SHOWN}\n" not in text
        assert f"  ... and {hidden} more root causes (--format json lists them all)" in text


def test_an_error_says_the_adapter_misbehaved(session_failure):
    result = replace(session_failure, status="error", violations=(), error="it raised")
    assert render_failure(result).splitlines()[0] == "the adapter misbehaved: it raised"


def test_reproduce_commands(session_failure, tmp_path, monkeypatch):
    scenario_id = session_failure.scenario.id
    # from a folder outside the checkout, a library scenario is named as pytest names it
    monkeypatch.chdir(tmp_path)
    path = f"harness-library/session/{scenario_id}.yaml"
    assert reproduce_commands(session_failure, "exec:node my consumer.mjs", pytest=True) == [
        f"python -m harness run {path} --adapter 'exec:node my consumer.mjs' --variations=none",
        f"python -m pytest --harness-adapter='exec:node my consumer.mjs' "
        f"--harness-scenario={scenario_id} --harness-variations=none",
    ]
    assert reproduce_commands(session_failure, SESSION_MUTANT) == [
        f"python -m harness run {path} --adapter {SESSION_MUTANT} --variations=none"
    ]
    # an adapter the configuration gives is left to it: the node id stays as it was
    assert reproduce_commands(session_failure, SESSION_MUTANT, pytest=True, adapter_option=False)[
        1
    ] == (f"python -m pytest --harness-scenario={scenario_id} --harness-variations=none")
    # an adapter given as an object: only pytest can run that case again
    assert reproduce_commands(session_failure, None, pytest=True) == [
        f"python -m pytest --harness-scenario={scenario_id} --harness-variations=none"
    ]
    assert reproduce_commands(session_failure, None) == []


def test_conformance_failure_is_an_assertion_carrying_the_result(session_failure):
    failure = ConformanceFailure(session_failure, render_failure(session_failure))
    assert isinstance(failure, AssertionError)
    assert failure.result is session_failure
    assert str(failure).startswith(f"1 conformance violation(s) in {session_failure.scenario.id} ")


def test_no_harness_run_command_for_a_driver_case_that_needs_a_registered_codec(
    driver_failure, session_failure
):
    # harness run loads the bundled dialects only; a conftest's codec is unknown to it
    from harness.codecs import register_codec, unregister_codec
    from harness.codecs.anthropic import AnthropicCodec

    class Gateway(AnthropicCodec):
        name = "gateway-test"

    register_codec(Gateway())
    try:
        driver = reproduce_commands(driver_failure, DRIVER_MUTANT, pytest=True)
        session = reproduce_commands(session_failure, SESSION_MUTANT, pytest=True)
    finally:
        unregister_codec("gateway-test")
    assert [c.split()[2] for c in driver] == ["pytest"]
    assert [c.split()[2] for c in session] == ["harness", "pytest"]
    assert reproduce_commands(driver_failure, DRIVER_MUTANT)[0].startswith("python -m harness run ")


def test_a_driver_failure_shows_the_chunks_around_the_one_its_message_names():
    result = _failure(
        "driver/anthropic-framing-quirks.yaml", "driver-mutant-anthropic-ends-at-first-message-stop"
    )
    (stopped,) = [v for v in result.violations if v.rule == "turn-lifetime"]
    found = re.search(r"after chunk (\d+)", stopped.message)
    assert found is not None and result.driver_run is not None
    named, fed = int(found.group(1)), result.driver_run.chunks
    text = render_failure(result)
    # the named chunk marked, one either side, each with its event and its data escaped
    for number in (named - 1, named, named + 1):
        marker = ">" if number == named else " "
        read = fed[number - 1]
        shown = repr(read.data)
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        assert f"{marker} chunk {number:>4}  event {read.origin:<4} {shown}" in text
    assert f"chunk {named + 2:>4}" not in text
    assert all("\n" not in repr(line) for line in text.splitlines())


def test_a_violation_naming_no_chunk_shows_the_chunk_carrying_its_event():
    result = _failure(
        "driver/anthropic-framing-quirks.yaml", "driver-mutant-anthropic-ends-at-first-message-stop"
    )
    (order,) = [v for v in result.violations if v.rule == "order"]
    assert "chunk" not in order.message and result.driver_run is not None
    first = next(
        n for n, r in enumerate(result.driver_run.chunks, 1) if r.carried == order.event_index
    )
    assert re.search(
        rf"^\s+> chunk {first:>4}  event {order.event_index} ", render_failure(result), re.M
    )


def test_a_failed_session_scenario_shows_the_transcript_against_the_references():
    result = _failure(
        "session/backward-attachment-basic.yaml", "session-mutant-attach-at-next-message"
    )
    diff = expected_diff(result)
    assert diff[:2] == ["--- expected (session-reference)", "+++ observed"]
    # the call is shown under m2, where the reference shows it under m1
    assert "+main  m2 assistant 'The config turns debugging on.'" in diff
    assert "-main  m2 assistant 'The config turns debugging on.'" in diff
    assert " main      call toolu_01 (workspace_read) -> 'debug: true'" in diff
    assert "what the reference shows (-) against what the adapter showed (+):" in render_failure(
        result
    )


def test_a_failed_history_scenario_shows_the_stored_history_and_rebuilt_transcript_diff():
    result = _failure(
        "history/cancel-parallel-one-completed.yaml", "history-mutant-resume-skips-tool-calls"
    )
    diff = expected_diff(result)
    assert "-main      call toolu_01Unit (bash_command) -> '412 passed'" in diff
    assert not any(line.startswith("+") and not line.startswith("+++") for line in diff)
    left_open = _failure(
        "history/cancel-parallel-one-completed.yaml", "history-mutant-interrupted-left-open"
    )
    assert any(line.startswith("-    tool_result toolu_02") for line in expected_diff(left_open))


def test_no_diff_for_a_passing_result_or_a_driver_failure(session_failure, driver_failure):
    assert expected_diff(replace(session_failure, status="pass")) == []
    assert expected_diff(driver_failure) == []


def test_harness_run_finds_a_library_scenario_as_the_reproduce_command_names_it(
    session_failure, tmp_path, monkeypatch, capsys
):
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    (command,) = reproduce_commands(session_failure, SESSION_MUTANT)
    assert main(command.split()[3:]) == 1
    assert f"[{session_failure.violations[0].rule}]" in capsys.readouterr().out
