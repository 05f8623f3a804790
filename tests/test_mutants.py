"""Each mutant of the Gemini, OpenAI Responses and AG-UI drivers, and the newer session and
history mutants, shows its bug on a minimal input that the reference gets right.

The driver mutants' bugs need a shape of the stream, a quirk of their dialect: each test also
shows that without the quirk the mutant passes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from harness.adapters.registry import BUNDLED
from harness.codecs.registry import dialects
from harness.model.driver import ToolCallOut
from harness.replay import ScenarioResult, replay
from harness.scenario import DriverScenario
from tests.scenarios_for_tests import parse_driver, parse_session

TWO_CALLS = """\
id: two-calls
title: t
description: d
source: tests
layer: driver
dialects: [{dialect}]
trace:
  - cycle:
      blocks:
        - tool_use: {{id: call_1, name: write_file, input: {{path: a.rs, content: "fn a() {{}}"}}, chunks: 3}}
        - tool_use: {{id: call_2, name: write_file, input: {{path: b.rs, content: "fn b() {{}}"}}, chunks: 3}}
"""


def two_calls(dialect: str) -> DriverScenario:
    return parse_driver(TWO_CALLS.format(dialect=dialect), "two-calls.yaml")


def with_quirk(scenario: DriverScenario, quirk: str) -> DriverScenario:
    return dataclasses.replace(scenario, quirks=(*scenario.quirks, quirk))


def failure(result: ScenarioResult) -> str:
    return result.error or "\n".join(f"[{v.rule}] {v.message}" for v in result.violations)


@pytest.mark.parametrize(
    ("mutant", "dialect", "quirk", "rule"),
    [
        (
            "gemini-first-call-per-response",
            "gemini-sse",
            "parallel_calls_one_chunk",
            "emit-once-early",
        ),
        ("gemini-array-element-per-read", "gemini-json-array", "split_elements", "robust-framing"),
        (
            "responses-next-item-ends-call",
            "openai-responses",
            "interleaved_calls",
            "strict-assembly",
        ),
        ("responses-rejects-unknown-fields", "openai-responses", "obfuscation", "robust-framing"),
        ("ag-ui-end-closes-latest-call", "ag-ui", "interleaved_args", "order"),
        ("ag-ui-step-end-discards-open-calls", "ag-ui", "no_tool_call_end", "emit-once-early"),
    ],
)
def test_a_driver_mutant_fails_two_parallel_calls_under_its_quirk_only(
    mutant: str, dialect: str, quirk: str, rule: str
) -> None:
    plain = two_calls(dialect)
    quirked = with_quirk(plain, quirk)
    reference = BUNDLED[f"driver-{dialect}-reference"]
    adapter = BUNDLED[f"driver-mutant-{mutant}"]
    driver: Any = adapter.factory()
    assert driver.dialect == dialect
    assert replay(quirked, reference).status == "pass", failure(replay(quirked, reference))
    assert replay(plain, adapter).status == "pass", failure(replay(plain, adapter))
    caught = replay(quirked, adapter)
    assert caught.status == "fail", caught.error
    assert rule in caught.rules_broken, failure(caught)


def call_ids(name: str, scenario: DriverScenario) -> list[str]:
    """The ids of the calls the bundled driver ``name`` emits for the scenario's turn."""
    adapter: Any = BUNDLED[name].factory()
    codec = dialects()[adapter.dialect]
    chunks = iter([c.data for c in codec.encode(scenario.turn, scenario.quirks)])
    return [o.id for o in adapter.drive(chunks) if isinstance(o, ToolCallOut)]


def test_gemini_first_call_per_response_loses_the_second_call() -> None:
    scenario = with_quirk(two_calls("gemini-sse"), "parallel_calls_one_chunk")
    assert call_ids("driver-gemini-sse-reference", scenario) == ["call_1", "call_2"]
    assert call_ids("driver-mutant-gemini-first-call-per-response", scenario) == ["call_1"]


def test_ag_ui_end_closes_latest_call_reverses_parallel_calls() -> None:
    scenario = with_quirk(two_calls("ag-ui"), "interleaved_args")
    assert call_ids("driver-ag-ui-reference", scenario) == ["call_1", "call_2"]
    assert call_ids("driver-mutant-ag-ui-end-closes-latest-call", scenario) == ["call_2", "call_1"]


# -- session ----------------------------------------------------------------------------------

