"""Reading recorded provider traffic: cassettes and the framing of streamed bodies.

This is the layer under the per-dialect decoders: it turns a file into interactions and a body
into framed units (SSE events, JSON array elements, JSON lines), each with the line it came
from. It knows nothing about what an event means.

>>> from harness.wire import json_data, parse_sse, read_cassette
>>> (first, *_) = read_cassette("cassettes/real-traffic/llm/test_tool_use_basic.yaml")
>>> events = parse_sse(first.response_body, source=first.response_source)
>>> json_data(events[0])["object"]
'chat.completion.chunk'

Every failure is a ``WireError`` naming the source, the line and what is wrong.
"""

from __future__ import annotations

from harness._errors import WireError
from harness.wire.cassette import Interaction, read_cassette
from harness.wire.sse import (
    DONE,
    Done,
    JsonChunk,
    SSEEvent,
    json_data,
    parse_json_array_stream,
    parse_jsonl,
    parse_sse,
    split_sse,
)

__all__ = [
    "DONE",
    "Done",
    "Interaction",
    "JsonChunk",
    "SSEEvent",
    "WireError",
    "json_data",
    "parse_json_array_stream",
    "parse_jsonl",
    "parse_sse",
    "read_cassette",
    "split_sse",
]
