"""LlamaIndex's ``stream_chat_with_tools`` and ``get_tool_calls_from_response``, over its OpenAI
and Anthropic classes (``harness.adapters.libs.llama_index``).

The OpenAI class keeps its own list of calls (``update_tool_calls``): a delta continues the last
call when its index equals that call's, and every string field of it (id, name, arguments) is
appended; anything else starts a call. Several of its bugs show on scenarios written with a
server's shape and, the same, on every stream a gateway's quirk reshapes, which one matcher
cannot name together: each such bug has an explanation for each."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

OPENAI = "llama-index-openai"
ANTHROPIC = "llama-index-anthropic"

#: parallel calls sent at one index, or with none, as servers were recorded sending them
_ONE_INDEX = (
    "same-index-parallel-calls",
    "groq-three-calls-same-index",
    "groq-whole-calls-same-index",
    "gateway-rewrites-indices",
    "no-index-on-call-deltas",
)

_GLUED = """update_tool_calls compares a delta's index with the last call's only, so every call
    at the same index, or without one, continues the first: the user gets one call whose id and
    name are the calls' joined (call_1call_2, write_filewrite_file) and whose arguments, two
    objects back to back, parse to {}. No call the model made runs."""

explain(
    OPENAI,
    "glued-calls-at-one-index",
    f"""Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber), or with no index (Gemini's compatible endpoint, Ollama), are glued
    into one. {_GLUED} No upstream report found.""",
    scenarios=_ONE_INDEX,
)
explain(
    OPENAI,
    "glued-calls-when-index-dropped",
    f"""A gateway that drops the calls' index, or sends every call at index 0, glues the parallel
    calls of any stream into one, as in glued-calls-at-one-index. {_GLUED}""",
    quirks={"no_index", "same_index"},
)

_IDS = """update_tool_calls appends every id a delta carries to the call's id, so the user's
    tool result answers an id the server never issued (call_k1call_k1..., or the first id
    and the later ones joined), which the server rejects or cannot match."""

explain(
    OPENAI,
    "glued-ids",
    f"""A server that repeats the call's id on every delta, or changes it mid-call (GLM through
    Mistral's API), gets the ids glued. {_IDS} No upstream report found.""",
    scenarios={"id-on-every-chunk", "id-changes-mid-stream"},
    rules={"emit-once-early"},
)
explain(
    OPENAI,
    "glued-ids-when-id-repeated",
    f"""A gateway that repeats the call's id on its later deltas, or sends another there, gets
    the ids glued on any stream, as in glued-ids. {_IDS}""",
    quirks={"id_changes", "id_every_chunk"},
)

_NAMES = """update_tool_calls appends every name a delta carries to the call's name, so the
    user looks up a tool such as final_resultfinal_result, which does not exist."""

explain(
    OPENAI,
    "glued-names",
    f"""llama.cpp's server repeats the tool's name on every delta. {_NAMES} The same class as
    ggml-org/llama.cpp#13774, reported from the pydantic-ai side.""",
    scenarios={"name-every-chunk"},
    rules={"strict-assembly"},
)
explain(
    OPENAI,
    "glued-names-when-name-repeated",
    f"""A gateway that repeats the tool's name on every delta gets it glued on any stream, as in
    glued-names. {_NAMES}""",
    quirks={"name_every_chunk"},
)

# After glued-ids-when-id-repeated: a case with repeated ids and one with interleaved fragments
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
    quirks={"interleaved_fragments", "id_changes", "id_every_chunk"},
)
# After glued-ids-when-id-repeated: a chunk with several calls fails only at events where a
# glued id fails too, so they share causes, and those are explained here.
explain(
    OPENAI,
    "second-call-in-one-chunk-dropped",
    """update_tool_calls reads only the first call of a chunk (tool_calls_delta[0]), so a chunk
    that carries several calls whole (Ollama through LiteLLM, merged chunks) loses the others:
    the user never sees them and the model's other calls never run. The matrix finds it at the
    events where a repeated id also loses the call, so it counts those cases here.""",
    quirks={"calls_in_one_chunk", "id_changes", "id_every_chunk"},
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
