"""What smolagents' ``OpenAIModel.generate_stream`` and ``agglomerate_stream_deltas`` hand a
``ToolCallingAgent``: the adapter replayed over driver scenarios, and the library reproduced
directly (no harness) on bodies served by an offline transport."""

from __future__ import annotations

import pytest

from tests.libs.chat_body import body, call, offline_client
from tests.libs.driving import replayed

pytest.importorskip("smolagents", reason="smolagents is not installed (extra 'smolagents')")
openai = pytest.importorskip(
    "openai", reason="the openai SDK is not installed (extra 'smolagents')"
)

ADAPTER = "harness.adapters.libs.smolagents:make_adapter"


def calls(data: bytes) -> list[tuple[str, str, str]]:
    """The calls of the message the agent builds from the deltas: (id, name, arguments)."""
    from smolagents.models import ChatMessage, MessageRole, OpenAIModel, agglomerate_stream_deltas

    http = offline_client(openai.DefaultHttpxClient, data)
    model = OpenAIModel("gpt-4o", api_key="offline", client_kwargs={"http_client": http})
    prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
    message = agglomerate_stream_deltas(list(model.generate_stream([prompt])))
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]


@pytest.mark.parametrize("name", ["parallel-calls", "text-before-tool-call", "name-every-chunk"])
def test_streams_as_first_party_servers_send_them_pass(name: str) -> None:
    assert replayed(name, ADAPTER) == ("pass", set())


def test_a_body_cut_mid_call_ends_the_turn_as_a_finished_one() -> None:
    """The deltas carry no finish_reason: the end of a cut body is the end of the message, and
    the agent goes on with the cut call (cut-body-ends-the-turn)."""
    assert replayed("cut-mid-arguments", ADAPTER) == ("fail", {"error-surfaced"})


def test_parallel_calls_sent_at_one_index_are_merged_into_one() -> None:
    """The last call's id and name win, the arguments are back to back
    (calls-at-one-index-merged, huggingface/smolagents#1569)."""
    data = body(
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    assert calls(data) == [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]


def test_a_name_repeated_on_every_delta_is_kept_once() -> None:
    """Unlike the openai SDK's accumulator, a repeated name replaces the one before it."""
    data = body(call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
    assert calls(data) == [("call_fr", "final_result", '{"a": 1}')]


def test_a_call_delta_without_an_index_raises() -> None:
    """Gemini's OpenAI-compatible endpoint sends no index (missing-index-raises)."""
    data = body(call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}'))
    with pytest.raises(ValueError, match="index is not provided"):
        calls(data)
