"""llama-index's OpenAI class, without the harness: a call whose id is repeated on every delta,
or replaced on the later ones (toolcall0, as GLM through Mistral's API sends), gets the ids
joined: the call's id is one the server never issued.

    python docs/reproductions/llama-index-openai/glued-ids.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    id repeated: [('call_k1call_k1call_k1', 'read_file', {'path': 'a.rs'})]
    id changed:  [('chatcmpl-tool-1toolcall0toolcall0', 'read_file', {'path': 'a.rs'})]
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


def one_call(first_id, later_id):
    return (
        delta(id=first_id, type="function", function={"name": "read_file", "arguments": ""})
        + delta(id=later_id, function={"arguments": '{"path": '})
        + delta(id=later_id, function={"arguments": '"a.rs"}'})
        + chunk({}, "tool_calls")
        + "data: [DONE]\n\n"
    )


calls = calls_of(one_call("call_k1", "call_k1"))
print("id repeated:", calls)
assert calls == [("call_k1call_k1call_k1", "read_file", {"path": "a.rs"})], calls
calls = calls_of(one_call("chatcmpl-tool-1", "toolcall0"))
print("id changed: ", calls)
assert calls == [("chatcmpl-tool-1toolcall0toolcall0", "read_file", {"path": "a.rs"})], calls
