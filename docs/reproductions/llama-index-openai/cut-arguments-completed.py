"""llama-index's OpenAI class, without the harness: a stream cut in the middle of a call's
arguments (no finish_reason, no [DONE]) still hands the call over from
get_tool_calls_from_response, its arguments completed by parse_partial_json, the cut value
turned into None.

    python docs/reproductions/llama-index-openai/cut-arguments-completed.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'write_file', {'path': 'notes/todo.md', 'content': None})]
"""

import json

import httpx
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI


def chunk(delta, finish_reason=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


def calls_of(body):
    """The calls FunctionAgent runs: those of the stream's last response."""

    def answer(request):
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=body.encode())

    http = httpx.Client(transport=httpx.MockTransport(answer))
    llm = OpenAI(model="gpt-4o", api_key="offline", max_retries=0, http_client=http)
    tool = FunctionTool.from_defaults(lambda path: path, name="read_file", description="Read.")
    *_, last = llm.stream_chat_with_tools([tool], user_msg="go", allow_parallel_tool_calls=True)
    calls = llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)
    return [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls]


def delta(**call):
    return chunk({"tool_calls": [{"index": 0, **call}]})


body = (
    delta(id="call_1", type="function", function={"name": "write_file", "arguments": ""})
    + delta(function={"arguments": '{"path": "notes/todo.md", '})
    + delta(function={"arguments": '"content": "- re'})
)  # the connection is cut here
calls = calls_of(body)
print("calls:", calls)
assert calls == [("call_1", "write_file", {"path": "notes/todo.md", "content": None})], calls
