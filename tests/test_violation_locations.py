"""Where a violation points: the event that caused it, and the file and line that event came from."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

from harness import replay
from harness._files import shown
from harness.adapters.driver.mutants import BatchesCalls
from harness.adapters.registry import AdapterInfo
from harness.report import render_violation
from harness.scenario import load_scenario
from tests.scenarios_for_tests import parse_session

# A store that copies a sub-agent's messages into its parent: the leaked text is the
# sub-agent's message, started long before the checkpoint.
SUB_AGENT_TEXT = dedent(
    """\
    id: leak
    title: leak
    description: a sub-agent's message, then parent events up to a checkpoint
    source: tests
    layer: history
    trace:
      - user_message: {text: "Ask the QA agent."}
      - interaction_start: {id: i1}
      - message: {id: m1, text: "Asking QA."}
      - subsession_start: {session: qa, parent: main}
      - message: {session: qa, id: q1, text: "QA: all good."}
      - subsession_end: {session: qa, parent: main}
      - message: {id: m2, text: "QA says all good."}
      - interaction_end: {id: i1}
      - checkpoint: {name: after-turn}
      - user_turn_start:
    """
)


def test_a_sub_agent_text_leak_is_located_at_the_leaking_message():
    scenario = parse_session(SUB_AGENT_TEXT, "leak.yaml")
    result = replay(scenario, "history-mutant-subagent-into-parent")
    leaks = [v for v in result.violations if "holds the text" in v.message]
    assert leaks, result.violations
    starts = [
        i
        for i, event in enumerate(scenario.trace)
        if type(event).__name__ == "MessageStart" and event.session_id == "qa"
    ]
    # one violation, at the sub-agent's message (not at the checkpoint, nor once per
    # checkpoint, nor at each delta an observation saw it grow to)
    assert [v.event_index for v in leaks] == starts
    assert len(starts) == 1
    assert "'QA: all good.'" in leaks[0].message


# A recorded stream's violations point into the recording: its own file, the cassette's body, or
# for an inline body, the scenario's lines when they can be followed there.
RECORDED = Path(__file__).parent.parent / "cassettes/real-traffic/anthropic-sdk-python"


class _BatchesCallsOnTheMessagesAPI(BatchesCalls):
    dialect = "anthropic"  # the bundled mutant reads the agent stream; these recordings are bodies


HOLDS_CALLS = AdapterInfo(
    "batches-calls-messages-api", "driver", "mutant", _BatchesCallsOnTheMessagesAPI
)
WIRE_HEADER = """\
id: wire-{kind}
title: wire
description: a recorded tool call that the driver holds back
source: tests
layer: driver
"""


def first_location(
    scenario_text: str, path: Path, adapter: str | AdapterInfo
) -> tuple[str, dict[str, object]]:
    """The header line of the first violation as rendered, and the violation in the JSON."""
    path.write_text(scenario_text)
    result = replay(load_scenario(path), adapter)
    assert result.status == "fail"
    header = render_violation(result, result.violations[0])[0]
    violations = result.to_json()["violations"]
    assert isinstance(violations, list)
    return header, violations[0]


def line_number(text: str, line: str) -> int:
    """The number of the last line that reads ``line`` (the tool call's block_stop, here)."""
    lines = text.splitlines()
    return len(lines) - lines[::-1].index(line)


def test_a_wire_file_violation_points_at_the_recordings_own_line(tmp_path):
    recording = tmp_path / "stream.sse"
    recording.write_bytes((RECORDED / "tool_use_response.txt").read_bytes())
    text = WIRE_HEADER.format(kind="file") + "wire: {dialect: anthropic, file: stream.sse}\n"
    header, violation = first_location(text, tmp_path / "s.yaml", HOLDS_CALLS)
    line = line_number(recording.read_text(), "event: content_block_stop")
    assert header.endswith(f", {shown(recording.resolve())}:{line}")
    assert (violation["file"], violation["line"]) == (shown(recording.resolve()), line)


def test_an_inline_literal_body_violation_points_at_the_scenarios_own_line(tmp_path):
    body = (RECORDED / "tool_use_response.txt").read_text()
    text = (
        WIRE_HEADER.format(kind="inline")
        + "wire:\n  dialect: anthropic\n  body: |\n"
        + "".join(f"    {line}\n" if line else "\n" for line in body.splitlines())
    )
    scenario_file = tmp_path / "s.yaml"
    header, _ = first_location(text, scenario_file, HOLDS_CALLS)
    line = line_number(text, "    event: content_block_stop")
    assert header.endswith(f", {scenario_file}:{line}")


def test_an_inline_quoted_body_violation_points_at_the_body(tmp_path):
    body = (RECORDED / "tool_use_response.txt").read_text()
    body_line = "  body: " + json.dumps(body)
    text = WIRE_HEADER.format(kind="quoted") + "wire:\n  dialect: anthropic\n" + body_line + "\n"
    scenario_file = tmp_path / "s.yaml"
    header, _ = first_location(text, scenario_file, HOLDS_CALLS)
    # one YAML line holds every line of the body: that line is as exact as it gets
    assert header.endswith(f", {scenario_file}:{line_number(text, body_line)}")


def test_a_cassette_violation_points_at_the_interactions_body(tmp_path):
    cassette = Path(__file__).parent.parent / "cassettes/real-traffic/llm/test_tool_use_basic.yaml"
    text = dedent(
        f"""\
        id: wire-cassette
        title: wire
        description: a recorded tool call
        source: tests
        layer: driver
        wire: {{dialect: openai-chat, cassette: {cassette}, interaction: 0}}
        """
    )
    header, violation = first_location(text, tmp_path / "s.yaml", "driver-mutant-openai-keys-by-id")
    # the body's lines count within it, as its read errors name it; not the scenario's lines
    named = shown(cassette.resolve())  # relative to the working folder when inside it
    assert f", {named} interactions[0] response body:" in header
    assert violation["file"] == f"{named} interactions[0] response body"
