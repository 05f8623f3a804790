"""A history-layer failure names a message as the store holds it: counted from 1 in the list the
adapter returned, with the role that list gives it (an OpenAI ``tool`` message is a tool
message), and each message once, not once by position and again by its count."""

from __future__ import annotations

import re
from typing import Any

from harness.adapters.history.mutants import ResultAppendedTwice, SubagentIntoParent
from harness.adapters.registry import AdapterInfo
from harness.history import repair_history, to_openai
from harness.library import library_path
from harness.replay import replay
from harness.rules.registry import Violation
from harness.scenario import load_scenario


def run(adapter: str | AdapterInfo, scenario: str) -> tuple[Violation, ...]:
    return replay(
        load_scenario(library_path() / "history" / f"{scenario}.yaml"), adapter
    ).violations


def openai_shaped(cls: type) -> AdapterInfo:
    """The store with that bug, keeping (and sending) its history in OpenAI's shape."""

    class OpenAIShaped(cls):  # type: ignore[misc]
        def history(self, session_id: str) -> list[dict[str, Any]]:
            return to_openai(self.stored(session_id))

        def request(self, session_id: str) -> list[dict[str, Any]]:
            return repair_history(to_openai(self.stored(session_id)))

    return AdapterInfo(f"openai-{cls.__name__}", "history", "external", OpenAIShaped)


def test_an_openai_shaped_store_has_tool_messages_counted_in_its_own_list() -> None:
    # stored: 1 user, 2 assistant (the call), 3 tool, 4 tool (the same result again), ...
    found = run(openai_shaped(ResultAppendedTwice), "duplicated-completion-single-result")
    first = next(v.message for v in found if "toolu_01Rotate" in v.message)
    assert first.startswith(
        "in the stored history of session 'main': message 4 (tool) answers tool call "
        "'toolu_01Rotate' of message 2 (assistant) a second time; message 3 (tool) already "
        "answers it"
    ), first
    for violation in found:
        assert "(user)" not in violation.message, violation.message
        assert "tool_result" not in violation.message, violation.message


def test_an_openai_shaped_store_leaking_text_names_the_message_holding_it() -> None:
    found = run(openai_shaped(SubagentIntoParent), "cancel-subagent-mid-delegation")
    leaks = [v.message for v in found if v.rule == "parent-isolation"]
    assert leaks
    # 1 user, 2 assistant with the leaked text (the old message counted from 0: "message 1")
    assert "' in message 2 (assistant); in the trace that text is " in leaks[0], leaks[0]


def test_a_message_is_named_once_not_by_position_and_again_by_count() -> None:
    found = run("history-mutant-interrupted-left-open", "cancel-between-use-and-result")
    assert found
    for violation in found:
        assert not re.search(r"message \d+: message \d+", violation.message), violation.message
    assert found[0].message.startswith(
        "in the stored history of session 'main': message 2 (assistant) calls 'bash_command' "
        "as tool_use 'toolu_tests', but no message follows it with its tool_result"
    ), found[0].message


def test_a_results_only_message_is_counted_from_1_with_its_role() -> None:
    # the request: 1 user, 2 assistant, 3 user, 4 assistant, 5 user (the inserted results),
    # 6 user (the new prompt), 7 assistant
    found = run("history-mutant-repair-inserts-message", "restored-orphans-then-new-prompt")
    merges = [v.message for v in found if v.rule == "repair-merges"]
    assert merges
    assert (
        "has message 5 (user) holding only the results 'toolu_fetch' right before another user "
        "message, message 6 (user); expected: "
    ) in merges[0], merges[0]
