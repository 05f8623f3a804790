"""smolagents raises on tool-call deltas that carry no index (Gemini's OpenAI-compatible endpoint,
Ollama), without the harness.

``agglomerate_stream_deltas``, which a ``ToolCallingAgent`` runs on the deltas of
``OpenAIModel.generate_stream`` (on every delta, to show the message as it streams, and once the
stream is over), raises ``ValueError`` on the first call delta without an index: the agent's step
fails with ``AgentGenerationError`` and the call is lost.

    python docs/reproductions/smolagents/missing-index-raises.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    the stream was read: 3 deltas
    agglomerate_stream_deltas raised ValueError: Tool call index is not provided in tool delta: ...
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


# one call, whole in one delta, as Gemini sends it: no "index"
function = {"name": "get_weather", "arguments": '{"city": "Lisbon"}'}
call = {"id": "function-call-1", "type": "function", "function": function}
body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [call]}),
        chunk({}, finish="tool_calls"),
        "data: [DONE]\n\n",
    ]
)


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


http = DefaultHttpxClient(transport=httpx.MockTransport(answer))
model = OpenAIModel("gpt-4o", api_key="x", client_kwargs={"http_client": http, "max_retries": 0})
prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
deltas = list(model.generate_stream([prompt]))
print("the stream was read:", len(deltas), "deltas")
try:
    agglomerate_stream_deltas(deltas)
except ValueError as exc:
    print("agglomerate_stream_deltas raised ValueError:", exc)
    assert "index is not provided" in str(exc), exc
else:
    raise AssertionError("the call without an index was assembled: the bug is fixed")
