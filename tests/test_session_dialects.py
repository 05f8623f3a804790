"""UI protocols as session dialects (harness/codecs/session/): each profile names every session
rule, a scenario a protocol cannot carry is a skip that says why, and the protocol's reference
consumer passes every case it can carry."""

from __future__ import annotations

from typing import Any

import pytest

from harness.adapters.registry import BUNDLED
from harness.adapters.session.ai_sdk_ui_reference import ReferenceAISDKUIConsumer
from harness.codecs.session import session_codecs
from harness.codecs.session.ai_sdk_ui import AISDKUIEncoder, AISDKUISessionCodec
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.replay.dialects import dialect_case
from harness.rules.registry import RULES
from harness.scenario import SessionScenario
from tests.scenarios_for_tests import LIBRARY, as_session, load_folder

SCENARIOS, _ = load_folder(LIBRARY)
SESSION = [s for s in SCENARIOS if s.layer == "session"]
DIALECTS = sorted(session_codecs())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_profile_says_how_every_session_rule_reads(dialect: str) -> None:
    codec = session_codecs()[dialect]
    rules = {r.id for r in RULES.values() if r.layer == "session"}
    assert set(codec.profile) == rules
    assert all(use.statement for use in codec.profile.values())
    assert all(codec.quirks.values())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_dialect_has_a_reference_consumer(dialect: str) -> None:
    info = BUNDLED[f"session-{dialect}-reference"]
    assert getattr(info.factory, "session_dialect") == dialect  # noqa: B009 (not every factory's)


@pytest.mark.parametrize(
    ("dialect", "scenario", "reason"),
    [
        ("ag-ui", "streamed-tool-result-parts", "AG-UI streams no tool output"),
        ("ai-sdk-ui", "streamed-tool-result-parts", "a UIMessage keeps no stream"),
        ("ai-sdk-ui", "held-calls-dropped-at-interaction-end", "shows such a call on none"),
        ("ai-sdk-ui", "subsession-messages-interleaved", "a message started between"),
    ],
)
def test_a_scenario_a_dialect_cannot_carry_is_skipped_with_the_reason(
    dialect: str, scenario: str, reason: str
) -> None:
    written = next(s for s in SESSION if s.id == scenario)
    result = replay(written, f"session-{dialect}-reference")
    assert result.status == "skip"
    assert reason in (result.skip_reason or "")


def test_a_canonical_consumer_is_not_fed_a_dialect() -> None:
    scenario = next(s for s in SESSION if s.id == "streamed-tool-result-parts")
    assert replay(scenario, "session-reference").status == "pass"


@pytest.mark.slow
@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_passes_every_case_it_can_carry(dialect: str) -> None:
    info = BUNDLED[f"session-{dialect}-reference"]
    statuses = {}
    for case in cases_for(SESSION, info):
        result = replay(case, info)
        statuses[getattr(case, "case_id", case.id)] = result.status
        assert result.status in ("pass", "skip"), result.error or [
            (v.rule, v.message) for v in result.violations
        ]
    assert list(statuses.values()).count("pass") >= 100


# -- the AI SDK UI message stream --------------------------------------------------------------


def ai_sdk_case(name: str) -> tuple[SessionScenario, AISDKUIEncoder]:
    """The scenario as written, as the ai-sdk-ui dialect carries it, and a fresh encoder."""
    codec = AISDKUISessionCodec()
    case = dialect_case(as_session(next(s for s in SESSION if s.id == name)), codec)
    assert isinstance(case, SessionScenario), case
    return case, codec.encoder(list(case.trace))


def ai_sdk_events(name: str) -> list[dict[str, Any]]:
    """What a consumer of the ai-sdk-ui dialect is fed over the scenario as written."""
    case, encoder = ai_sdk_case(name)
    return [data for event in case.trace for data in encoder.encode(event)]


def chunk_types(events: list[dict[str, Any]]) -> list[str]:
    return [e["chunk"]["type"] for e in events if "chunk" in e]


def test_an_interaction_is_one_response_with_the_user_message_sent_by_the_client() -> None:
    events = ai_sdk_events("tool-first-turn")
    assert events[0] == {
        "chat": "main",
        "sendMessage": {
            "id": "u1",
            "role": "user",
            "parts": [{"type": "text", "text": "Where is the retry limit configured?"}],
        },
    }
    types = chunk_types(events)
    assert types[:3] == ["start", "start-step", "tool-input-start"]
    assert types[-2:] == ["finish-step", "finish"] and types.count("start") == 1


def test_tool_first_calls_belong_to_the_first_text_part_after_them() -> None:
    consumer = ReferenceAISDKUIConsumer()
    case, encoder = ai_sdk_case("tool-first-turn")
    for event in case.trace:
        for data in encoder.encode(event):
            consumer.feed(data)
    _, transcript = encoder.decode(consumer.view())
    messages = transcript.sessions["main"].messages
    assert [m.message_id for m in messages] == ["u1", "m1"]
    assert [c.id for c in messages[1].tool_calls] == [
        "toolu_01FxR8kq2NwTzb5Yv3Ldp9Hc",
        "toolu_01Gm4Wc7uVbQ2sJ8eXa6Rk1N",
    ]


def test_a_resume_in_motion_continues_the_last_stored_assistant_message() -> None:
    events = ai_sdk_events("resume-while-call-running")
    at = next(i for i, e in enumerate(events) if "setMessages" in e)
    stored = events[at]["setMessages"]
    assert stored[-1]["role"] == "assistant"
    assert events[at + 1]["chunk"] == {"type": "start", "messageId": stored[-1]["id"]}
    resent = [e["chunk"] for e in events[at + 1 :] if "chunk" in e][:5]
    assert [c["type"] for c in resent] == [
        "start",
        "start-step",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
    ]
    assert resent[2]["toolCallId"] == "toolu_01RwErrors02"  # still running: sent again


def test_a_response_with_no_prompt_before_it_continues_the_last_assistant_message() -> None:
    starts = [
        e["chunk"]["messageId"]
        for e in ai_sdk_events("interaction-without-prompt-continues")
        if e.get("chunk", {}).get("type") == "start"
    ]
    assert len(starts) == 2 and starts[0] == starts[1]


def test_the_users_stop_is_an_abort_and_the_reference_drops_the_running_parts() -> None:
    events = ai_sdk_events("cancel-after-executing")
    assert chunk_types(events)[-1] == "abort"
    consumer = ReferenceAISDKUIConsumer()
    for data in events:
        consumer.feed(data)
    parts = consumer.view()["main"][-1]["parts"]
    assert not [p for p in parts if str(p["type"]).startswith("tool-")]


def test_a_failed_tool_is_a_tool_output_error() -> None:
    errors = [
        e["chunk"]
        for e in ai_sdk_events("error-flag-live-and-resumed")
        if e.get("chunk", {}).get("type") == "tool-output-error"
    ]
    assert errors == [
        {
            "type": "tool-output-error",
            "toolCallId": "toolu_01EfDeploy01",
            "errorText": "deploy: image registry.example/app:2.4.0 not found",
        }
    ]
