"""langchain-core: what its ``AIMessageChunk`` merging (``+``) gets wrong.

Its tool call chunks are merged by ``merge_lists`` (a chunk joins the earlier one with its
index, unless both carry different ids; string fields are concatenated), and the summed
arguments are parsed by ``parse_partial_json``, which completes what it can.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

LIBRARY = "langchain-core"

#: the scenarios that carry, as written, a shape one of the bugs below is brought out by
_NAME_EVERY_CHUNK = frozenset({"name-every-chunk"})
_INDEX_SHAPES = frozenset(
    {
        "no-index-on-call-deltas",
        "id-changes-mid-stream",
        "same-index-parallel-calls",
        "groq-three-calls-same-index",
        "gateway-rewrites-indices",
    }
)
_NAME_RULES = frozenset({"strict-assembly"})
_INDEX_RULES = frozenset({"strict-assembly", "emit-once-early", "error-surfaced"})

explain(
    LIBRARY,
    "names-concatenated",
    """A tool name repeated on every chunk (llama.cpp's server before ggml-org/llama.cpp#13774
    was fixed, bifrost) is concatenated like the arguments, so the summed message names a tool
    that does not exist (final_resultfinal_result...) and the user's tool lookup fails.""",
    rules=_NAME_RULES,
    quirks={"name_every_chunk"},
    also=[Match(scenarios=_NAME_EVERY_CHUNK, rules=_NAME_RULES)],
)

explain(
    LIBRARY,
    "calls-matched-by-index",
    """A tool call chunk is merged into the earlier one with the same index, unless both carry
    different ids. Chunks with no index (Gemini's compatible endpoint, Ollama) are never merged,
    and a call whose id changes mid-stream (GLM on Mistral's API) is cut where it changes: the
    user gets the named call with {} as its arguments and further calls with no name holding
    the pieces (langchain-ai/langchain#34654, open). Where several calls share one index (Groq,
    gateways that renumber), the fragments that come without an id all join the first call at
    that index, whose partial parse keeps its own object, so the later calls run with {}
    (langchain-ai/langchain#34807; PR #35281 kept apart only calls that carry their own id).""",
    rules=_INDEX_RULES,
    quirks={"no_index", "id_changes", "same_index"},
    also=[Match(scenarios=_INDEX_SHAPES, rules=_INDEX_RULES)],
)

explain(
    LIBRARY,
    "partial-arguments-completed",
    """Arguments that stop short (a body cut mid-call, a max_tokens cut, a lost closing brace)
    are completed by the partial JSON parser, so the summed message holds a valid entry of
    tool_calls (a file write whose content stops mid-word, or {} for a call whose arguments
    never came) and invalid_tool_calls stays empty: the user runs a tool with a call the model
    never finished. Upstream: langchain-ai/langchain#39275 (closed; its fix, PR #39276, was not
    merged).""",
    scenarios={
        "cut-mid-arguments",
        "truncated-arguments-max-tokens",
        "arguments-missing-closing-brace",
    },
    rules={"strict-assembly", "error-surfaced"},
)

explain(
    LIBRARY,
    "trailing-data-dropped",
    """Arguments that hold the same object twice are parsed leniently: the partial JSON parser
    keeps the first object and drops the rest, so the call is a valid entry of tool_calls and
    the corrupt stream goes unnoticed (a second closing brace, by contrast, is reported in
    invalid_tool_calls).""",
    scenarios={"arguments-trailing-duplicate-value"},
    rules={"strict-assembly"},
    as_written=True,
)
