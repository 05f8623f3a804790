"""pydantic-ai: what its ``OpenAIChatModel`` streamed response gets wrong.

Its parts manager keys a streamed call by the delta's index; a delta with no index and a name
starts a new call, one with no index and no name continues the latest call.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

LIBRARY = "pydantic-ai"

#: the scenarios that carry, as written, a shape one of the bugs below is brought out by
_SAME_INDEX = frozenset(
    {
        "same-index-parallel-calls",
        "groq-three-calls-same-index",
        "groq-whole-calls-same-index",
        "gateway-rewrites-indices",
    }
)
_NAME_EVERY_CHUNK = frozenset({"name-every-chunk"})
_MERGE_RULES = frozenset({"parallel-apart", "emit-once-early"})
_NAME_RULES = frozenset({"strict-assembly", "emit-once-early", "cancellation"})

explain(
    LIBRARY,
    "cut-body-reads-as-finished",
    """A body that ends with neither a finish_reason nor [DONE] (a connection closed in the
    middle of a call's arguments) reads as a finished response: the partial call is handed over
    at its PartEndEvent and the response's finish_reason is 'stop', so nothing tells the user
    the turn was cut. Upstream: pydantic/pydantic-ai#6610 (closed: some servers send no
    finish_reason on complete responses, so a missing one is taken as 'stop').""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)

explain(
    LIBRARY,
    "same-index-calls-merged",
    """The parts manager keys calls by index, so parallel calls sent at one index, each with
    its own id (Groq, gateways that renumber), become one call with the names concatenated
    (write_filewrite_file), the arguments back to back and the last id: the first call is lost
    and the merged one cannot run. Related: pydantic/pydantic-ai#6759.""",
    rules=_MERGE_RULES,
    quirks={"same_index"},
    also=[Match(scenarios=_SAME_INDEX, rules=_MERGE_RULES)],
)

explain(
    LIBRARY,
    "name-on-every-delta",
    """A tool name repeated on every delta (llama.cpp's server before ggml-org/llama.cpp#13774
    was fixed, bifrost) is taken as new: with an index it is concatenated onto the call's name
    (final_resultfinal_result...), a tool that does not exist; with no index as well, each
    delta that carries it starts a call of its own, under an id pydantic-ai makes up
    (pyd_ai_...), so the real call comes out with empty arguments and its fragments as
    further calls.""",
    rules=_NAME_RULES,
    quirks={"name_every_chunk"},
    also=[Match(scenarios=_NAME_EVERY_CHUNK, rules=_NAME_RULES)],
)
