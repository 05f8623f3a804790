"""What each library did in each scenario it fails, in plain words: what the library does, what its
user would see, and the upstream report where one exists. ``harness matrix`` shows these next to
the rules broken; a failure with no entry here gets one built from the violations (and a test asks
for an entry, so a new failure gets explained)."""

from __future__ import annotations

from collections.abc import Iterable

EXPLANATIONS: dict[tuple[str, str], str] = {}


def _explain(library: str, scenarios: Iterable[str], text: str) -> None:
    for scenario in scenarios:
        EXPLANATIONS[library, scenario] = " ".join(text.split())


# Several calls at one index of the OpenAI Chat tool_calls list, each with its own id (Groq,
# gateways that renumber indices).
_SAME_INDEX = (
    "same-index-parallel-calls",
    "groq-three-calls-same-index",
    "groq-whole-calls-same-index",
    "gateway-rewrites-indices",
)

_explain(
    "anthropic",
    ["arguments-missing-closing-brace"],
    """The arguments stop before their closing brace. The SDK parses the input leniently and
    content_block_stop hands over a complete-looking dict, so the tool runs with a call the model
    never finished and nothing marks it incomplete. Related upstream:
    anthropics/anthropic-sdk-python#794 (partial JSON kept, closed as intended).""",
)
_explain(
    "anthropic",
    ["arguments-trailing-duplicate-value", "arguments-trailing-extra-brace"],
    """The arguments hold a complete object and then more (the object twice, or a second closing
    brace). The SDK's lenient parse keeps the first object and drops the rest without a word, so
    content_block_stop hands over a valid-looking input and the tool runs; nothing tells the user
    the stream was corrupt. Reproduced without the harness:
    docs/reproductions/anthropic_trailing_data.py feeds MessageStream '{"ticket_id": 42}' then '}' and gets the
    input {'ticket_id': 42}. Same class as anthropics/anthropic-sdk-python#794.""",
)
_explain(
    "anthropic",
    ["duplicate-block-stop"],
    """A content_block_stop sent twice (as a LiteLLM proxy release did, BerriAI/litellm#37273) is
    passed on twice, each time with the finished tool_use block: a user who runs tools at
    content_block_stop runs each tool twice. The first-party API does not send it.""",
)

for _library in ("openai-chat", "openai-chat-final"):
    _explain(
        _library,
        _SAME_INDEX,
        """Parallel calls sent at one index, each with its own id, are glued into one call: the
        SDK's accumulator concatenates every string field, so the user gets an id like
        call_1call_2, a name like write_filewrite_file and two JSON objects back to back as the
        arguments; every real call is lost and the glued one cannot run. No openai-python report
        found; the same class as BerriAI/litellm#7621 and langchain-ai/langchain#34807.""",
    )
    _explain(
        _library,
        ["id-on-every-chunk", "id-changes-mid-stream"],
        """A call id repeated (or changed) on later deltas is concatenated onto the first, so the
        user's tool result answers an id the server never issued (call_k1call_k1...). Upstream:
        openai/openai-agents-python#990, worked around in the Agents SDK's own accumulator.""",
    )
    _explain(
        _library,
        ["name-every-chunk"],
        """A tool name repeated on every delta is concatenated (final_resultfinal_result...), so
        the user looks up a tool that does not exist. Reported from the pydantic-ai side as
        ggml-org/llama.cpp#13774.""",
    )
    _explain(
        _library,
        ["first-index-one"],
        """The first call comes at index 1 (Bedrock Claude through LiteLLM does this); the SDK uses
        the index as a list position and the stream dies with IndexError, so the user gets an
        exception and no calls. Downstream reports: marimo-team/marimo#7330.""",
    )
    _explain(
        _library,
        ["no-index-on-call-deltas"],
        """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama) crash the
        stream with TypeError, so the user gets an exception and no calls. Upstream:
        openai/openai-python#2806 (closed; the fix was not merged).""",
    )
_explain(
    "openai-chat-final",
    ["truncated-arguments-max-tokens"],
    """The stream is cut by max_tokens; get_final_completion() raises LengthFinishReasonError even
    without a response_format or tools to parse, so the user loses the partial message instead of
    seeing it was cut. Upstream: openai/openai-python#3589 (open).""",
)

