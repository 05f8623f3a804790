"""What the ``openai`` SDK's ``client.chat.completions.stream`` (``ChatCompletionStreamState``)
hands its user, reproduced directly against the SDK (no harness): a body served by an offline
transport, read with the public API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.libs.chat_body import body, call, offline_client

openai = pytest.importorskip("openai", reason="the openai SDK is not installed (extra 'libs')")


def open_stream(data: bytes) -> Any:
    http = offline_client(openai.DefaultHttpxClient, data)
    client = openai.OpenAI(api_key="offline", max_retries=0, http_client=http)
    return client.chat.completions.stream(
        model="gpt-4o", messages=[{"role": "user", "content": "go"}]
    )


def final_calls(data: bytes) -> list[tuple[str, str, str]]:
    with open_stream(data) as stream:
        message = stream.get_final_completion().choices[0].message
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]


def test_parallel_calls_sent_at_one_index_are_merged_into_one() -> None:
    """Groq, Ollama through LiteLLM and some Gemini relays send each parallel call at index 0
    with its own id: the SDK glues them into one call whose id, name and arguments are the two
    calls' back to back."""
    data = body(
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    assert final_calls(data) == [
        ("call_1call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')
    ]


@pytest.mark.parametrize(
    ("deltas", "expected"),
    [
        pytest.param(
            [call(0, "call_k1", "kv_get", '{"key": '), call(0, "call_k1", None, '"a"}')],
            ("call_k1call_k1", '{"key": "a"}'),
            id="id repeated on every delta",
        ),
        pytest.param(
            [call(0, "chatcmpl-tool-1", "read", ""), call(0, "toolcall0", None, '{"p": 1}')],
            ("chatcmpl-tool-1toolcall0", '{"p": 1}'),
            id="id changes mid-call",
        ),
    ],
)
def test_a_repeated_id_is_concatenated(
    deltas: list[dict[str, Any]], expected: tuple[str, str]
) -> None:
    """Servers that repeat the id (or send a second one) on continuation deltas: the SDK's
    accumulate_delta concatenates every string field, so the call's id becomes the ids back to
    back, and the tool result the user sends back answers an id the server never issued."""
    (got,) = final_calls(body(*deltas))
    assert (got[0], got[2]) == expected


def test_a_name_repeated_on_every_delta_is_concatenated() -> None:
    """llama.cpp's server repeats function.name on every delta: the SDK names the call
    'final_resultfinal_result', which no tool answers to."""
    data = body(call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
    assert final_calls(data) == [("call_fr", "final_resultfinal_result", '{"a": 1}')]


def test_a_first_call_at_index_one_crashes_the_stream() -> None:
    """Bedrock Claude through LiteLLM numbers the first call 1 (its text took 0): the SDK uses the
    index as a list position, and the stream raises IndexError."""
    data = body(call(1, "tooluse_1", "jira_get_worklog", '{"id": 1}'))
    with pytest.raises(IndexError), open_stream(data) as stream:
        stream.until_done()


def test_call_deltas_without_an_index_crash_the_stream() -> None:
    """Gemini's compatibility endpoint and Ollama send call deltas without an index: the stream
    raises TypeError (openai-python #2806)."""
    data = body(call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}'), finish="stop")
    with pytest.raises(TypeError), open_stream(data) as stream:
        stream.until_done()


def test_a_stream_cut_by_max_tokens_has_no_final_completion() -> None:
    """finish_reason 'length' (a legal stream cut by max_tokens): get_final_completion() raises
    LengthFinishReasonError even though no parsing was asked for, so a user of the stream helper
    loses the partial message it streamed."""
    data = body({"content": "Writing the migration"}, finish="length")
    with pytest.raises(openai.LengthFinishReasonError), open_stream(data) as stream:
        stream.get_final_completion()
