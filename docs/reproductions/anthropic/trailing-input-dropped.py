"""The anthropic SDK's MessageStream, without the harness: tool-use arguments that hold a
complete JSON object and then more come out as the first object, with nothing marking the
input corrupt.

    python docs/reproductions/anthropic_trailing_data.py

prints, with anthropic 2.12.0:

    '{"ticket_id": 42}}' -> {'ticket_id': 42}
    '{"city": "Paris"}{"city": "Paris"}' -> {'city': 'Paris'}
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2


def event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def body(fragments: list[str]) -> str:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "any",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_ticket", "input": {}}
    return "".join(
        [
            event("message_start", message=message),
            event("content_block_start", index=0, content_block=block),
            *(
                event(
                    "content_block_delta",
                    index=0,
                    delta={"type": "input_json_delta", "partial_json": fragment},
                )
                for fragment in fragments
            ),
            event("content_block_stop", index=0),
            event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 5}),
            event("message_stop"),
        ]
    )


def tool_input(fragments: list[str]) -> Any:
    text = body(fragments).encode()
    transport = httpx2.MockTransport(
        lambda request: httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=text
        )
    )
    client = anthropic.Anthropic(
        api_key="offline", max_retries=0, http_client=httpx2.Client(transport=transport)
    )
    with client.messages.stream(
        model="any", max_tokens=16, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        for item in stream:
            if item.type == "content_block_stop":
                return item.content_block.input
    return None


if __name__ == "__main__":
    for fragments in (['{"ticket_id": 42', "}", "}"], ['{"city": "Paris"}'] * 2):
        print(repr("".join(fragments)), "->", tool_input(fragments))
