"""The anthropic SDK's MessageStream, without the harness: events sent as bare data: lines, without
the event: line before them (as some Anthropic-compatible proxies send them:
earendil-works/pi#1983, openclaw/openclaw#37571), are all skipped, an error event among them.
The stream ends with no event, no text, no tool call and no exception.

    python docs/reproductions/anthropic/events-without-event-lines-dropped.py

prints, with anthropic 2.12.0:

    a whole message: 0 events handed over
    text, then an error: 0 events handed over, no exception
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import anthropic


def event(kind: str, **fields: Any) -> str:
    """A server-sent event as these proxies send it: its data line alone."""
    return f"data: {json.dumps({'type': kind, **fields})}\n\n"


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "any",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
OPENING = [
    event("message_start", message=MESSAGE),
    event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"}),
]
WHOLE = [
    *OPENING,
    event("content_block_stop", index=0),
    event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 5}),
    event("message_stop"),
]
FAILED = [*OPENING, event("error", error={"type": "overloaded_error", "message": "Overloaded"})]


def offline_client(data: bytes) -> anthropic.Anthropic:
    """A client whose every request is answered with the body (httpx, or httpx2 in recent SDK
    releases: whichever the SDK's own client is built on)."""
    base = next(c for c in anthropic.DefaultHttpxClient.__mro__ if c.__module__.startswith("httpx"))
    httpx = importlib.import_module(base.__module__.partition(".")[0])
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=data
        )
    )
    http = anthropic.DefaultHttpxClient(transport=transport)
    return anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)


def handed_over(events: list[str]) -> list[Any]:
    client = offline_client("".join(events).encode())
    with client.messages.stream(
        model="any", max_tokens=16, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        return list(stream)


if __name__ == "__main__":
    whole = handed_over(WHOLE)
    print(f"a whole message: {len(whole)} events handed over")
    failed = handed_over(FAILED)  # the server's error raises nothing
    print(f"text, then an error: {len(failed)} events handed over, no exception")
    assert whole == [] and failed == [], "the SDK now reads events without an event: line"
