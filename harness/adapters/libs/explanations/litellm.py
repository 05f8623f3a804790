"""litellm: what ``litellm.completion(stream=True)`` and ``stream_chunk_builder`` get wrong."""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

LIBRARY = "litellm"

#: the scenarios that carry one index for all calls, or none, as written
_INDEX_SHAPES = frozenset(
    {
        "same-index-parallel-calls",
        "groq-three-calls-same-index",
        "groq-whole-calls-same-index",
        "gateway-rewrites-indices",
        "no-index-on-call-deltas",
    }
)
_MERGE_RULES = frozenset({"parallel-apart", "emit-once-early"})

explain(
    LIBRARY,
    "cut-body-reads-as-finished",
    """A body that ends with neither a finish_reason nor [DONE] (a connection closed in the
    middle of a call's arguments) is finished by litellm's stream wrapper, which adds a last
    chunk with finish_reason 'stop' of its own; the built message holds the partial call and
    reads as a complete answer, so nothing tells the user the turn was cut. Upstream:
    BerriAI/litellm#40260 (open).""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)

explain(
    LIBRARY,
    "calls-merged-by-index",
    """stream_chunk_builder merges calls by index, so parallel calls sent at one index, each
    with its own id (Groq, Ollama through a proxy, gateways that renumber), or with no index
    at all (Gemini's compatible endpoint, Ollama), come back as one call with the last id and
    the arguments back to back: the other calls are lost and the remaining one cannot be
    parsed. Upstream: BerriAI/litellm#7621 (closed).""",
    rules=_MERGE_RULES,
    quirks={"same_index", "no_index"},
    also=[Match(scenarios=_INDEX_SHAPES, rules=_MERGE_RULES)],
)
