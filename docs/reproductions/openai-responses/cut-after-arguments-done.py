"""The openai SDK's responses.stream, without the harness: a body cut after a call's
response.function_call_arguments.done and before its response.output_item.done ends the stream
quietly. The SDK raises nothing, no output_item.done and no response.completed come, so a user
who takes each call at its item's end (the event that carries its call_id) never gets the call,
although its arguments were whole.

    python docs/reproductions/openai-responses/cut-after-arguments-done.py

prints, with openai 3.54.0:

    events: response.created, response.output_item.added, response.function_call_arguments.done
    raised: nothing; the call's arguments were whole: {"path": "notes.md"}
"""

from __future__ import annotations

import json
from typing import Any

from _wire import offline_client


def event(kind: str, number: int, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': number, **fields})}\n\n"


RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "status": "in_progress",
    "model": "gpt-4.1",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}
ITEM = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "write_file",
    "arguments": "",
    "status": "in_progress",
}
ARGUMENTS = '{"path": "notes.md"}'
BODY = (
    event("response.created", 0, response=RESPONSE)
    + event("response.output_item.added", 1, output_index=0, item=ITEM)
    + event(
        "response.function_call_arguments.done",
        2,
        item_id="fc_1",
        output_index=0,
        arguments=ARGUMENTS,
    )
)  # cut here: the item's output_item.done and the response's completed never come


if __name__ == "__main__":
    kinds = []
    with offline_client(BODY.encode()).responses.stream(model="gpt-4.1", input="go") as stream:
        for seen in stream:  # raises nothing on the cut body
            kinds.append(seen.type)
    print("events:", ", ".join(kinds))
    assert "response.function_call_arguments.done" in kinds
    assert "response.output_item.done" not in kinds and "response.completed" not in kinds
    print(f"raised: nothing; the call's arguments were whole: {ARGUMENTS}")
