"""Strands Agents (``strands-openai``, ``strands-anthropic``): its event loop's stream
processing over its OpenAI and Anthropic model providers."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

_OPENAI = "strands-openai"
_ANTHROPIC = "strands-anthropic"

explain(
    _OPENAI,
    "cut-stream-runs-the-cut-call",
    """The body is cut in the middle of a call's arguments. Strands' OpenAI model ends the message
    with end_turn when no finish_reason came, process_stream turns that into tool_use because the
    message holds a tool use, and the half-sent arguments, which do not parse, become {}: the
    agent runs the tool with no arguments instead of reporting the broken stream. Related:
    strands-agents/harness-sdk#4334 (a stream without messageStop taken as a finished turn).""",
    scenarios={"cut-mid-arguments"},
)
explain(
    _OPENAI,
    "calls-merged-by-index",
    """Strands' OpenAI model groups call deltas by index, so parallel calls sent at one index
    (Groq, index-rewriting gateways) or without an index (Gemini's compatibility endpoint,
    Ollama) become one tool use with the first call's id and name and every call's arguments
    back to back. Those do not parse and become {}, so the agent runs one tool with no arguments
    and the other calls are lost; where the first call had no arguments of its own, it runs
    with the next call's.""",
    scenarios={
        "continuation-without-id",
        "empty-arguments-next-to-call",
        "finish-stop-parallel-calls",
        "first-index-one",
        "gateway-rewrites-indices",
        "groq-three-calls-same-index",
        "groq-whole-calls-same-index",
        "id-changes-mid-stream",
        "id-on-every-chunk",
        "no-index-on-call-deltas",
        "parallel-calls",
        "same-index-parallel-calls",
    },
    rules={"strict-assembly", "emit-once-early"},
)

explain(
    _ANTHROPIC,
    "events-without-event-lines-dropped",
    """A proxy sends the events as data: lines without their event: lines. The anthropic SDK
    under Strands dispatches events by the event: name, so it passes none of them on, and
    process_stream, which saw no messageStop, reports an empty message that ended with end_turn:
    the agent's answer is silently empty, its calls never run, and an error event is lost. The
    TypeScript SDK does the same: openclaw/openclaw#37571.""",
    quirks={"no_event_lines"},
)
explain(
    _ANTHROPIC,
    "stream-end-taken-as-end-turn",
    """A stream that ends without its message_stop (cut mid-arguments, or a recording whose last
    event is never dispatched) gets no stop reason from Strands' Anthropic model, and
    process_stream falls back to end_turn: the user sees a finished turn, a call cut short is
    dropped without a word, and a tool_use turn's calls are not run, since the event loop runs
    tools only on tool_use. Upstream: strands-agents/harness-sdk#4334 (open).""",
    scenarios={"cut-mid-arguments", "recorded-anthropic-tool-use"},
    rules={"error-surfaced", "turn-lifetime"},
)

explain(
    [_OPENAI, _ANTHROPIC],
    "unparsable-input-becomes-empty",
    """Tool input that does not parse as JSON (a lost closing brace, a second brace, the object
    twice, a repeated fragment) is replaced with {} by process_stream, with only a logged
    warning, so the agent runs the tool with no arguments and the model is not told its call was
    broken. Upstream: strands-agents/harness-sdk#2051 (open; the fix, #2397, is not merged).""",
    scenarios={
        "arguments-missing-closing-brace",
        "arguments-trailing-duplicate-value",
        "arguments-trailing-extra-brace",
        "duplicated-argument-fragment",
    },
    rules={"strict-assembly"},
)
