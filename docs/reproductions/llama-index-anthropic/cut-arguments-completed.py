"""llama-index's Anthropic class, without the harness: a stream cut in the middle of a tool
use's input (no content_block_stop, no message_delta) still hands the call over from
get_tool_calls_from_response, its input completed by parse_partial_json, the cut value turned
into None, and no stop reason to tell the turn did not end.

    python docs/reproductions/llama-index-anthropic/cut-arguments-completed.py

prints, with llama-index-llms-anthropic 0.12.3 (llama-index-core 0.14.25, anthropic 0.125.0):

    calls: [('toolu_1', 'write_file', {'path': 'notes/todo.md', 'content': None})]
    stop_reason: None
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


body = (
    event("message_start", message=MESSAGE)
    + event("content_block_start", index=0, content_block=TOOL_USE)
    + event(
        "content_block_delta",
        index=0,
        delta={"type": "input_json_delta", "partial_json": '{"path": "notes/todo.md", '},
    )
    + event(
        "content_block_delta",
        index=0,
        delta={"type": "input_json_delta", "partial_json": '"content": "- re'},
    )
)  # the connection is cut here
responses, calls = responses_of(body)
stop_reason = responses[-1].message.additional_kwargs["stop_reason"]
print("calls:", calls)
print("stop_reason:", stop_reason)
assert calls == [("toolu_1", "write_file", {"path": "notes/todo.md", "content": None})], calls
