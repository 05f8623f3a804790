"""What LangChain.js's ChatOpenAI gets wrong (adapter: ``js/libs/langchain/chat-openai.mjs``):
``langchain-js-openai`` streams with tools bound and concatenates the ``AIMessageChunk``s with
``concat`` from ``@langchain/core``, as its users do, then acts on the whole message's
``tool_calls`` and ``invalid_tool_calls``: per message. Each chunk's ``tool_call_chunks`` are
merged by their index (``mergeLists`` in ``@langchain/core``), and the merged arguments parsed
with ``parsePartialJson``, so the bugs below are ``@langchain/core``'s as much as
``@langchain/openai``'s.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

LIB = "langchain-js-openai"

explain(
    LIB,
    "fragments-without-index-become-calls",
    """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama, SambaNova) are
    not merged at all: concat merges tool_call_chunks only where both have an index, so each
    argument fragment becomes a call of its own, with no id and no name (invalid_tool_calls
    whose args are the fragment), and the call that opened them is handed over with empty
    arguments ('{}', valid: a call the model never made). No upstream report found.""",
    quirks={"no_index"},
    also=(Match(scenarios=frozenset({"no-index-on-call-deltas"})),),
)
explain(
    LIB,
    "changed-id-splits-the-call",
    """A call whose id changes mid-call (vLLM and other servers that send an id on every delta)
    is split in two: concat does not merge two tool_call_chunks at one index whose ids differ,
    so the call's header becomes a call with empty arguments ('{}', valid) and its arguments a
    second call under the later id with no name. The user runs a call the model never made,
    and cannot run the real one. No upstream report found.""",
    quirks={"id_changes"},
    also=(Match(scenarios=frozenset({"id-changes-mid-stream"})),),
)
explain(
    LIB,
    "calls-matched-by-index",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber indices), are matched by index alone: a later call's header, whose
    id differs, stays a call of its own with empty arguments ('{}', valid: the user runs it with
    none), and every argument fragment at that index, which names no id, is appended to the
    first call, which becomes invalid (the argument objects back to back). Where calls also
    come without an index, the same calls are lost the same way. No upstream report found.""",
    quirks={"same_index"},
    also=(
        Match(quirks=frozenset({"same_index", "no_index"})),
        Match(
            scenarios=frozenset(
                {
                    "same-index-parallel-calls",
                    "groq-three-calls-same-index",
                    "gateway-rewrites-indices",
                }
            ),
            as_written=True,
        ),
    ),
)
explain(
    LIB,
    "partial-arguments-completed",
    """Arguments cut short (a dropped connection, a turn that ran out of tokens, a gateway that
    drops the closing brace) are repaired into a valid call: the message's arguments are parsed
    with parsePartialJson, which closes the open string and object, so the user gets a call
    with made-up, truncated values ('- re' for the content being written) in tool_calls, where
    invalid_tool_calls would have told them it cannot run; a cut body also ends the stream with
    no error. No upstream report found (the Python langchain-core repairs the same way).""",
    rules={"strict-assembly", "error-surfaced"},
)
