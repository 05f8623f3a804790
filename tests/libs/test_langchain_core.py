"""What ``langchain-core``'s ``AIMessageChunk`` merging hands its user, reproduced directly
against the library (no harness): tool call chunks as a chat model integration streams them,
summed with ``+``, then read from the message's ``tool_calls``."""

from __future__ import annotations

from typing import Any

import pytest

messages = pytest.importorskip(
    "langchain_core.messages", reason="langchain-core is not installed (extra 'libs')"
)
from langchain_core.messages.tool import tool_call_chunk  # noqa: E402


def merged(*chunks: dict[str, Any]) -> list[dict[str, Any]]:
    """The summed message's tool calls: (id, name, args) each."""
    total = None
    for chunk in chunks:
        part = messages.AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(**chunk)])
        total = part if total is None else total + part
    assert total is not None and not total.invalid_tool_calls
    return [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in total.tool_calls]


def chunk(index: int | None, call_id: str | None, name: str | None, args: str) -> dict[str, Any]:
    return {"index": index, "id": call_id, "name": name, "args": args}


@pytest.mark.parametrize(
    ("args", "handed_over"),
    [
        pytest.param(
            ['{"ticket_id": 42, ', '"fields": ["title", "status"]'],
            {"ticket_id": 42, "fields": ["title", "status"]},
            id="closing brace lost (vLLM hermes parser)",
        ),
        pytest.param(
            ['{"path": "0042.sql", "content": "CREATE INDEX CONCURR'],
            {"path": "0042.sql", "content": "CREATE INDEX CONCURR"},
            id="cut by max_tokens mid-string",
        ),
    ],
)
def test_truncated_arguments_become_a_valid_call(
    args: list[str], handed_over: dict[str, Any]
) -> None:
    """parse_partial_json completes truncated arguments: the message lists a valid tool call
    (not an invalid_tool_call), and an agent runs the tool with a call the model never finished,
    e.g. a file write whose content was cut off mid-word."""
    chunks = [chunk(0, "call_1", "write_file", args[0])]
    chunks += [chunk(0, None, None, rest) for rest in args[1:]]
    assert merged(*chunks) == [{"id": "call_1", "name": "write_file", "args": handed_over}]


def test_a_second_call_at_the_same_index_loses_its_arguments() -> None:
    """A relay that sends two parallel calls at index 0, each starting with its id and followed by
    fragments without one: the second call's fragments join the first call, whose text then holds
    two JSON objects; partial parsing keeps the first, and the second call is run with {}."""
    calls = merged(
        chunk(0, "t1", "glob", ""),
        chunk(0, None, None, '{"pattern": "**/*"}'),
        chunk(0, "t2", "glob", ""),
        chunk(0, None, None, '{"path": "content/wiki"}'),
    )
    assert calls == [
        {"id": "t1", "name": "glob", "args": {"pattern": "**/*"}},
        {"id": "t2", "name": "glob", "args": {}},
    ]


@pytest.mark.parametrize(
    "second_id",
    [pytest.param("toolcall0", id="id changes mid-call"), pytest.param(None, id="no index")],
)
def test_a_call_is_split_in_two(second_id: str | None) -> None:
    """A continuation chunk with another id (GLM through Mistral's API), or call chunks with no
    index (Gemini's compatibility endpoint, Ollama): the chunks are not merged, and the message
    holds a call with the name and no arguments plus a nameless call with the arguments."""
    index = 0 if second_id else None
    calls = merged(chunk(index, "call_1", "read", ""), chunk(index, second_id, None, '{"f": 1}'))
    assert calls == [
        {"id": "call_1", "name": "read", "args": {}},
        {"id": second_id, "name": "", "args": {"f": 1}},
    ]


def test_a_name_repeated_on_every_chunk_is_concatenated() -> None:
    """llama.cpp's server repeats the name on every delta: the merged call is named
    'final_resultfinal_result'."""
    calls = merged(chunk(0, "c", "final_result", '{"a": '), chunk(0, None, "final_result", "1}"))
    assert calls == [{"id": "c", "name": "final_resultfinal_result", "args": {"a": 1}}]
