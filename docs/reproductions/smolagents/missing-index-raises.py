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

from _wire import ROLE, body, call, generate_stream
from smolagents.models import agglomerate_stream_deltas

# one call, whole in one delta, as Gemini sends it: no "index"
BODY = body(ROLE, call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}'), {})

deltas = list(generate_stream(BODY))
print("the stream was read:", len(deltas), "deltas")
try:
    agglomerate_stream_deltas(deltas)
except ValueError as exc:
    print("agglomerate_stream_deltas raised ValueError:", exc)
    assert "index is not provided" in str(exc), exc
else:
    raise AssertionError("the call without an index was assembled: the bug is fixed")
