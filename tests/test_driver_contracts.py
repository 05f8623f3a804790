"""What counts as a driver-layer violation: correct consumers that behave differently by design
pass (framing read before an emission, acting on the whole message, arguments re-serialised,
calls that finish out of order), and the same consumers with a real fault still fail."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from harness.adapters.driver.openai_responses import OpenAIResponsesDriver
from harness.adapters.driver.reference import (
    AnthropicAgentDriver,
    AnthropicDriver,
    OpenAIChatDriver,
)
from harness.adapters.registry import AdapterInfo
from harness.model.driver import DriverOutput, Refusal, ToolCallOut, TurnEnd
from harness.replay import ScenarioResult, replay
from harness.report import render_violations
from harness.rules.driver_timing import same_arguments
from harness.scenario import DriverScenario, Scenario, load_scenario
from tests.scenarios_for_tests import library_driver as library
from tests.scenarios_for_tests import parse_driver


def scenario(text: str) -> DriverScenario:
    return parse_driver(dedent(text))


def run(driver: Any, target: Scenario) -> ScenarioResult:
    return replay(target, AdapterInfo("test-driver", "driver", "external", lambda: driver))


def rules_broken(result: ScenarioResult) -> set[str]:
    assert result.status in ("pass", "fail"), result.error or result.skip_reason
    return set(result.rules_broken)


class HoldsCallsToTurnEnd:
    """A correct driver's outputs, with every tool call held back until the end of the turn
    (as a consumer that acts on the assembled response does)."""

    layers = ("driver",)

    def __init__(self, base: Any, contract: str) -> None:
        self.base = base
        self.dialect = base.dialect
        self.emits_calls = contract

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        held: list[ToolCallOut] = []
        for output in self.base.drive(chunks):
            if isinstance(output, ToolCallOut):
                held.append(output)
                continue
            if isinstance(output, TurnEnd):
                yield from held
                held.clear()
            yield output


class Reserialises:
    """A correct driver that hands over arguments parsed and dumped again (compact, keys
    sorted, an empty text as ``{}``), as SDKs that parse the arguments do; ``drop`` loses a key
    on the way, which is a real fault."""

    layers = ("driver",)

    def __init__(self, base: Any, drop: str | None = None) -> None:
        self.base = base
        self.dialect = base.dialect
        self.drop = drop

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in self.base.drive(chunks):
            if isinstance(output, ToolCallOut) and output.valid:
                value = json.loads(output.arguments or "{}")
                value.pop(self.drop, None)
                text = json.dumps(value, separators=(",", ":"), sort_keys=True)
                output = ToolCallOut(output.id, output.name, text, True)
            yield output


ONE_CALL_WITH_FRAMING = """\
    id: one-call-framing
    title: one call, then a usage chunk, keep-alives and [DONE]
    description: everything after the finish chunk is framing
    source: tests
    layer: driver
    dialects: [openai-chat]
    quirks: [usage_chunk, keep_alive]
    trace:
      - cycle:
          blocks:
            - tool_use: {id: call_1, name: read_file, input: {path: a.txt}}
    """


def test_a_call_emitted_after_framing_only_is_on_time() -> None:
    # The call is complete at the finish chunk; this driver passes it on at [DONE], after a
    # keep-alive and a usage chunk: nothing a user could see was held back.
    driver = HoldsCallsToTurnEnd(OpenAIChatDriver(), "per-call")
    assert rules_broken(run(driver, scenario(ONE_CALL_WITH_FRAMING))) == set()


def test_a_call_held_past_content_is_late_and_the_message_says_what_was_read() -> None:
    # Two parallel calls: the first is complete when the second starts, and the driver reads
    # the second call's fragments before passing the first on.
    result = run(HoldsCallsToTurnEnd(OpenAIChatDriver(), "per-call"), library("parallel-calls"))
    assert "emit-once-early" in rules_broken(result)
    (late,) = [v for v in result.violations if v.rule == "emit-once-early"]
    assert "chunk(s) of content without passing the call on" in late.message


@pytest.mark.parametrize(
    "name", ["parallel-calls", "usage-chunk-empty-choices", "keep-alive-around-tool-call"]
)
def test_a_consumer_that_acts_on_the_whole_message_keeps_its_declared_contract(name: str) -> None:
    driver = HoldsCallsToTurnEnd(OpenAIChatDriver(), "per-message")
    assert rules_broken(run(driver, library(name))) == set()


def test_the_per_message_contract_still_wants_each_message_s_calls_when_it_ends() -> None:
    # Several message cycles in one turn: holding the first cycle's call to the end of the
    # turn means reading the next cycle's content first.
    driver = HoldsCallsToTurnEnd(AnthropicAgentDriver(), "per-message")
    assert "emit-once-early" in rules_broken(run(driver, library("multi-cycle-turn")))


def test_an_unknown_contract_is_an_adapter_error() -> None:
    result = run(HoldsCallsToTurnEnd(OpenAIChatDriver(), "at-leisure"), library("parallel-calls"))
    assert result.status == "error"
    assert "emits_calls is 'at-leisure'" in (result.error or "")


@pytest.mark.parametrize(
    "name", ["parallel-calls", "empty-arguments", "empty-arguments-next-to-call"]
)
def test_arguments_compare_as_json_values(name: str) -> None:
    target = library(name)
    assert rules_broken(run(Reserialises(AnthropicDriver()), target)) == set()


def test_a_lost_key_is_still_a_difference() -> None:
    driver = Reserialises(AnthropicDriver(), drop="path")
    assert "strict-assembly" in rules_broken(run(driver, library("parallel-calls")))


@pytest.mark.parametrize(
    ("emitted", "streamed", "same"),
    [
        ('{"a": 1, "b": [1, 2]}', '{"b":[1,2],"a":1}', True),
        ("{}", "", True),
        (" ", "{}", True),
        ('{"a": true}', '{"a": 1}', False),
        ('{"a": 1.0}', '{"a": 1}', False),
        ('{"a": 1}{"a": 1}', '{"a": 1}', False),
        ('{"a": 1', '{"a": 1', True),
        ('{"a": 1', '{"a": 1}', False),
    ],
)
def test_same_arguments(emitted: str, streamed: str, same: bool) -> None:
    assert same_arguments(emitted, streamed) is same


INTERLEAVED = """\
    id: interleaved-calls
    title: two calls whose fragments interleave; the second finishes first
    description: block 1 stops before block 0
    source: tests
    layer: driver
    dialects: [anthropic]
    trace:
      - message_start: {message_id: msg_1}
      - block_start: {index: 0, block: tool_use, id: toolu_a, name: read_file}
      - block_start: {index: 1, block: tool_use, id: toolu_b, name: list_dir}
      - arguments_delta: {index: 0, fragment: '{"path": '}
      - arguments_delta: {index: 1, fragment: '{"dir": "src"}'}
      - block_stop: {index: 1}
      - arguments_delta: {index: 0, fragment: '"a.txt"}'}
      - block_stop: {index: 0}
      - message_delta: {stop_reason: tool_use}
      - message_stop: {}
    """


def test_calls_that_finish_out_of_order_come_out_as_they_finish() -> None:
    # One ordering contract: a call is due when it is complete, so the second call, which
    # finishes first, comes out first; the reference does exactly that and breaks nothing.
    target = scenario(INTERLEAVED)
    assert rules_broken(run(AnthropicDriver(), target)) == set()
    outputs = AnthropicDriver().drive(iter(_chunks(target)))
    assert [o.id for o in outputs if isinstance(o, ToolCallOut)] == ["toolu_b", "toolu_a"]


class StartOrder:
    """Holds each call until the calls started before it are out: start order, but late."""

    layers = ("driver",)
    dialect = "anthropic"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        waiting: list[ToolCallOut] = []
        for output in AnthropicDriver().drive(chunks):
            if isinstance(output, ToolCallOut):
                waiting.append(output)
                if output.id == "toolu_a":
                    yield from sorted(waiting, key=lambda c: c.id)
                    waiting.clear()
                continue
            yield output


def test_holding_a_finished_call_for_start_order_is_late() -> None:
    assert "emit-once-early" in rules_broken(run(StartOrder(), scenario(INTERLEAVED)))


def _chunks(target: DriverScenario) -> list[str]:
    from harness.codecs import dialects

    return [c.data for c in dialects()["anthropic"].encode(target.turn)]


def test_text_still_comes_before_a_call_that_follows_it() -> None:
    class CallsFirst:
        layers = ("driver",)
        dialect = "anthropic"

        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            outputs = list(AnthropicDriver().drive(chunks))
            calls = [o for o in outputs if isinstance(o, ToolCallOut)]
            rest = [o for o in outputs if not isinstance(o, ToolCallOut)]
            yield from calls
            yield from rest

    assert rules_broken(run(CallsFirst(), library("text-before-tool-call"))) == {"order"}


class ReportsStop:
    """A correct driver that reports the end of the turn with the given stop reason."""

    layers = ("driver",)

    def __init__(self, base: Any, reason: str) -> None:
        self.base = base
        self.dialect = base.dialect
        self.reason = reason

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in self.base.drive(chunks):
            yield TurnEnd(self.reason) if isinstance(output, TurnEnd) else output


def test_the_stop_reason_as_the_server_sent_it_is_accepted() -> None:
    # The server says end_turn although its final message holds a tool call; a driver that
    # hands the call over and reports what the server said is right, as is one that infers
    # tool_use. A reason neither said nor implied is wrong.
    target = library("end-turn-with-tool-calls")
    assert rules_broken(run(ReportsStop(AnthropicDriver(), "end_turn"), target)) == set()
    assert rules_broken(run(ReportsStop(AnthropicDriver(), "tool_use"), target)) == set()
    assert rules_broken(run(ReportsStop(AnthropicDriver(), "max_tokens"), target)) == {
        "turn-lifetime"
    }


class RefusesCorruptCalls:
    """A correct driver that will not pass on a call whose arguments do not parse: it raises a
    clear error, or (``say=True``) emits a refusal and stops, as SDKs that parse arguments do."""

    layers = ("driver",)

    def __init__(self, base: Any, say: bool = False) -> None:
        self.base = base
        self.dialect = base.dialect
        self.say = say

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for output in self.base.drive(chunks):
            if isinstance(output, ToolCallOut) and not output.valid:
                reason = f"the arguments of {output.id} do not parse"
                if not self.say:
                    raise ValueError(reason)
                yield Refusal(reason)
                return
            yield output


@pytest.mark.parametrize("say", [False, True], ids=["raises", "refusal-output"])
@pytest.mark.parametrize(
    "name", ["duplicated-argument-fragment", "arguments-missing-closing-brace"]
)
def test_refusing_corrupt_input_is_safe(name: str, say: bool) -> None:
    driver = RefusesCorruptCalls(AnthropicAgentDriver(), say=say)
    assert rules_broken(run(driver, library(name))) == set()


def test_refusing_a_legal_stream_is_a_crash_by_another_name() -> None:
    class RefusesEverything:
        layers = ("driver",)
        dialect = "anthropic"

        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            next(chunks)
            yield Refusal("not today")

    result = run(RefusesEverything(), library("parallel-calls"))
    assert "robust-framing" in rules_broken(result)
    (refused,) = [v for v in result.violations if v.rule == "robust-framing"]
    assert "refused the anthropic stream after chunk 1 (not today)" in refused.message


def test_a_call_cut_off_by_max_tokens_may_be_dropped_but_not_repaired() -> None:
    class DropsCutCalls:
        layers = ("driver",)
        dialect = "anthropic"

        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            for output in AnthropicDriver().drive(chunks):
                if not (isinstance(output, ToolCallOut) and not output.valid):
                    yield output

    class RepairsCutCalls(DropsCutCalls):
        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            for output in AnthropicDriver().drive(chunks):
                if isinstance(output, ToolCallOut) and not output.valid:
                    output = ToolCallOut(output.id, output.name, output.arguments + '"}', True)
                yield output

    target = library("truncated-arguments-max-tokens")
    assert rules_broken(run(DropsCutCalls(), target)) == set()
    assert "strict-assembly" in rules_broken(run(RepairsCutCalls(), target))


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("text-between-parallel-calls", "text after a call has no place"),
        ("multi-cycle-turn", "a Chat Completions stream carries one message cycle"),
    ],
)
def test_chat_completions_runs_only_what_its_servers_send(name: str, reason: str) -> None:
    result = run(OpenAIChatDriver(), library(name))
    assert result.status == "skip"
    assert reason in (result.skip_reason or "")


def test_the_messages_api_carries_one_message_and_an_agent_stream_several() -> None:
    target = library("multi-cycle-turn")
    messages_api = run(AnthropicDriver(), target)
    assert messages_api.status == "skip"
    assert "dialect anthropic-agent" in (messages_api.skip_reason or "")
    assert rules_broken(run(AnthropicAgentDriver(), target)) == set()


def test_one_root_cause_is_reported_once_with_its_consequences_under_it() -> None:
    # Two parallel calls at one index glued into one: the merge is the cause; the two lost
    # calls, the unknown glued id and the order of the outputs follow from it.
    result = replay(library("same-index-parallel-calls"), "driver-mutant-openai-merges-same-index")
    (root,) = result.root_causes
    assert root.rule == "parallel-apart"
    consequences = [v for v in result.violations if v.cause == (root.rule, root.event_index)]
    assert len(consequences) == len(result.violations) - 1
    assert {v.rule for v in consequences} >= {"emit-once-early"}
    text = "\n".join(render_violations(result))
    assert text.count("[parallel-apart]") == 1
    assert "which also breaks [emit-once-early]" in text
    data = result.to_json()["violations"]
    assert isinstance(data, list)
    assert sum("cause" not in v for v in data) == 1


RECORDED_PARALLEL = (
    Path(__file__).resolve().parent.parent
    / "cassettes/real-traffic/openai-python/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"
)


def test_a_recorded_stream_without_done_passes_as_its_canonical_twin_does(tmp_path: Path) -> None:
    # The same real stream with its [DONE] cut off, as servers that end the body instead send
    # it: the reference reads on to the end of the body, which is how it learns the turn ended.
    body = RECORDED_PARALLEL.read_text(encoding="utf-8")
    assert body.rstrip().endswith("data: [DONE]")
    (tmp_path / "no-done.sse").write_text(body.rstrip()[: -len("data: [DONE]")], encoding="utf-8")
    (tmp_path / "recorded.yaml").write_text(
        dedent(
            """\
            id: recorded-no-done
            title: a recorded Chat Completions stream whose body ends without [DONE]
            description: real traffic with its last event removed
            source: tests
            layer: driver
            wire: {dialect: openai-chat, file: no-done.sse}
            """
        ),
        encoding="utf-8",
    )
    recorded = load_scenario(tmp_path / "recorded.yaml")
    assert rules_broken(run(OpenAIChatDriver(), recorded)) == set()
    canonical = scenario(
        """\
        id: canonical-no-done
        title: two parallel calls, a usage chunk, no [DONE]
        description: the canonical twin of the recording
        source: tests
        layer: driver
        dialects: [openai-chat]
        quirks: [no_done, usage_chunk]
        trace:
          - cycle:
              blocks:
                - tool_use: {id: call_1, name: get_weather, input: {city: Paris}}
                - tool_use: {id: call_2, name: get_weather, input: {city: Tokyo}}
        """
    )
    assert rules_broken(run(OpenAIChatDriver(), canonical)) == set()


def test_text_is_due_when_its_chunk_is_read_even_where_the_wire_runs_ahead_of_the_turn() -> None:
    # Without .done events a Responses call is complete only at response.completed, so the
    # chunks' origins lag behind what they carry; the text between the calls still comes out
    # as it streams, and a correct driver emits it before the calls.
    target = replace(library("text-between-parallel-calls"), quirks=("no_done_events",))
    assert rules_broken(run(OpenAIResponsesDriver(), target)) == set()
