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

from _wire import body, generate_stream

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
BODY = (
    body({"role": "assistant", "content": "Paris is sunny."}, {}, finish="stop", done=False)
    + f"data: {json.dumps(content_filter)}\n\n"  # Azure's trailing chunk: no delta
    + "data: [DONE]\n\n"
)

seen = []
try:
    for delta in generate_stream(BODY):
        seen.append(delta.content)
except ValueError as exc:
    print("deltas before the raise:", seen)
    print("generate_stream raised ValueError:", str(exc)[:80] + "...")
    assert "No content or tool calls in event" in str(exc), exc
else:
    raise AssertionError(f"the stream was read to its end ({seen}): the bug is fixed")
