"""What openai-node gets wrong (adapters: ``js/libs/openai/chat.mjs`` and ``responses.mjs``):
``openai-node-chat`` acts on the events of ``client.chat.completions.stream`` (its
``ChatCompletionStream``), ``openai-node-chat-final`` on its ``finalChatCompletion()``; both run
the same accumulator, so most bugs are both's. ``openai-node-responses`` acts on the events of
``client.responses.stream``.

Every Chat Completions cause here comes from shapes only gateways and OpenAI-compatible servers
send. Unlike the Python SDK, openai-node sets a call's id and name from each delta instead of
appending them, so names and ids repeated on every delta come out whole. Several shapes lose
the same call at the same point of a stream, so one cause can be brought out by more than one
of them; the explanations say so where it happens, and each shape is reproduced once.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

CHAT = "openai-node-chat"
BOTH = (CHAT, "openai-node-chat-final")

explain(
    BOTH,
    "crash-without-index",
    """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama) fail the
    stream: the accumulator refuses the delta with "Chat completion stream contains an invalid
    tool call index: undefined", so the user gets an error (from done() and
    finalChatCompletion()) and none of the calls. Wherever a gateway leaves the index out, the
    calls from that point on are lost the same way. The Python SDK fails on the same shape
    (openai/openai-python#2806); no openai-node report found.""",
    scenarios={"no-index-on-call-deltas"},
    rules={"robust-framing", "emit-once-early"},
    also=[
        Match(
            rules=frozenset({"robust-framing", "emit-once-early"}), quirks=frozenset({"no_index"})
        )
    ],
)
explain(
    BOTH,
    "crash-on-first-index-one",
    """The first call comes at index 1 (Bedrock Claude through LiteLLM, DeepSeek). The
    accumulator puts it at position 1 of the message's calls and leaves position 0 empty, and
    the stream fails at its end reading that empty call ("Cannot read properties of undefined
    (reading 'id')"): done() and finalChatCompletion() reject, so a user of
    finalChatCompletion() gets no calls at all; a user of the events has been handed the call,
    then sees the stream fail. Where a gateway starts the calls at index 1 or leaves the index
    out (crash-without-index), a user of finalChatCompletion() loses the same calls at the same
    point. No openai-node report found.""",
    scenarios={"first-index-one"},
    rules={"robust-framing"},
    also=[
        Match(rules=frozenset({"robust-framing"}), quirks=frozenset({"first_index_1"})),
        Match(
            scenarios=frozenset({"first-index-one"}),
            rules=frozenset({"emit-once-early"}),
            as_written=True,
        ),
        Match(
            rules=frozenset({"emit-once-early"}), quirks=frozenset({"first_index_1", "no_index"})
        ),
    ],
)
explain(
    BOTH,
    "calls-at-one-index-merged",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber indices), are merged into one call: the accumulator keeps the later
    id and name and appends the arguments, so the user gets one call holding two JSON objects
    back to back, which cannot run, and the earlier calls are lost. Where a gateway also sends
    the deltas without an index, or starts them at index 1, the same call is lost at the same
    point by the crash of crash-without-index or crash-on-first-index-one. No openai-node report found; the same class as BerriAI/litellm#7621.""",
    rules={"parallel-apart"},
    also=[
        Match(
            rules=frozenset({"emit-once-early"}),
            quirks=frozenset({"same_index", "no_index", "first_index_1"}),
        )
    ],
)
explain(
    CHAT,
    "calls-never-handed-over",
    """A call the stream finished never reaches a user of the stream's events. The SDK fires
    tool_calls.function.arguments.done for a call only when the next call starts, or when
    finish_reason comes while that call is open, so a call whose first delta arrives in the
    chunk carrying finish_reason (each call whole, the finish on the last, as OpenRouter
    relaying Gemini and Dynamo send them; a call without arguments under vLLM's finish on the
    last delta) gets no done event, though finalChatCompletion() holds it. Where a gateway
    also leaves the index out, the same call is lost at the same point by the crash of
    crash-without-index. The Python SDK has the same bug (the openai-chat library's
    calls-never-handed-over).""",
    rules={"emit-once-early"},
)
explain(
    "openai-node-responses",
    "cut-after-arguments-done",
    """The body is cut after a call's response.function_call_arguments.done and before its
    response.output_item.done. The SDK fails nothing on the cut body (done() resolves), and
    neither the item's end nor response.completed comes, so a user who takes each call at its
    output_item.done (the event that carries its call_id, as this adapter does) never gets the
    call, although its arguments were whole, and sees a stream that simply stopped. The rule
    counts the call complete at function_call_arguments.done, whose arguments are final; a user
    acting there gets them, but must find the call's id and name in the earlier
    output_item.added. The Python SDK does the same (the openai-responses library's
    cut-after-arguments-done).""",
    scenarios={"cut-mid-arguments"},
    rules={"emit-once-early"},
)
