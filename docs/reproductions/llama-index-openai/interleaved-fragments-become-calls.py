"""llama-index's OpenAI class, without the harness: two parallel calls whose argument
fragments interleave (each call's header first, then the fragments in turn) fall apart: each
fragment after the other call started becomes a call of its own with no id and no name, and
the two real calls keep arguments {}.

    python docs/reproductions/llama-index-openai/interleaved-fragments-become-calls.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'read_file', {}), ('call_2', 'read_file', {}), ('', '', {'path': 'a.rs'}), ('', '', {'path': 'b.rs'})]
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
    return chunk({"tool_calls": [call]})


body = (
    delta(index=0, id="call_1", type="function", function={"name": "read_file", "arguments": ""})
    + delta(index=1, id="call_2", type="function", function={"name": "read_file", "arguments": ""})
    + delta(index=0, function={"arguments": '{"path": "a.rs"}'})
    + delta(index=1, function={"arguments": '{"path": "b.rs"}'})
    + chunk({}, "tool_calls")
    + "data: [DONE]\n\n"
)
calls = calls_of(body)
print("calls:", calls)
assert calls == [
    ("call_1", "read_file", {}),
    ("call_2", "read_file", {}),
    ("", "", {"path": "a.rs"}),
    ("", "", {"path": "b.rs"}),
], calls
