"""smolagents merges parallel tool calls sent at one index, each with its own id (Groq, Ollama
through LiteLLM, gateways that renumber indices), into one call, without the harness.

``agglomerate_stream_deltas``, which a ``ToolCallingAgent`` runs on the deltas of
``OpenAIModel.generate_stream``, files each call delta under its index alone: the second call's id
and name replace the first's, and its arguments are appended to the first's.

    python docs/reproductions/smolagents/calls-at-one-index-merged.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    calls: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

import json

try:
    import httpx2 as httpx  # the openai SDK's HTTP library from 3.x on
except ImportError:
    import httpx
from openai import DefaultHttpxClient
from smolagents.models import ChatMessage, MessageRole, OpenAIModel, agglomerate_stream_deltas


def chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


def call(call_id, arguments):
    function = {"name": "write_file", "arguments": arguments}
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}


body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk(call("call_1", '{"path": "a.rs"}')),
        chunk(call("call_2", '{"path": "b.rs"}')),  # a second call, at the same index
        chunk({}, finish="tool_calls"),
        "data: [DONE]\n\n",
    ]
)


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


http = DefaultHttpxClient(transport=httpx.MockTransport(answer))
model = OpenAIModel("gpt-4o", api_key="x", client_kwargs={"http_client": http, "max_retries": 0})
prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
message = agglomerate_stream_deltas(list(model.generate_stream([prompt])))
calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
print("calls:", calls)
assert calls == [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')], calls
