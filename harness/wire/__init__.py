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

from harness._errors import HarnessError, Problem


class WireError(HarnessError):
    """A recording or a streamed body cannot be read; carries where (source, line) and why.

    ``source`` is a file path, or a path plus the part of it, e.g.
    ``"x.yaml interactions[1] response body"``; ``line`` counts from 1 within that source.
    """

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        super().__init__(f"{source}:{line}: {message}")

    @property
    def problem(self) -> Problem:
        """The same error as a located ``Problem``, for reports that list problems."""
        return Problem(self.source, self.line, self.message)


# The submodules raise WireError, so they are imported once it exists.
from harness.wire.cassette import Interaction, read_cassette  # noqa: E402
from harness.wire.sse import (  # noqa: E402
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
