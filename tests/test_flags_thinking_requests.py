"""Error flags, thinking blocks in requests, and the request while a call is open: what the
rules `result-error-flag`, `history-error-flags`, `thinking-in-request` and `request-while-open`
count, and what they leave alone."""

from __future__ import annotations

from typing import Any

import pytest

from harness.adapters.history.reference import ReferenceHistoryStore
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.history import HistoryFormatError, from_anthropic, to_anthropic, to_openai
from harness.model.history import HistoryMessage, TextBlock, ThinkingBlock, ToolUseBlock
from harness.model.session import event_to_json
from harness.replay import ScenarioResult, replay
from tests.scenarios_for_tests import load_session, parse_session


def broken(result: ScenarioResult, rule: str) -> list[str]:
    return [v.message for v in result.violations if v.rule == rule]


# -- the thinking signature in the neutral history ---------------------------------------------


def test_a_signed_thinking_block_reads_and_writes_back_unchanged() -> None:
    messages = [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "check the log", "signature": "EqQBsig"},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {}},
            ],
        }
    ]
    history = from_anthropic(messages)
    assert history[0].blocks[0] == ThinkingBlock("check the log", "EqQBsig")
    assert to_anthropic(history) == messages


def test_an_unsigned_thinking_block_is_written_without_a_signature_key() -> None:
    written = to_anthropic([HistoryMessage("assistant", (ThinkingBlock("hm"), TextBlock("ok")))])
    assert written[0]["content"][0] == {"type": "thinking", "thinking": "hm"}


def test_a_signature_that_is_not_text_is_a_located_error() -> None:
    bad = [
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": 7}]}
    ]
    with pytest.raises(HistoryFormatError) as caught:
        from_anthropic(bad)
    assert caught.value.index == 0
    assert "'signature' should be a string, got a number" in str(caught.value)


def test_a_resume_step_carries_the_signature_to_the_event() -> None:
    scenario = load_session("scenarios/history/thinking-kept-in-tool-turn.yaml")
    restored = scenario.events[0].history  # type: ignore[attr-defined]
    assert restored[1].blocks[0].signature == "EqQBCkYIBxgCKkD1nightlyLogSig"


# -- error flags --------------------------------------------------------------------------------

FAILED_TOOL = """\
id: failed-tool
title: t
description: d
source: tests
layer: {layer}
trace:
  - user_message: {{id: u1, text: "Deploy."}}
  - interaction_start: {{id: i1}}
  - message: {{id: m1, text: "Deploying."}}
  - tool: {{id: toolu_dep, name: sh, input: {{cmd: deploy}}, result: "image not found", is_error: true}}
  - tool: {{id: toolu_ls, name: sh, input: {{cmd: ls}}, result: "a b"}}
  - message: {{id: m2, text: "The deploy failed."}}
  - interaction_end: {{id: i1}}
"""


def test_a_failed_tool_shown_as_succeeded_breaks_result_error_flag_only() -> None:
    scenario = parse_session(FAILED_TOOL.format(layer="session"))
    assert replay(scenario, "session-reference").status == "pass"
    result = replay(scenario, "session-mutant-error-flag-dropped-live")
    assert result.rules_broken == ("result-error-flag",)
    (message,) = broken(result, "result-error-flag")
    assert "'toolu_dep'" in message
    assert "shows is_error false (succeeded)" in message
    assert "carried is_error true (failed)" in message
    assert result.violations[0].event_index == 7  # the failed call's completion


def test_a_store_losing_the_flag_is_named_in_the_stored_history_the_request_and_the_rebuild() -> (
    None
):
    scenario = parse_session(FAILED_TOOL.format(layer="history"))
    assert replay(scenario, "history-reference").status == "pass"
    result = replay(scenario, "history-mutant-error-flag-lost-on-persist")
    messages = broken(result, "history-error-flags")
    assert any(m.startswith("the stored history") for m in messages)
    assert any(m.startswith("the request (anthropic shape)") for m in messages)
    assert any(m.startswith("rebuilding session 'main'") for m in messages)
    assert all("'toolu_dep'" in m for m in messages)  # the call that succeeded is not named
    # one cause: every finding is about the same call
    assert len([v for v in result.violations if v.cause is None]) == 1


class _OpenAIStore(ReferenceHistoryStore):
    """Stores and sends the Chat Completions shape, which has no is_error."""

    def history(self, session_id: str) -> list[dict[str, object]]:
        return to_openai(self.stored(session_id))

    def request(self, session_id: str) -> list[dict[str, object]]:
        return self.history(session_id)


def test_a_shape_without_is_error_is_not_held_to_it() -> None:
    scenario = parse_session(FAILED_TOOL.format(layer="history"))
    store = AdapterInfo("openai-store", "history", "reference", _OpenAIStore)
    assert replay(scenario, store).status == "pass"


