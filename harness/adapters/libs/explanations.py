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


# Scenarios that send several message_start ... message_stop cycles in one body: a Messages API
# response holds one message, these are the shape of an agent stream (Claude Code, the agent SDK).
_ANTHROPIC_CYCLES = (
    "anthropic-framing-quirks",
    "assembled-message-after-each-cycle",
    "assembled-message-parallel-calls",
    "duplicate-message-start-multi-cycle",
    "text-before-tool-call-empty-answer",
    "tool-use-stop-without-calls",
)
_ANTHROPIC_CYCLES_WITH_CALLS = (
    "duplicate-block-stop-multi-cycle",
    "five-tool-cycles",
    "multi-cycle-turn",
    "text-before-call-each-cycle",
    "thinking-then-tool-call-cycles",
    "three-tool-cycles",
)
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
    _ANTHROPIC_CYCLES,
    """The body holds several messages, one after another; the SDK reports a message_stop for
    each and reads on to the end of the body. A Messages API response carries one message, so
    this is the scenario speaking an agent-stream shape the SDK was not written for, not a bug a
    user of client.messages.stream meets.""",
)
_explain(
    "anthropic",
    _ANTHROPIC_CYCLES_WITH_CALLS,
    """The body holds several messages. The SDK ignores the second message_start and appends the
    new blocks after the old ones, but looks blocks up by the new message's indices, so at each
    later content_block_stop it hands over a block of the first message again: the first tool call
    is run again and again and the later ones never reach the user. A Messages API response holds
    one message, so a user of client.messages.stream only meets this behind a proxy that joins
    messages; the scenarios are agent-stream shapes.""",
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
    ["duplicate-block-stop"],
    """A content_block_stop sent twice (as a LiteLLM proxy release did, BerriAI/litellm#37273) is
    passed on twice, each time with the finished tool_use block: a user who runs tools at
    content_block_stop runs each tool twice. The first-party API does not send it.""",
)
_explain(
    "anthropic",
    ["duplicated-argument-fragment"],
    """A repeated argument fragment makes the input invalid JSON; the SDK raises ValueError
    ("Unable to parse tool parameter JSON from model") in the middle of the stream. The user gets
    a clear error and no call: a refusal on corrupt input rather than a silent wrong call.""",
)
_explain(
    "anthropic",
    ["end-turn-with-tool-calls"],
    """The calls are handed over and the server's end_turn is reported as sent; the only finding
    is that the SDK's iterator reads on to the end of the body after message_stop. On a live
    connection that is the end of the response, so the user sees no difference.""",
)
_explain(
    "anthropic",
    ["truncated-arguments-max-tokens"],
    """The response is cut by max_tokens in the middle of a tool call; no content_block_stop comes
    for it, so the SDK never hands the cut call over (the user cannot run half a call, which is
    what they want), and it reads on to the end of the body after message_stop. The rules count
    the cut call as complete but never emitted.""",
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
    "openai-chat",
    ["text-between-parallel-calls"],
    """The scenario puts text between two parallel calls; Chat Completions carries one content
    string beside a list of calls, and the SDK's done event for a call fires only when the next
    index appears, so the first call comes out after the text. A shape the dialect does not really
    have; the user sees the calls a little later, nothing lost.""",
)
_explain(
    "openai-chat-final",
    ["truncated-arguments-max-tokens"],
    """The stream is cut by max_tokens; get_final_completion() raises LengthFinishReasonError even
    without a response_format or tools to parse, so the user loses the partial message instead of
    seeing it was cut. Upstream: openai/openai-python#3589 (open).""",
)
_explain(
    "openai-responses",
    ["truncated-arguments-max-tokens"],
    """The response is cut by max_output_tokens in the middle of a function call; its item is never
    done, so the SDK never hands the cut call over (the user cannot run half a call, which is what
    they want), and it reads on to the end of the body after response.incomplete. The rules count
    the cut call as complete but never emitted.""",
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
    "pydantic-ai",
    ["id-changes-mid-stream"],
    """The call carries the id the server switched to (toolcall0), not the one it started with;
    name and arguments are right. Which id the server expects back is the scenario's claim, so
    this one is open to dispute.""",
)
_explain(
    "pydantic-ai",
    [
        "keep-alive-comments",
        "usage-chunk-empty-choices",
        "end-turn-with-tool-calls",
    ],
    """Calls, text and the stop reason are right; the only finding is that the async openai
    client drains the rest of the HTTP body after [DONE] (to reuse the connection). On a live
    connection that is the end of the response, so the user sees no difference.""",
)
_explain(
    "pydantic-ai",
    ["truncated-arguments-max-tokens"],
    """The call cut by max_tokens is handed over with its raw arguments, which do not parse, and
    the stop reason max_tokens, so the user can tell it is incomplete. The only finding is that
    the async openai client drains the rest of the HTTP body after [DONE] (to reuse the
    connection); on a live connection that is the end of the response.""",
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
    "litellm",
    ["id-changes-mid-stream"],
    """The built call carries the id the server switched to, not the one it started with; name and
    arguments are right. Which id the server expects back is the scenario's claim, so this one is
    open to dispute.""",
)
