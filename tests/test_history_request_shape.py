"""`repair-merges` compares a kept pair in the request's own shape: the fields that shape carries,
arguments as JSON values. A correct store that sends OpenAI's Chat Completions shape passes."""

from __future__ import annotations

import json
from textwrap import dedent
from typing import Any

import pytest

from harness.adapters.history.reference import OpenAIReferenceHistoryStore, ReferenceHistoryStore
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.replay import replay
from harness.rules.history import _json_value
from harness.scenario import parse_scenario

# A call whose arguments arrive as compact JSON text, and a call cancelled mid-run that the store
# closes with an error result: the two things OpenAI's shape writes differently.
SCENARIO = dedent(
    """\
    id: request-shape
    title: request shape
    description: a completed call with compact arguments, then a cancelled one
    source: tests
    layer: history
    trace:
      - user_message: {text: "Read a.txt, then run the tests."}
      - interaction_start: {id: i1}
      - message: {id: m1, text: "Reading it first."}
      - tool: {id: call_read, name: read_file, arguments: '{"path":"a.txt","lines":[1,2]}', result: "hello"}
      - tool_executing: {calls: [{id: call_tests, name: bash, input: {cmd: pytest}}]}
      - interaction_end: {id: i1}
      - user_turn_start:
      - user_message: {text: "Stop that; what did a.txt say?"}
    """
)


@pytest.fixture
def scenario():
    return parse_scenario(SCENARIO, "request-shape.yaml")


def adapter(cls: type) -> AdapterInfo:
    return AdapterInfo(cls.__name__, "history", "external", cls)


def messages(result) -> list[str]:
    return [v.message for v in result.violations if v.rule == "repair-merges"]


def test_the_openai_speaking_reference_is_bundled():
    info = BUNDLED["history-openai-reference"]
    assert (info.layer, info.kind, info.factory) == (
        "history",
        "reference",
        OpenAIReferenceHistoryStore,
    )


def test_its_request_is_in_the_openai_shape(scenario):
    store = OpenAIReferenceHistoryStore()
    for event in scenario.trace:
        store.feed(event)
    request: list[dict[str, Any]] = store.request("main")  # JSON: read as Any
    roles = ["user", "assistant", "tool", "assistant", "tool", "user"]
    assert [m["role"] for m in request] == roles
    assert request[1]["tool_calls"][0]["function"]["arguments"] == '{"path":"a.txt","lines":[1,2]}'
    assert all("is_error" not in m for m in request)


@pytest.mark.parametrize("name", ["history-reference", "history-openai-reference"])
def test_a_correct_store_passes_in_either_shape(scenario, name):
    # Before pairs were compared in the request's shape, the OpenAI one failed repair-merges
    # twice here: is_error "changed" from true to false, and the arguments' text "changed".
    result = replay(scenario, name)
    assert result.status == "pass", [v.message for v in result.violations]


class ChangesArguments(OpenAIReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = super().request(session_id)
        for message in out:
            for call in message.get("tool_calls", ()):
                if call["id"] == "call_read":
                    call["function"]["arguments"] = '{"path":"b.txt","lines":[1,2]}'
        return out


class ChangesResult(OpenAIReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = super().request(session_id)
        for message in out:
            if message.get("tool_call_id") == "call_read":
                message["content"] = "hel"
        return out


class LosesErrorFlag(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = super().request(session_id)
        for message in out:
            for block in message["content"] if isinstance(message["content"], list) else ():
                block.pop("is_error", None)
        return out


def test_a_changed_argument_value_is_caught_naming_the_field(scenario):
    found = messages(replay(scenario, adapter(ChangesArguments)))
    assert found and all("(openai shape) changed function.arguments from " in m for m in found)
    assert (
        """'{"path": "a.txt", "lines": [1, 2]}' to '{"path":"b.txt","lines":[1,2]}'""" in found[0]
    )


def test_a_changed_result_is_caught_naming_the_field(scenario):
    found = messages(replay(scenario, adapter(ChangesResult)))
    assert found
    assert "changed tool message content from 'hello' to 'hel'" in found[0]


def test_is_error_still_counts_in_the_anthropic_shape(scenario):
    found = messages(replay(scenario, adapter(LosesErrorFlag)))
    assert found
    assert "call_tests" in found[0]
    assert "(anthropic shape) changed tool_result is_error from 'true' to 'false'" in found[0]


def test_a_lost_pair_says_where_the_request_has_it(scenario):
    class MovesResult(OpenAIReferenceHistoryStore):
        def request(self, session_id: str) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = super().request(session_id)
            tool = next(m for m in out if m.get("tool_call_id") == "call_read")
            out.remove(tool)
            return out

    found = messages(replay(scenario, adapter(MovesResult)))
    assert found
    # the request: 1 user, 2 assistant (the call), ... counted in the list it sends, in its words
    assert (
        "lost that pair: it has its tool call in message 2 (assistant) but no tool message"
        in (found[0])
    )


def test_whitespace_and_key_order_do_not_count_but_types_do():
    assert _json_value('{"a":1,"b":[true]}') == _json_value('{ "b": [true], "a": 1 }')
    assert _json_value('{"a": 1}') != _json_value('{"a": true}')
    assert _json_value("not json") == "not json"
    assert json.loads(_json_value('{"é": 1}')) == {"é": 1}
