"""What the Vercel AI SDK's ``streamText`` gets wrong over its providers (adapters:
``js/libs/ai-sdk/``): ``ai-sdk-openai`` (``@ai-sdk/openai``'s Chat Completions model),
``ai-sdk-anthropic`` and ``ai-sdk-google``. All three read SSE with eventsource-parser and end
each step in ``streamText`` itself, so the bugs there are the three's; the rest are one
provider's.

When ``fullStream`` hands a call over (its ``tool-call`` part) is the provider's doing, so the
contract differs by provider:

- OpenAI Chat Completions (``@ai-sdk/openai``'s ``.chat`` model): **per message**. Its
  ``StreamingToolCallTracker`` (``@ai-sdk/provider-utils``) finishes calls only in ``flush``,
  when the body ends, however early a call's arguments are whole.
- Anthropic Messages (``@ai-sdk/anthropic``): **per call**, at the call's
  ``content_block_stop``.
- Gemini (``@ai-sdk/google``): **per call**, in the chunk that carries the function call (Gemini
  sends each call whole).
"""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

ALL = ("ai-sdk-openai", "ai-sdk-anthropic", "ai-sdk-google")

explain(
    ALL,
    "last-event-after-lone-cr-dropped",
    """Lines that end with a lone CR (an SSE line end, as some gateways write them) lose the
    body's last event: eventsource-parser waits after a CR at the end of what it was fed for an
    LF that may follow, and its EventSourceParserStream has no flush, so at the end of the body
    the CR that makes the blank line is never taken as one. The event is terminated (a CR not
    followed by LF ends a line, and the body ends there), so this is not the unterminated last
    event the WHATWG parser discards at the end of a stream. Gemini's last event holds the
    function call and finishReason, Anthropic's and OpenAI's the server's error: the user loses
    the call, or gets a finish part (finishReason 'other') instead of the error. No upstream
    report found (rexxars/eventsource-parser#17 is a CRLF cut between two chunks).""",
    quirks={"lone_cr"},
)
explain(
    ("ai-sdk-openai", "ai-sdk-anthropic"),
    "cut-body-reads-as-finished",
    """A body that ends mid-turn (a dropped connection, a proxy's timeout), before the
    provider's finish (OpenAI's finish_reason, Anthropic's message_stop), raises nothing and
    reports no error part: streamText ends the step and fullStream ends with a finish part whose
    finishReason is 'other', as a turn that ended for a reason the SDK does not name, so the
    user cannot tell the cut turn from a finished one.""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)
explain(
    "ai-sdk-anthropic",
    "unknown-event-fails-the-turn",
    """An event of a type the provider's schema does not know (the Claude Agent SDK's assembled
    'assistant' message after message_stop) is reported as an error part
    (AI_TypeValidationError), although the message is whole and the finish part after it says
    why the turn ended: a user who takes error parts for failures, as the SDK reports them,
    fails a complete turn. Anthropic's streaming docs ask clients to handle unknown event types
    gracefully; its own SDKs skip them. Upstream: vercel/ai#11309 (Vertex's vertex_event),
    open.""",
    rules={"robust-framing"},
    quirks={"assembled_message"},
)
explain(
    "ai-sdk-openai",
    "calls-without-index-rejected",
    """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama, SambaNova) fail
    the provider's chunk schema, which requires one: each such chunk becomes an error part
    (AI_TypeValidationError) and is dropped whole, text and calls, so the user gets errors in
    place of the calls, although the provider's own call tracker can follow calls without an
    index. Upstream: vercel/ai#7238 (open; @ai-sdk/openai-compatible accepts them since
    vercel/ai#7240, @ai-sdk/openai does not).""",
    quirks={"no_index"},
    also=(Match(scenarios=frozenset({"no-index-on-call-deltas"})),),
)
explain(
    "ai-sdk-openai",
    "repeated-name-starts-a-new-call",
    """A delta that repeats the call's name (llama.cpp's server, bifrost) and whose argument
    text starts a JSON object is taken for the start of another call whenever it cannot
    continue one. With an id that changed mid-call, the call's header is handed over with no
    arguments ('{}', valid: a call the model never made) and its arguments become a second
    call; after a whole JSON value (arguments sent twice, or a call glued on as in
    calls-at-one-index-merged) they become a call under an id the SDK makes up, and the user
    runs the tool twice. Where a cause is also brought out by calls without an index, the same
    call is lost at the same point by the rejected chunk (calls-without-index-rejected). No
    upstream report found.""",
    quirks={"name_every_chunk"},
    also=(
        Match(quirks=frozenset({"name_every_chunk", "no_index"})),
        Match(
            scenarios=frozenset({"name-every-chunk"}), quirks=frozenset({"id_changes", "no_index"})
        ),
    ),
)
explain(
    "ai-sdk-openai",
    "calls-at-one-index-merged",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber indices), are merged: the provider's tracker takes a call's header
    whose arguments do not start a JSON value, at an index an earlier call of the same name
    holds, for more of that call, so the user gets one call under the first id with the
    argument objects back to back (invalid: it cannot run) and loses the others. No upstream
    report found.""",
    quirks={"same_index"},
    also=(
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