# -- the request while a call is open ---------------------------------------------------------


def test_the_seed_repair_is_caught_where_a_placeholder_goes_next_to_a_real_result() -> None:
    scenario = load_session("scenarios/history/parallel-call-open-request.yaml")
    result = replay(scenario, "history-mutant-repair-placeholder-apart")
    messages = broken(result, "request-while-open")
    assert messages and all("checkpoint lint-still-running" in m for m in messages)
    # the real result the separate message orphans
    assert all(
        "tool_result for 'toolu_02PoTypes'" in m or "no tool_result for it" in m for m in messages
    )
    assert all("'toolu_02PoTypes'" in m for m in messages)


def test_a_correct_request_mid_turn_holds_the_placeholder_and_the_result_in_one_message() -> None:
    scenario = load_session("scenarios/history/parallel-call-open-request.yaml")
    store: Any = BUNDLED["history-reference"].factory()
    for event in scenario.events[: scenario.events.index(_named(scenario, "lint-still-running"))]:
        store.feed(event)
    request = store.request("main")
    assert [m["role"] for m in request] == ["user", "assistant", "user"]
    results = {b["tool_use_id"]: b["is_error"] for b in request[2]["content"]}
    assert results == {"toolu_01PoLint": True, "toolu_02PoTypes": False}


def _named(scenario: Any, name: str) -> Any:
    return next(e for e in scenario.events if getattr(e, "name", None) == name)


def test_a_request_without_the_running_calls_result_is_found_only_while_it_runs() -> None:
    scenario = load_session("scenarios/history/parallel-call-open-request.yaml")
    result = replay(scenario, "history-mutant-request-unrepaired-while-open")
    messages = broken(result, "request-while-open")
    assert messages and all("still running" in m for m in messages)
    assert {"checkpoint both-running", "checkpoint lint-still-running"} == {
        m.split("open (", 1)[1].split(")", 1)[0] for m in messages
    }


# -- thinking in the request -----------------------------------------------------------------

EARLIER_TURN_THOUGHT = """\
id: earlier-turn-thought
title: t
description: d
source: tests
layer: history
trace:
  - resume:
      history:
        - {role: user, content: "Read a."}
        - role: assistant
          content:
            - {type: thinking, thinking: "read it", signature: "sig-a"}
            - {type: tool_use, id: toolu_a, name: read, input: {}}
        - role: user
          content:
            - {type: tool_result, tool_use_id: toolu_a, content: "A"}
        - {role: assistant, content: "A says A."}
  - user_message: {text: "Thanks."}
"""


def test_thinking_of_a_finished_turn_may_be_left_out() -> None:
    scenario = parse_session(EARLIER_TURN_THOUGHT)
    result = replay(scenario, "history-mutant-request-drops-thinking")
    assert "thinking-in-request" not in result.rules_broken


def test_thinking_of_the_continued_turn_must_be_sent_with_its_signature() -> None:
    scenario = load_session("scenarios/history/thinking-kept-in-tool-turn.yaml")
    assert replay(scenario, "history-reference").status == "pass"
    unsigned = broken(
        replay(scenario, "history-mutant-request-drops-signature"), "thinking-in-request"
    )
    assert len(set(unsigned)) == 1  # the live thought has no signature to lose
    assert "(no signature)" in unsigned[0] and "signature 'EqQBCkYIBxgC'" in unsigned[0]
    dropped = broken(
        replay(scenario, "history-mutant-request-drops-thinking"), "thinking-in-request"
    )
    assert {m.split("with tool_use ", 1)[1].split(",", 1)[0] for m in dropped} == {
        "'toolu_01TkLog'",
        "'toolu_02TkCompose'",
    }


def test_a_shape_without_thinking_is_exempt() -> None:
    scenario = load_session("scenarios/history/thinking-kept-in-tool-turn.yaml")
    assert replay(scenario, "history-openai-reference").status == "pass"


def test_the_thinking_compared_is_the_assistant_message_of_the_same_tool_use() -> None:
    history = (
        HistoryMessage("user", (TextBlock("go"),)),
        HistoryMessage("assistant", (ThinkingBlock("t", "s"), ToolUseBlock("x", "read"))),
    )
    assert to_anthropic(history)[1]["content"][0]["signature"] == "s"


def test_a_process_receives_the_signature_and_the_flag_in_the_resume_event() -> None:
    scenario = load_session("scenarios/history/restored-crash-mid-parallel-thinking.yaml")
    sent = event_to_json(scenario.events[0])
    thinking, *_ = sent["history"][1]["content"]
    assert thinking == {
        "type": "thinking",
        "thinking": "Read both lockfiles and compare the resolved versions.",
        "signature": "EuYBCkQIBhgCLockfilesSig",
    }
    result = sent["history"][2]["content"][0]
    assert result["is_error"] is False and result["tool_use_id"] == "toolu_01RcNpm"
