"""smolagents takes a response cut off mid-call for a finished one, without the harness.

The deltas of ``OpenAIModel.generate_stream`` drop the chunks' ``finish_reason``, the one sign
that a response ended rather than broke off. A body cut in the middle of a call's arguments (no
finish_reason, no [DONE]) ends the stream without an error, as a finished response does, and
``agglomerate_stream_deltas`` builds a message whose call has the arguments cut short: a
``ToolCallingAgent`` goes on to run it, and a text answer cut mid-sentence would be taken as
final.

    python docs/reproductions/smolagents/cut-body-ends-the-turn.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    the stream ended without an error after 3 deltas
    calls: [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
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


start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file"}}
fragment = {"index": 0, "function": {"arguments": '{"path": "notes/todo.md", "content": "- re'}}
body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [start]}),
        chunk({"tool_calls": [fragment]}),
    ]
)  # the connection closes here: no finish_reason, no [DONE]


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


http = DefaultHttpxClient(transport=httpx.MockTransport(answer))
model = OpenAIModel("gpt-4o", api_key="x", client_kwargs={"http_client": http, "max_retries": 0})
prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
deltas = list(model.generate_stream([prompt]))  # raises nothing
print("the stream ended without an error after", len(deltas), "deltas")
message = agglomerate_stream_deltas(deltas)
calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
print("calls:", calls)
assert calls == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')], calls
# nothing the model hands over says the response broke off
assert not any(hasattr(d, "finish_reason") for d in deltas)
