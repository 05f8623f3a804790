"""llama-index's OpenAI class, without the harness: two parallel calls sent at index 0, each
with its own id (as Groq sends them), or with no index at all (as Gemini's compatible endpoint
sends them), come out of get_tool_calls_from_response as one call with the ids and names
joined and the arguments, two objects back to back, parsed to {}.

    python docs/reproductions/llama-index-openai/glued-calls-at-one-index.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    at index 0:     [('call_1call_2', 'read_fileread_file', {})]
    without index:  [('call_1call_2', 'read_fileread_file', {})]
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


def two_calls(**index):
    return (
        delta(
            **index, id="call_1", type="function", function={"name": "read_file", "arguments": ""}
        )
        + delta(**index, function={"arguments": '{"path": "a.rs"}'})
        + delta(
            **index, id="call_2", type="function", function={"name": "read_file", "arguments": ""}
        )
        + delta(**index, function={"arguments": '{"path": "b.rs"}'})
        + chunk({}, "tool_calls")
        + "data: [DONE]\n\n"
    )


for shape, body in (("at index 0:", two_calls(index=0)), ("without index:", two_calls())):
    calls = calls_of(body)
    print(f"{shape:15} {calls}")
    assert calls == [("call_1call_2", "read_fileread_file", {})], calls
