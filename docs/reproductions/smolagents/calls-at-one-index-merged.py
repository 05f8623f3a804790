"""smolagents merges parallel tool calls sent at one index, each with its own id (Groq, Ollama
through LiteLLM, gateways that renumber indices), into one call, without the harness.

``agglomerate_stream_deltas``, which a ``ToolCallingAgent`` runs on the deltas of
``OpenAIModel.generate_stream``, files each call delta under its index alone: the second call's id
and name replace the first's, and its arguments are appended to the first's.

    python docs/reproductions/smolagents/calls-at-one-index-merged.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    calls: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from _wire import ROLE, body, call, calls, generate_stream
from smolagents.models import agglomerate_stream_deltas

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", '{"path": "a.rs"}'),
    call(0, "call_2", "write_file", '{"path": "b.rs"}'),  # a second call, at the same index
    {},
)

merged = calls(agglomerate_stream_deltas(list(generate_stream(BODY))))
print("calls:", merged)
assert merged == [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')], merged
