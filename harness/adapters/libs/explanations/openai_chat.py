"""What the ``openai`` SDK's ``client.chat.completions.stream`` gets wrong (adapter:
``openai_chat``): ``openai-chat`` acts on its events, ``openai-chat-final`` on
``get_final_completion()``; both run the same accumulator (``ChatCompletionStreamState`` and
``accumulate_delta``), so most bugs are both's.

Every cause here but one (length-finish-raises as OpenAI sends it) comes from shapes only
gateways and OpenAI-compatible servers send. Several of those shapes lose the same call at the
same point of a stream, so one cause can be brought out by more than one of them; the
explanations say so where it happens, and each shape is reproduced once. A shape that is also a
scenario of its own (first-index-one, no-index-on-call-deltas) is explained there, and as a quirk
on every other scenario in crash-on-gateway-call-deltas.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

BOTH = ("openai-chat", "openai-chat-final")
#: the shapes that make the accumulator raise
CRASHING = {"no_index", "first_index_1", "null_fields"}
#: the shapes whose call ids the accumulator glues together
ID_SHAPES = {"id_changes", "id_every_chunk"}

explain(
    BOTH,
    "glued-names",
    """A tool name repeated on every delta (llama.cpp's server, bifrost) is concatenated, since
    accumulate_delta appends every string field of a call delta: the call is named
    write_filewrite_file..., and the user looks up a tool that does not exist. llama.cpp's
    server stopped repeating the name in ggml-org/llama.cpp#13800; the SDK still glues it.""",
    rules={"strict-assembly"},
)
explain(
    BOTH,
    "glued-calls-at-one-index",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber indices), are glued into one call: the accumulator concatenates
    every string field, so the user gets an id like call_1call_2, a name like
    write_filewrite_file and two JSON objects back to back as the arguments; every real call
    is lost and the glued one cannot run. No openai-python report found; the same class as
    BerriAI/litellm#7621.""",
    rules={"parallel-apart"},
)
explain(
    BOTH,
    "crash-on-gateway-call-deltas",
    """Call deltas that send every missing field as null (Writer's API) crash the accumulator:
    accumulate_delta lets a continuation's "type": null replace the call's "function", and the
    SDK's own assertion that the call is still a function fails on that chunk, so the user gets
    an AssertionError mid-stream and no calls. The gateway shapes of crash-without-index and
    crash-on-first-index-one crash it the same way wherever a gateway adds them to a stream,
    and they lose the calls that follow.""",
    rules={"robust-framing", "emit-once-early"},
    quirks=CRASHING,
)
explain(
    BOTH,
    "crash-without-index",
    """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama) crash the
    stream with TypeError, as the accumulator uses the index as a list position: the user gets
    an exception and no calls. Upstream: openai/openai-python#2806 (closed; the fixes proposed,
    openai/openai-python#3246 and #3410, were closed unmerged).""",
    scenarios={"no-index-on-call-deltas"},
    rules={"robust-framing", "emit-once-early"},
)
explain(
    BOTH,
    "crash-on-first-index-one",
    """The first call comes at index 1 (Bedrock Claude through LiteLLM, DeepSeek): the
    accumulator inserts it at position 0 of an empty list, then looks it up at position 1, and
    the stream dies with IndexError, so the user gets an exception and no calls. Worked around
    downstream in marimo-team/marimo#7356.""",
    scenarios={"first-index-one"},
    rules={"robust-framing", "emit-once-early"},
)
explain(
    "openai-chat-final",
    "length-finish-raises",
    """The turn is cut by max_tokens (finish_reason 'length'): get_final_completion() raises
    LengthFinishReasonError although the request asked for no response_format and no strict
    tools to parse, so the user loses the partial message instead of seeing it was cut. The
    stream's own accumulator raises only when there is something to parse. Upstream:
    openai/openai-python#3589 (an open pull request).""",
    scenarios={"truncated-arguments-max-tokens"},
    rules={"robust-framing"},
)
explain(
    "openai-chat-final",
    "cut-stream-completed",
    """The body ends mid-stream, with neither a finish_reason nor [DONE], right after a call's
    header: the stream raises nothing and get_final_completion() returns the message as it
    stood, the call with empty arguments, so a user who runs the calls it holds runs a tool
    the model never finished calling (its finish_reason is None, the only sign).""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)
explain(
    "openai-chat",
    "glued-ids",
    """A call id repeated (or changed) on later deltas is concatenated onto the first
    (call_k1call_k1..., or chatcmpl-tool-1toolcall0), so the call the user runs answers to an
    id the server never issued, and its tool result matches no call. Upstream:
    openai/openai-agents-python#990, worked around in the Agents SDK's own accumulator.""",
    rules={"emit-once-early"},
    quirks=ID_SHAPES,
)
explain(
    "openai-chat",
    "calls-never-handed-over",
    """A call the stream finished never reaches a user of the stream's events. The SDK fires
    tool_calls.function.arguments.done for a call only when the next call starts, or when
    finish_reason comes while that call is open, so a call whose first delta arrives in the
    chunk carrying finish_reason (each call whole, the finish on the last, as OpenRouter
    relaying Gemini and Dynamo send them; a call without arguments under vLLM's finish on the
    last delta) gets no done event, though get_final_completion() holds it. The same calls are
    lost at the same point under other shapes these causes share: ids glued as in glued-ids
    (and in the scenarios that send such ids as written), calls glued at one index, or a crash
    before them (crash-on-gateway-call-deltas).""",
    rules={"emit-once-early"},
)
explain(
    "openai-chat-final",
    "glued-ids",
    """A call id repeated (or changed) on later deltas is concatenated onto the first
    (call_k1call_k1..., or chatcmpl-tool-1toolcall0), so the call the user runs answers to an
    id the server never issued, and its tool result matches no call; calls glued at one index
    lose their ids the same way. On most causes brought out by these shapes, the shapes of
    crash-on-gateway-call-deltas lose the same call at the same point, by a crash. Upstream:
    openai/openai-agents-python#990, worked around in the Agents SDK's own accumulator.""",
    rules={"emit-once-early"},
)