_explain(
    "langchain-core",
    ["arguments-missing-closing-brace", "truncated-arguments-max-tokens"],
    """Truncated arguments are completed by LangChain's partial JSON parser, so the cut call is a
    valid entry of tool_calls (a file write whose content stops mid-word) and invalid_tool_calls
    stays empty: the tool runs with a call the model never finished. Upstream:
    langchain-ai/langchain#39275 (closed; the fixes were not merged).""",
)
_explain(
    "langchain-core",
    ["arguments-trailing-duplicate-value"],
    """The arguments hold the same object twice. LangChain's partial JSON parser keeps the first
    object, so the call is a valid entry of tool_calls and invalid_tool_calls stays empty: the
    tool runs and the corrupt stream goes unnoticed (a second closing brace, by contrast, is
    reported invalid). Reproduced without the harness:
    docs/reproductions/langchain_trailing_data.py sums AIMessageChunks whose tool_call_chunks carry the object
    twice and gets tool_calls with the first object.""",
)
_explain(
    "langchain-core",
    ["same-index-parallel-calls", "groq-three-calls-same-index", "gateway-rewrites-indices"],
    """A second call at the same index whose fragments come without an id: the fragments are
    merged into the first call, the partial parser keeps the first JSON object, and the second
    call runs with {}: its arguments are silently lost. Whole calls with their own ids stay apart.
    Upstream: langchain-ai/langchain#34807 (open; PR #35281 covers only whole calls).""",
)
_explain(
    "langchain-core",
    ["id-changes-mid-stream", "no-index-on-call-deltas"],
    """A call whose id changes mid-stream, or whose deltas carry no index, is split: a named call
    with {} as arguments, and its arguments in further calls with no name under the later id (or
    none), so the user runs the tool without its arguments and gets calls they cannot dispatch.""",
)
_explain(
    "langchain-core",
    ["name-every-chunk"],
    """A tool name repeated on every chunk is concatenated (final_resultfinal_result...), so the
    user looks up a tool that does not exist.""",
)

_explain(
    "pydantic-ai",
    _SAME_INDEX,
    """The parts manager keys calls by index, so parallel calls at one index become one call with a
    doubled name, the arguments back to back and the last id: the first call is lost and the
    merged one cannot run. Related: pydantic/pydantic-ai#6759.""",
)
_explain(
    "pydantic-ai",
    ["name-every-chunk"],
    """A tool name repeated on every delta is concatenated (final_resultfinal_result...), so the
    agent looks up a tool that does not exist. Reported as ggml-org/llama.cpp#13774.""",
)

_explain(
    "litellm",
    [*_SAME_INDEX, "no-index-on-call-deltas"],
    """stream_chunk_builder merges calls by index, so parallel calls at one index (or with no
    index) come back as one call with the last id and the arguments back to back: the other calls
    are lost and the remaining one cannot be parsed. Upstream: BerriAI/litellm#7621 (closed,
    regressed in #10034).""",
)
_explain(
    "langchain-core",
    ["cut-mid-arguments"],
    """The body ends in the middle of a call's arguments. LangChain's partial JSON parser
    completes them, so the summed message holds a valid entry of tool_calls (a file write whose
    content stops mid-word) and invalid_tool_calls stays empty: the user runs a tool with a call
    the model never finished. Reproduced with AIMessageChunk sums alone
    (docs/reproductions/langchain_cut_mid_arguments.py). Upstream: langchain-ai/langchain#39275
    (closed; the fixes were not merged).""",
)
_explain(
    "pydantic-ai",
    ["cut-mid-arguments"],
    """A body that ends with neither a finish_reason nor [DONE] (a connection closed in the
    middle of a call's arguments) reads as a finished response: finish_reason 'stop', the
    partial call handed over at its PartEndEvent. Reproduced with pydantic-ai and an httpx
    mock transport alone (docs/reproductions/pydantic_ai_cut_mid_arguments.py). Upstream:
    pydantic/pydantic-ai#6610 (closed: some servers send no finish_reason on complete
    responses, so a missing one is taken as 'stop').""",
)
