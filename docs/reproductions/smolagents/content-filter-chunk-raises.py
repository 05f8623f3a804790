"""smolagents raises on the content-filter chunk Azure OpenAI sends after a streamed answer,
without the harness.

Azure appends a chunk whose choice has no ``delta``, only the content filter's results, and no
``finish_reason``. ``OpenAIModel.generate_stream`` raises ``ValueError`` on a choice without a
delta unless it finishes: the agent's step fails with ``AgentGenerationError``, and the answer and
calls it had read are lost.

    python docs/reproductions/smolagents/content-filter-chunk-raises.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    deltas before the raise: ['Paris is sunny.', None]
    generate_stream raised ValueError: No content or tool calls in event: ChatCompletionChunk(...
"""

import json

try:
    import httpx2 as httpx  # the openai SDK's HTTP library from 3.x on
except ImportError:
    import httpx
from openai import DefaultHttpxClient
from smolagents.models import ChatMessage, MessageRole, OpenAIModel


def chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return f"data: {json.dumps({**data, 'choices': [choice]})}\n\n"


safe = {"filtered": False, "severity": "safe"}
content_filter = {
    "choices": [
        {
            "index": 0,
            "finish_reason": None,
            "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 15},
            "content_filter_results": {"hate": safe, "self_harm": safe, "violence": safe},
        }
    ],
    "created": 0,
    "id": "",
    "model": "",
    "object": "",
}
body = "".join(
    [
        chunk({"role": "assistant", "content": "Paris is sunny."}),
        chunk({}, finish="stop"),
        f"data: {json.dumps(content_filter)}\n\n",  # Azure's trailing chunk: no delta
        "data: [DONE]\n\n",
    ]
)


def answer(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


http = DefaultHttpxClient(transport=httpx.MockTransport(answer))
model = OpenAIModel("gpt-4o", api_key="x", client_kwargs={"http_client": http, "max_retries": 0})
prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
seen = []
try:
    for delta in model.generate_stream([prompt]):
        seen.append(delta.content)
except ValueError as exc:
    print("deltas before the raise:", seen)
    print("generate_stream raised ValueError:", str(exc)[:80] + "...")
    assert "No content or tool calls in event" in str(exc), exc
else:
    raise AssertionError(f"the stream was read to its end ({seen}): the bug is fixed")
