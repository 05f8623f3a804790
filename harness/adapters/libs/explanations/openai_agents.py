"""The OpenAI Agents SDK's Chat Completions stream handler (``harness.adapters.libs.openai_agents``),
as it is and with ``buffer_streamed_tool_calls``."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

_DEFAULT = "openai-agents"
_BUFFERED = "openai-agents-buffered"

# first for the buffered model: its crash also leaves calls unemitted (emit-once-early)
explain(
    _BUFFERED,
    "calls-without-index-crash",
    """With buffer_streamed_tool_calls, a call whose deltas carry no index (Gemini's
    OpenAI-compatible endpoint, Ollama) is held under the key None, and once the body has ended the
    buffer rebuilds it as a ChoiceDeltaToolCall with index=None, which pydantic rejects. The stream
    raises a ValidationError in place of response.completed: no call of the message reaches the
    user, though the body completed each of them.""",
    rules={"robust-framing", "emit-once-early"},
)

explain(
    [_DEFAULT, _BUFFERED],
    "calls-at-one-index-merged",
    """The stream handler (and, with buffer_streamed_tool_calls, the buffer before it) keys each
    streamed tool call by its index alone. Parallel calls sent at one index (Groq, gateways that
    rewrite indices) are merged into one function_call item, and so are calls sent with no index
    (Gemini's OpenAI-compatible endpoint, Ollama) without the buffer: the user gets one call with
    the last call's id and name and every call's arguments back to back, which do not parse, and
    the other calls are lost.""",
    rules={"parallel-apart", "emit-once-early"},
)
