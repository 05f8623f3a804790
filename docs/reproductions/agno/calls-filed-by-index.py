"""agno files streamed call deltas by their index alone, read as a position in a list, without
the harness.

``OpenAIChat.parse_tool_calls``, which builds the assistant message's calls once the stream is
over, puts each call delta at ``tool_calls[index]`` (a missing index counts as 0) and trusts
nothing else. Parallel calls sent at one index (Groq, gateways that renumber indices) or without
one (Gemini's OpenAI-compatible endpoint, Ollama) are merged into one call; a first call at index
1 (Bedrock Claude through LiteLLM) leaves slot 0 empty, and agno hands that slot over as a call of
its own, with a made-up id and no name or function.

    python docs/reproductions/agno/calls-filed-by-index.py

prints, with agno 3.1.10 and openai 3.57.0:

    at one index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    without an index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    first at index 1: [{'id': '<a uuid4>'}, {'id': 'tooluse_1', 'type': 'function', ...}]
"""

import json

try:
    import httpx2 as httpx  # the openai SDK's HTTP library from 3.x on
except ImportError:
    import httpx
from agno.models.base import MessageData
from agno.models.message import Message
from agno.models.openai import OpenAIChat
from openai import DefaultHttpxClient


def chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


def call(index, call_id, arguments):
    function = {"name": "write_file", "arguments": arguments}
    delta = {"id": call_id, "type": "function", "function": function}
    if index is not None:
        delta["index"] = index
    return {"tool_calls": [delta]}


def tool_calls(*deltas):
    """The calls of the assistant message agno builds from a body with these deltas."""
    chunks = [chunk({"role": "assistant", "content": None}), *(chunk(d) for d in deltas)]
    body = "".join([*chunks, chunk({}, finish="tool_calls"), "data: [DONE]\n\n"]).encode()

    def answer(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = DefaultHttpxClient(transport=httpx.MockTransport(answer))
    params = {"http_client": http, "max_retries": 0}
    model = OpenAIChat(id="gpt-4o", api_key="x", client_params=params)
    prompt = [Message(role="user", content="go")]
    message = Message(role="assistant")
    for _ in model.process_response_stream(prompt, message, MessageData()):
        pass
    return message.tool_calls


def summary(calls):
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls]


merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = summary(
    tool_calls(call(0, "call_1", '{"path": "a.rs"}'), call(0, "call_2", '{"path": "b.rs"}'))
)
print("at one index:", at_one_index)
assert at_one_index == merged, at_one_index
no_index = summary(
    tool_calls(call(None, "call_1", '{"path": "a.rs"}'), call(None, "call_2", '{"path": "b.rs"}'))
)
print("without an index:", no_index)
assert no_index == merged, no_index

slot, real = tool_calls(call(1, "tooluse_1", '{"path": "a.rs"}'))
print("first at index 1:", [slot, real])
assert set(slot) == {"id"} and len(slot["id"]) == 36, slot  # only the uuid4 agno made up
assert (real["id"], real["function"]["arguments"]) == ("tooluse_1", '{"path": "a.rs"}'), real
