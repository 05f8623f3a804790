"""The harness cassette format: streamed bodies as events, joined back exactly."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.record import serializer
from harness.record.serializer import split_body
from harness.wire import WireError, read_cassette
from harness.wire.recordings import event_pieces

ROOT = Path(__file__).resolve().parent.parent
CONTENT_TYPES = (
    "text/event-stream",
    "text/event-stream; charset=utf-8",
    "application/x-ndjson",
    "application/json",
    "application/json; charset=UTF-8",
    "text/plain",
)
# bodies built from the characters framing cares about, so that edge cases come often
FRAMING = st.lists(
    st.sampled_from(["\n", "\r", "\r\n", "[", "]", "{", "}", ",", '"', "\\", " ", "data: "])
    | st.characters(),
    max_size=80,
).map("".join)


@given(body=FRAMING, content_type=st.sampled_from(CONTENT_TYPES))
def test_split_then_join_is_the_identity(body: str, content_type: str) -> None:
    events = split_body(body, content_type)
    assert events is None or "".join(events) == body


@given(body=FRAMING, content_type=st.sampled_from(CONTENT_TYPES))
def test_a_cassette_written_and_read_gives_the_body_back(body: str, content_type: str) -> None:
    text = serializer.serialize(_cassette(body, content_type))
    data = serializer.deserialize(text)
    assert data["interactions"][0]["response"]["body"]["string"] == body


def test_server_sent_events_keep_their_separator() -> None:
    body = "event: a\r\ndata: 1\r\n\r\n\nevent: b\ndata: 2\n\ndata: tail"
    assert event_pieces(body, "sse") == [
        "event: a\r\ndata: 1\r\n\r\n",
        "\nevent: b\ndata: 2\n\n",
        "data: tail",
    ]


def test_json_lines_are_one_item_a_line() -> None:
    assert split_body('{"a": 1}\n{"b": 2}\n', "application/x-ndjson") == [
        '{"a": 1}\n',
        '{"b": 2}\n',
    ]


def test_a_json_array_streamed_across_lines_is_one_item_an_element() -> None:
    body = '[{"text": "a, [b]"}\n,\r\n{"text": "c"}\n]'
    assert event_pieces(body, "json-array") == ['[{"text": "a, [b]"}\n', ',\r\n{"text": "c"}\n]']
    # an ordinary JSON body (an object, a one-line array) stays a string
    assert split_body('{"a": [1,\n2]}', "application/json") is None
    assert split_body("[1, 2, 3]", "application/json") is None


def test_events_are_written_as_literal_blocks() -> None:
    body = 'event: ping\ndata: {"type": "ping"}\n\ndata: [DONE]\n\n'
    text = serializer.serialize(_cassette(body, "text/event-stream"))
    assert "events:\n      - |+\n        event: ping\n" in text
    assert yaml.safe_load(text)["interactions"][0]["response"]["body"] == {
        "events": ['event: ping\ndata: {"type": "ping"}\n\n', "data: [DONE]\n\n"]
    }


def test_other_bodies_stay_as_vcrpy_writes_them() -> None:
    compressed = _cassette("ignored", "text/event-stream")
    compressed["interactions"][0]["response"]["headers"]["Content-Encoding"] = ["gzip"]
    compressed["interactions"][0]["response"]["body"]["string"] = gzip.compress(b"data: 1\n\n")
    for data in (_cassette('{"id": "msg_1"}', "application/json"), compressed):
        body = yaml.unsafe_load(serializer.serialize(data))["interactions"][0]["response"]["body"]
        assert set(body) == {"string"}


def test_read_cassette_reads_the_events_form(tmp_path: Path) -> None:
    source = ROOT / "cassettes/real-traffic/llm/test_tool_use_basic.yaml"
    recorded = read_cassette(source)
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    path = tmp_path / "events.yaml"
    path.write_text(serializer.serialize(data), encoding="utf-8")
    assert "events:" in path.read_text(encoding="utf-8")
    again = read_cassette(path)
    assert [i.response_body for i in again] == [i.response_body for i in recorded]
    assert [i.request_body for i in again] == [i.request_body for i in recorded]


def test_a_non_string_event_is_an_error_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "interactions:\n"
        "- request: {method: GET, uri: 'http://x', body: null, headers: {}}\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: {}\n"
        "    body:\n"
        "      events:\n"
        "      - 'data: 1\n\n\n'\n"
        "      - {data: 2}\n"
        "version: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(WireError, match=r"events\[1\]` must be a string") as caught:
        read_cassette(path)
    assert caught.value.problem.line == 12  # the `- {data: 2}` line
    with pytest.raises(ValueError, match=r"events\[1\]"):
        serializer.deserialize(path.read_text(encoding="utf-8"))


def test_events_must_be_a_list(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text = serializer.serialize(_cassette("data: 1\n\n", "text/event-stream"))
    path.write_text(text.replace("events:\n      - |+\n        data: 1\n", "events: 3\n"))
    with pytest.raises(WireError, match="`events:` must be a list of strings"):
        read_cassette(path)


def _cassette(body: object, content_type: str) -> dict[str, Any]:
    return {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "http://127.0.0.1/v1/messages",
                    "body": json.dumps({"stream": True}),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Type": [content_type]},
                    "body": {"string": body},
                },
            }
        ],
    }
