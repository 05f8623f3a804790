"""LlamaIndex's ``stream_chat_with_tools`` and ``get_tool_calls_from_response``, over its OpenAI
and Anthropic classes (``harness.adapters.libs.llama_index``).

The OpenAI class keeps its own list of calls (``update_tool_calls``): a delta continues the last
call when its index equals that call's, and every string field of it (id, name, arguments) is
appended; anything else starts a call. Its bugs show on scenarios written with a server's shape
and, the same, wherever a gateway's quirk reshapes a stream so. Where two shapes lose the same
call at the same event of a stream, the cause they share is explained by the one registered
first, and the other's explanation says so."""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

OPENAI = "llama-index-openai"
ANTHROPIC = "llama-index-anthropic"

#: the shapes whose call ids update_tool_calls glues together
ID_SHAPES = {"id_changes", "id_every_chunk"}

explain(
    OPENAI,
    "glued-calls-at-one-index",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber or drop indices), or with no index (Gemini's compatible endpoint,
    Ollama), are glued into one: update_tool_calls compares a delta's index with the last
    call's only, so every such call continues the first. The user gets one call whose id and
    name are the calls' joined (call_1call_2, write_filewrite_file) and whose arguments, two
    objects back to back, parse to {}: no call the model made runs. No upstream report
    found.""",
    scenarios={
        "same-index-parallel-calls",
        "groq-three-calls-same-index",
        "groq-whole-calls-same-index",
        "gateway-rewrites-indices",
        "no-index-on-call-deltas",
    },
    also=[Match(quirks=frozenset({"no_index", "same_index"}))],
)
explain(
    OPENAI,
    "glued-ids",
    """A call whose id is repeated on every delta, or changed mid-call (GLM through Mistral's
    API), gets the ids glued: update_tool_calls appends every id a delta carries to the call's,
    so the user's tool result answers an id the server never issued (call_k1call_k1..., or the
    first id and the later ones joined), which the server rejects or cannot match. No upstream
    report found.""",
    scenarios={"id-on-every-chunk", "id-changes-mid-stream"},
    rules={"emit-once-early"},
    also=[Match(quirks=frozenset(ID_SHAPES))],
)
explain(
    OPENAI,
    "glued-names",
    """A tool name repeated on every delta (llama.cpp's server, bifrost) is glued:
    update_tool_calls appends every name a delta carries to the call's, so the user looks up a
    tool such as final_resultfinal_result, which does not exist. llama.cpp's server stopped
    repeating the name in ggml-org/llama.cpp#13800; LlamaIndex still glues it.""",
    scenarios={"name-every-chunk"},
    rules={"strict-assembly"},
    also=[Match(quirks=frozenset({"name_every_chunk"}))],
)

# After glued-ids: a case with repeated ids and one with interleaved fragments
# fail at the same events, so they share causes, and those are explained here.
explain(
    OPENAI,
    "interleaved-fragments-become-calls",
    """Parallel calls whose argument fragments interleave (a gateway relaying them side by side)
    fall apart: a fragment of the first call after the second has started is not the last call's
    index, so update_tool_calls starts a new call with no id and no name for it. The user gets
    the real calls with arguments {} and a nameless call for each fragment, so the tools run
    with no arguments. The matrix finds it at some events where a repeated id fails too, so it
    counts those cases here.""",
    quirks={"interleaved_fragments", *ID_SHAPES},
)
# After glued-ids: a chunk with several calls fails only at events where a
# glued id fails too, so they share causes, and those are explained here.
explain(
    OPENAI,
    "second-call-in-one-chunk-dropped",
    """update_tool_calls reads only the first call of a chunk (tool_calls_delta[0]), so a chunk
    that carries several calls whole (Ollama through LiteLLM, merged chunks) loses the others:
    the user never sees them and the model's other calls never run. The matrix finds it at the
    events where a repeated id also loses the call, so it counts those cases here.""",
    quirks={"calls_in_one_chunk", *ID_SHAPES},
)

# First of the Anthropic class's: with no events, nothing else it does shows
explain(
    ANTHROPIC,
    "events-without-event-lines-dropped",
    """A proxy that sends the events as data: lines without their event: line gets every event
    dropped by the anthropic SDK under LlamaIndex, which dispatches on the event: line alone: the
    stream yields nothing, so the user sees no text, no calls and no stop reason, and an error
    event passes silently, a failed turn looking like an empty answer. The TypeScript SDK's same
    behaviour was reported downstream as earendil-works/pi#1983.""",
    quirks={"no_event_lines"},
)

explain(
    (OPENAI, ANTHROPIC),
    "cut-arguments-completed",
    """Arguments cut short (the connection cut, max_tokens, a lost closing brace) are completed
    by LlamaIndex's parse_partial_json, and get_tool_calls_from_response hands the call over as
    a complete dict: a value cut mid-string becomes None ({"path": "notes/todo.md", "content":
    None}), a call cut before its arguments becomes {}. Nothing marks it incomplete, so the
    agent runs the tool with a call the model never finished. Related:
    run-llama/llama_index#20881 (open) asks the parser to keep the cut text instead of None,
    which would still hand over a cut call as complete.""",
    scenarios={
        "cut-mid-arguments",
        "truncated-arguments-max-tokens",
        "arguments-missing-closing-brace",
    },
)

_CORRUPT = (
    "arguments-trailing-duplicate-value",
    "arguments-trailing-extra-brace",
    "duplicated-argument-fragment",
)

explain(
    OPENAI,
    "corrupt-arguments-become-empty",
    """Arguments that are not JSON (the object twice, an extra closing brace, a fragment sent
    twice) fail LlamaIndex's parse_partial_json, and get_tool_calls_from_response swallows the
    error and hands the call over with arguments {}: the agent runs the tool with no arguments
    and nothing tells the user the stream was corrupt.""",
    scenarios=_CORRUPT,
)
explain(
    ANTHROPIC,
    "corrupt-arguments-keep-last-parse",
    """The Anthropic class parses the arguments again at each fragment and keeps the last text
    that parsed when a later one does not, so arguments that are not JSON (the object twice, an
    extra closing brace, a fragment sent twice) come out as that earlier prefix: the first
    object, or {"path": "src/main.rs"} without the content the fragment after it held. The
    user's tool runs with arguments the model never sent, and nothing marks them corrupt.""",
    scenarios=_CORRUPT,
)
