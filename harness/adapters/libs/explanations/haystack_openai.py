"""Haystack's ``OpenAIChatGenerator`` streaming (``harness.adapters.libs.haystack_openai``)."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

_LIBRARY = "haystack"

explain(
    _LIBRARY,
    "unparsable-calls-skipped",
    """A call whose arguments do not parse as JSON (cut short, the object twice, a stray
    closing brace, a fragment sent twice) is left out of the reply's tool_calls, with only a
    logged warning: the user never learns the model asked for it, and cannot answer it with an
    error. Parallel calls sent at one index end so too: Haystack merges them
    (calls-at-one-index-merged), their arguments back to back do not parse, and the reply
    holds no call at all. Upstream: deepset-ai/haystack#9576 (closed).""",
    scenarios={
        "arguments-missing-closing-brace",
        "arguments-trailing-duplicate-value",
        "arguments-trailing-extra-brace",
        "duplicated-argument-fragment",
        "same-index-parallel-calls",
        "groq-three-calls-same-index",
        "groq-whole-calls-same-index",
        "gateway-rewrites-indices",
    },
    rules={"emit-once-early"},
    as_written=True,
)

explain(
    _LIBRARY,
    "calls-at-one-index-merged",
    """Haystack keys a call's fragments by their index alone, so parallel calls sent at one
    index (Groq, gateways that rewrite indices) become one call with the names joined
    (current_timelist_events), the arguments back to back and the last call's id. Where the
    joined arguments still parse (the first call had none), the user gets that one call, which
    names no tool; otherwise the merged call is skipped (unparsable-calls-skipped).""",
    rules={"parallel-apart"},
)

explain(
    _LIBRARY,
    "name-on-every-delta-joined",
    """A tool name repeated on every delta (llama.cpp's server does this) is appended each
    time, so the reply's call is named final_resultfinal_result... and the user looks up a
    tool that does not exist.""",
    rules={"strict-assembly"},
)

explain(
    _LIBRARY,
    "cut-call-handed-over-empty",
    """When the body ends after a call's start and before any of its arguments, the reply
    holds the call with {} as its arguments, a complete-looking call the user may run; only
    the reply's finish_reason, None, shows that the stream was cut. (A call cut in the middle
    of its arguments does not parse, and is skipped.)""",
    rules={"error-surfaced"},
)

# last: a call the stream completed is missing from the reply in scenarios of parallel calls
# under same_index too, where it is one cause with the rejected chunks' (no_index)
explain(
    _LIBRARY,
    "call-deltas-rejected",
    """Haystack turns each chunk into a StreamingChunk whose own checks reject two shapes of
    legal deltas: a call delta without an index (Gemini's OpenAI-compatible endpoint, Ollama:
    "index must also be set"), and a delta that carries text and the start of a call together
    ("Only one of content, tool_call ... may be set"). run() raises ValueError in the middle
    of the stream, so the user gets no reply: neither the text nor any call. (Where parallel
    calls sent at one index lose the same calls, calls-at-one-index-merged, the cause they
    share is counted here.) Upstream: deepset-ai/haystack#12610 (the second shape, closed).""",
    rules={"robust-framing", "emit-once-early"},
)
