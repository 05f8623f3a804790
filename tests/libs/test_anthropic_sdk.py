"""What the ``anthropic`` SDK's ``client.messages.stream`` hands its user, reproduced directly
against the SDK (no harness): a body served by an offline transport, read with the public API."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.libs.chat_body import offline_client

anthropic = pytest.importorskip(
    "anthropic", reason="the anthropic SDK is not installed (extra 'libs')"
)


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def stream_events(body: bytes) -> list[Any]:
    http = offline_client(anthropic.DefaultHttpxClient, body)
    client = anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)
    with client.messages.stream(
        model="offline", max_tokens=1024, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        return list(stream)


START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}


def tool_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
    }


def fragment(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def end(reason: str) -> tuple[dict[str, Any], ...]:
    return (
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    )


def tool_stops(events: list[Any]) -> list[Any]:
    return [
        e.content_block
        for e in events
        if e.type == "content_block_stop" and e.content_block.type == "tool_use"
    ]


def test_truncated_input_is_handed_over_as_a_complete_dict() -> None:
    """The arguments stop at '..."status"]' (the closing brace never came): the SDK parses the
    buffer in partial mode and its content_block_stop hands the user a complete-looking input, so
    the tool runs with a call the model never finished."""
    body = sse(
        START,
        tool_start(0, "call_tk", "get_ticket"),
        fragment(0, '{"ticket_id": 42, '),
        fragment(0, '"fields": ["title", "status"]'),
        stop(0),
        *end("tool_use"),
    )
    (block,) = tool_stops(stream_events(body))
    assert block.input == {"ticket_id": 42, "fields": ["title", "status"]}


def test_a_repeated_content_block_stop_hands_the_call_over_twice() -> None:
    """A proxy that repeats content_block_stop (a LiteLLM release did): the SDK passes both on, each
    with the finished tool_use block, so a user who runs tools at content_block_stop runs it twice."""
    body = sse(
        START,
        tool_start(0, "toolu_1", "git_branch"),
        fragment(0, '{"name": "fix/login"}'),
        stop(0),
        stop(0),
        *end("tool_use"),
    )
    blocks = tool_stops(stream_events(body))
    assert [b.id for b in blocks] == ["toolu_1", "toolu_1"]
