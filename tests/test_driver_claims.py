"""What the driver rules claim, decided as principles where the world allows more than one
correct consumer: a call id that changes mid-stream, a shape a server sends only on request,
an SSE event the body ends before its blank line, a Chat stream of several choices."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from harness._errors import ScenarioError, WireError
from harness.adapters.driver.gemini import GeminiDriver
from harness.adapters.driver.reference import AnthropicDriver, OpenAIChatDriver
from harness.adapters.registry import BUNDLED, AdapterInfo, declared_requests
from harness.codecs.openai_chat import PER_MESSAGE_QUIRKS, OpenAIChatCodec
from harness.model.driver import CycleStop, DriverObservation, DriverOutput, ToolCallOut
from harness.replay import ScenarioResult, replay
from harness.replay.cases import cases_for
from harness.scenario import DriverScenario, parse_scenario
from harness.scenario.loader import recorded_scenario
from harness.wire import parse_sse
from harness.wire.recordings import recorded_body, recorded_streams, without_pending_event
from tests.scenarios_for_tests import LIBRARY, library_driver


def failure(result: ScenarioResult) -> str:
    return result.error or "\n".join(f"[{v.rule}] {v.message}" for v in result.violations)


def adapter(make: type) -> AdapterInfo:
    return AdapterInfo("test-driver", "driver", "external", make)


class KeepsLastId(OpenAIChatDriver):
    """A call takes the last id its chunks carry, as several widely used libraries do."""

    def call_delta(self, call: dict[str, Any]) -> Iterator[DriverOutput]:
        key = call.get("index")
        known = self.by_index.get(key) if key is not None else self.current
        yield from super().call_delta(call)
        if known is not None and call.get("id") and not (call.get("function") or {}).get("name"):
            known["id"] = call["id"]


def test_a_driver_keeping_the_last_id_passes_every_case_of_a_changing_id() -> None:
    scenario = library_driver("id-changes-mid-stream")
    reference = BUNDLED["driver-openai-chat-reference"]
    cases = cases_for([scenario], reference)
    assert len(cases) > 5
    last = adapter(KeepsLastId)
    observation = replay(scenario, last).observation
    assert isinstance(observation, DriverObservation)
    ids = {o.id for o in observation.outputs if hasattr(o, "id")}
    assert len(ids) == 2 and all(i.startswith("toolcall") for i in ids), ids  # the last ids
    for case in cases:
        result = replay(case, last)
        assert isinstance(case, DriverScenario)
        if PER_MESSAGE_QUIRKS & set(case.quirks):
            # judged only for drivers that pass calls on per message; this one passes them per call
            assert result.status == "skip" and "per-message" in (result.skip_reason or ""), case
            continue
        assert result.status == "pass", f"{case.id}: {failure(result)}"


def test_an_id_joined_from_the_first_and_the_last_is_still_no_call_of_the_stream() -> None:
    scenario = library_driver("id-changes-mid-stream")
    result = replay(scenario, "driver-mutant-openai-chat-joins-changed-ids")
    assert result.status == "fail"
    messages = [v.message for v in result.violations if v.rule == "emit-once-early"]
    assert any("'chatcmpl-tool-b6f7e2toolcall" in m and "no such call" in m for m in messages)


class WholeCallsOnly(GeminiDriver):
    """A Gemini driver whose requests do not ask for streamed function-call arguments: each call
    comes whole, with its args parsed; it reads nothing else of a call."""

    asks_for: tuple[str, ...] = ()

    def function_call(self, fc: dict[str, Any]) -> Iterator[DriverOutput]:
        if fc.get("name"):
            self.calls += 1
            args = fc.get("args")
            arguments = json.dumps(args) if args is not None else ""
            yield ToolCallOut(str(fc.get("id") or ""), str(fc["name"]), arguments, True)


def test_a_shape_sent_only_on_request_runs_only_for_drivers_that_ask() -> None:
    scenario = library_driver("parallel-calls")
    asking = BUNDLED["driver-gemini-sse-reference"]
    assert "stream_function_call_arguments" in declared_requests(asking)
    with_streamed = [
        c
        for c in cases_for([scenario], asking)
        if isinstance(c, DriverScenario) and "streamed_args" in c.quirks
    ]
    assert with_streamed, "the reference that asks runs the streamed_args cases"
    whole = adapter(WholeCallsOnly)
    assert replay(with_streamed[0], whole).status == "skip"
    claims_to_ask = type("ClaimsToAsk", (WholeCallsOnly,), {"asks_for": GeminiDriver.asks_for})
    assert replay(with_streamed[0], adapter(claims_to_ask)).status == "fail"  # it cannot read them
    cases = cases_for([scenario], whole)
    assert cases and all(isinstance(c, DriverScenario) for c in cases)
    assert not [c for c in cases if isinstance(c, DriverScenario) and "streamed_args" in c.quirks]
    for case in cases:
        result = replay(case, whole)
        assert result.status == "pass", f"{case.id}: {failure(result)}"


def test_a_scenario_that_names_a_requested_shape_is_skipped_for_a_driver_that_does_not_ask() -> (
    None
):
    scenario = dataclasses.replace(
        library_driver("parallel-calls"), quirks=("streamed_args",), dialects=("gemini-sse",)
    )
    result = replay(scenario, adapter(WholeCallsOnly))
    assert result.status == "skip"
    assert "stream_function_call_arguments" in (result.skip_reason or "")
    assert replay(scenario, "driver-gemini-sse-reference").status == "pass"


class DiscardsPendingEvent(AnthropicDriver):
    """Follows the SSE rules: an event the body ends before its blank line is discarded."""

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        def whole_events() -> Iterator[str]:
            for chunk in chunks:
                if all(event.terminated for event in parse_sse(chunk, source="stream")):
                    yield chunk

        yield from super().turn(whole_events())


@pytest.mark.parametrize(
    "name",
    [
        "anthropic-sdk-python/incomplete_partial_json_response.txt",
        "anthropic-sdk-python/tool_use_response.txt",
    ],
)
def test_a_client_that_discards_an_unterminated_last_event_passes(name: str) -> None:
    response = recorded_body(LIBRARY.parent / "cassettes" / "real-traffic" / name)
    assert not parse_sse(response.body, source=name)[-1].terminated
    scenario = recorded_scenario(response)
    assert not isinstance(scenario.turn[-1], CycleStop)  # the turn ends without it
    for driver in (DiscardsPendingEvent, AnthropicDriver):
        result = replay(scenario, adapter(driver))
        assert result.status == "pass", f"{driver.__name__}: {failure(result)}"


def test_the_expected_turn_of_a_body_keeps_an_event_ended_by_its_blank_line() -> None:
    body = 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    assert without_pending_event(body, "sse") == body
    assert without_pending_event(body.rstrip("\n"), "sse") == ""
    assert without_pending_event(": ping\n\n" + body.rstrip("\n"), "sse") == ": ping\n\n"
    assert without_pending_event("[{}", "json-array") == "[{}"


N3 = "openai-python/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin"
TWO_CHOICES = """\
id: two-choices
title: t
description: d
source: tests
layer: driver
wire:
  dialect: openai-chat
  body: |
    data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}

    data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"Yo"},"finish_reason":null}]}

    data: [DONE]
"""


def test_a_chat_stream_of_several_choices_is_refused_at_its_line() -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenario(TWO_CHOICES, "two-choices.yaml")
    (problem,) = raised.value.problems
    assert problem.line == 11  # the chunk of choice 1, in this file
    assert "choice 1" in problem.message and "n > 1" in problem.message


def test_a_recording_of_several_choices_is_no_stream_to_replay() -> None:
    path = LIBRARY.parent / "cassettes" / "real-traffic" / N3
    response = recorded_body(path)
    assert response.dialect == "openai-chat"
    assert response.problem is not None and "line 5 of the body" in response.problem
    assert not recorded_streams(path)
    with pytest.raises(WireError, match="several choices"):
        OpenAIChatCodec().decode(response.body, source=N3)
    # one choice picked out is still a turn (the codec's own reading of a recording)
    assert OpenAIChatCodec().decode(response.body, source=N3, choice=2)