SAME_TOOL_TWICE = """\
id: same-tool-twice
title: t
description: d
source: tests
layer: session
rules: [notification-lifecycle]
trace:
  - user_message: {id: u1, text: "Read both files."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "Reading a and b."}
  - tool_executing:
      calls:
        - {id: toolu_a, name: read_file, input: {path: a}}
        - {id: toolu_b, name: read_file, input: {path: b}}
  - tool_completed:
      calls: [{id: toolu_a, name: read_file, input: {path: a}}]
      results: [{id: toolu_a, content: "A"}]
  - checkpoint: {name: b-still-running}
  - tool_completed:
      calls: [{id: toolu_b, name: read_file, input: {path: b}}]
      results: [{id: toolu_b, content: "B"}]
  - interaction_end: {id: i1}
"""


def test_completion_clears_by_name_drops_the_other_call_of_the_tool() -> None:
    scenario = parse_session(SAME_TOOL_TWICE, "same-tool-twice.yaml")
    assert replay(scenario, "session-reference").status == "pass"
    caught = replay(scenario, "session-mutant-completion-clears-by-name")
    assert "notification-lifecycle" in caught.rules_broken, failure(caught)
    assert any("toolu_b" in v.message for v in caught.violations), failure(caught)


TWO_SESSIONS_STREAMING = """\
id: two-sessions-streaming
title: t
description: d
source: tests
layer: session
rules: [subsession-isolation]
trace:
  - user_message: {id: u1, text: "Ask the helper."}
  - interaction_start: {id: i1}
  - message_start: {id: m1}
  - subsession_start: {session: helper, parent: main}
  - message_start: {session: helper, id: h1}
  - message_delta: {id: m1, text: "Asking the helper."}
  - message_delta: {session: helper, id: h1, text: "On it."}
  - subsession_end: {session: helper}
  - interaction_end: {id: i1}
"""


def test_deltas_to_latest_message_writes_parent_text_into_the_sub_session() -> None:
    scenario = parse_session(TWO_SESSIONS_STREAMING, "two-sessions-streaming.yaml")
    assert replay(scenario, "session-reference").status == "pass"
    caught = replay(scenario, "session-mutant-deltas-to-latest-message")
    assert caught.status == "fail", caught.error
    assert "subsession-isolation" in caught.rules_broken, failure(caught)


# -- history ----------------------------------------------------------------------------------

REPEATED_COMPLETION = """\
id: repeated-completion
title: t
description: d
source: tests
layer: history
rules: [reverse-pairing]
trace:
  - user_message: {text: "Run it."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "Running."}
  - tool: {id: toolu_run, name: bash_command, input: {cmd: make}, result: ok}
  - interaction_end: {id: i1}
faults:
  - duplicate: {match: {type: tool_completed, id: toolu_run}, times: 1}
"""


def test_result_appended_twice_stores_a_repeated_completion_twice() -> None:
    scenario = parse_session(REPEATED_COMPLETION, "repeated-completion.yaml")
    assert replay(scenario, "history-reference").status == "pass"
    caught = replay(scenario, "history-mutant-result-appended-twice")
    assert "reverse-pairing" in caught.rules_broken, failure(caught)


RESTORED_USE_THEN_TEXT = """\
id: restored-use-then-text
title: t
description: d
source: tests
layer: history
rules: [forward-pairing]
trace:
  - resume:
      history:
        - {role: user, content: "Fetch INC-15."}
        - role: assistant
          content:
            - {type: tool_use, id: toolu_fetch, name: get_incident, input: {id: INC-15}}
        - {role: user, content: "Also check INC-12."}
  - user_message: {text: "Actually, just close INC-12."}
"""


def test_result_after_user_text_puts_the_result_after_the_users_text() -> None:
    scenario = parse_session(RESTORED_USE_THEN_TEXT, "restored-use-then-text.yaml")
    stored = {}
    for name in ("history-reference", "history-mutant-result-after-user-text"):
        adapter: Any = BUNDLED[name].factory()
        for event in scenario.events:
            adapter.feed(event)
        stored[name] = [block["type"] for block in adapter.history("main")[2]["content"]]
    assert stored["history-reference"][0] == "tool_result"
    assert stored["history-mutant-result-after-user-text"][:2] == ["text", "tool_result"]
    assert replay(scenario, "history-reference").status == "pass"
    result = replay(scenario, "history-mutant-result-after-user-text")
    assert result.rules_broken == ("results-first",)
