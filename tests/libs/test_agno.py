"""What agno's ``OpenAIChat.process_response_stream`` and ``parse_tool_calls`` hand an ``Agent``:
the adapter replayed over driver scenarios, and the library reproduced directly (no harness) on
bodies served by an offline transport."""

from __future__ import annotations

from typing import Any

import pytest

from tests.libs.chat_body import body, call, offline_client
from tests.libs.driving import replayed

pytest.importorskip("agno", reason="agno is not installed (extra 'agno')")
openai = pytest.importorskip("openai", reason="the openai SDK is not installed (extra 'agno')")

ADAPTER = "harness.adapters.libs.agno:make_adapter"


def tool_calls(data: bytes) -> list[dict[str, Any]]:
    """The calls of the assistant message agno builds once the stream is over."""
    from agno.models.base import MessageData
    from agno.models.message import Message
    from agno.models.openai import OpenAIChat

    http = offline_client(openai.DefaultHttpxClient, data)
    model = OpenAIChat(id="gpt-4o", api_key="offline", client_params={"http_client": http})
    message = Message(role="assistant")
    prompt = [Message(role="user", content="go")]
    for _ in model.process_response_stream(prompt, message, MessageData()):
        pass
    return message.tool_calls or []


def summary(data: bytes) -> list[tuple[str, str, str]]:
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in tool_calls(data)]


@pytest.mark.parametrize("name", ["parallel-calls", "text-before-tool-call", "name-every-chunk"])
def test_streams_as_first_party_servers_send_them_pass(name: str) -> None:
    assert replayed(name, ADAPTER) == ("pass", set())


def test_a_body_cut_mid_call_ends_the_turn_as_a_finished_one() -> None:
    """OpenAIChat drops the finish_reason: the end of a cut body is the end of the message, and
    the agent goes on with the cut call (cut-body-ends-the-turn)."""
    assert replayed("cut-mid-arguments", ADAPTER) == ("fail", {"error-surfaced"})


@pytest.mark.parametrize("index", [0, None], ids=["at one index", "without an index"])
def test_parallel_calls_at_one_index_or_none_are_merged_into_one(index: int | None) -> None:
    """A missing index counts as 0; the last call's id and name win, the arguments are back to
    back (calls-filed-by-index, agno-agi/agno#8879)."""
    data = body(
        call(index, "call_1", "write_file", '{"path": "a.rs"}'),
        call(index, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    assert summary(data) == [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]


def test_a_first_call_at_index_one_brings_an_empty_call_before_it() -> None:
    """Slot 0 stays empty and is handed over with a made-up id (calls-filed-by-index)."""
    data = body(call(1, "tooluse_1", "jira_get_worklog", '{"id": 1}'))
    empty, real = tool_calls(data)
    assert list(empty) == ["id"]
    assert real["id"] == "tooluse_1"
