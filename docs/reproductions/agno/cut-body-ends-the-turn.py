"""agno takes a response cut off mid-call for a finished one, without the harness.

``OpenAIChat`` drops the chunks' ``finish_reason``, the one sign that a response ended rather
than broke off. A body cut in the middle of a call's arguments (no finish_reason, no [DONE]) ends
``process_response_stream`` without an error, as a finished response does, and the assistant
message gets the call with its arguments cut short: an ``Agent`` goes on to run it (agno answers
the model that the arguments do not decode), and a text answer cut mid-sentence would be taken as
final.

    python docs/reproductions/agno/cut-body-ends-the-turn.py

prints, with agno 3.1.10 and openai 3.57.0:

    the stream ended without an error
    calls: [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
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
model = OpenAIChat(id="gpt-4o", api_key="x", client_params={"http_client": http, "max_retries": 0})
message = Message(role="assistant")
user = Message(role="user", content="go")
for _ in model.process_response_stream([user], message, MessageData()):  # raises nothing
    pass
print("the stream ended without an error")
calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.tool_calls]
print("calls:", calls)
assert calls == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')], calls
