"""llama-index's Anthropic class, without the harness: a stream whose events come as data:
lines without their event: line (as some Anthropic-compatible proxies send them) yields nothing
at all: the anthropic SDK under it drops every event, the text, the call and the stop reason
with them, and a server's error event raises nothing.

    python docs/reproductions/llama-index-anthropic/events-without-event-lines-dropped.py

prints, with llama-index-llms-anthropic 0.12.3 (llama-index-core 0.14.25, anthropic 0.125.0):

    with event: lines:    5 responses, text 'Writing it.', calls [('toolu_1', 'write_file', {'path': 'a.md'})]
    without event: lines: 0 responses, calls []
    an error event without its event: line: 0 responses, nothing raised
"""

import json

import anthropic
import httpx
from llama_index.core.tools import FunctionTool
from llama_index.llms.anthropic import Anthropic


def event(kind, event_line=True, **data):
    line = f"data: {json.dumps({'type': kind, **data})}\n\n"
    return f"event: {kind}\n{line}" if event_line else line


def responses_of(body):
    """Every streamed response, and the calls of the last one (those FunctionAgent runs)."""

    def answer(request):
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=body.encode())

    llm = Anthropic(model="claude-sonnet-4-5", api_key="offline", max_retries=0)
    # the class takes no HTTP client: its SDK client is replaced by one over the body
    http = httpx.Client(transport=httpx.MockTransport(answer))
    llm._client = anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)
    tool = FunctionTool.from_defaults(lambda path: path, name="write_file", description="Write.")
    responses = list(llm.stream_chat_with_tools([tool], user_msg="go"))
    if not responses:
        return responses, []
    calls = llm.get_tool_calls_from_response(responses[-1], error_on_no_tool_call=False)
    return responses, [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls]


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 1},
}
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}


def stream(event_line):
    def e(kind, **data):
        return event(kind, event_line, **data)

    return (
        e("message_start", message=MESSAGE)
        + e("content_block_start", index=0, content_block={"type": "text", "text": ""})
        + e("content_block_delta", index=0, delta={"type": "text_delta", "text": "Writing it."})
        + e("content_block_stop", index=0)
        + e("content_block_start", index=1, content_block=TOOL_USE)
        + e(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": '{"path": "a.md"}'},
        )
        + e("content_block_stop", index=1)
        + e(
            "message_delta",
            delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage={"output_tokens": 9},
        )
        + e("message_stop")
    )


responses, calls = responses_of(stream(event_line=True))
text = "".join(r.delta or "" for r in responses)
print(f"with event: lines:    {len(responses)} responses, text {text!r}, calls {calls}")
assert calls == [("toolu_1", "write_file", {"path": "a.md"})], calls
responses, calls = responses_of(stream(event_line=False))
print(f"without event: lines: {len(responses)} responses, calls {calls}")
assert responses == [] and calls == [], (responses, calls)

overloaded = {"type": "overloaded_error", "message": "Overloaded"}
failed = event("message_start", False, message=MESSAGE) + event("error", False, error=overloaded)
responses, calls = responses_of(failed)
print(f"an error event without its event: line: {len(responses)} responses, nothing raised")
assert responses == [], responses
