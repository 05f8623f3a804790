"""AutoGen's ``OpenAIChatCompletionClient.create_stream`` (``harness.adapters.libs.autogen_openai``)."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

_LIBRARY = "autogen"

explain(
    _LIBRARY,
    "reasoning-streamed-as-text",
    """The reasoning a server streams as reasoning_content (DeepSeek, vLLM, and the OpenAI-
    compatible endpoints of other reasoning models) comes out of create_stream as str chunks,
    the same kind as the answer's text, marked only by a <think> prefix on its first chunk and
    a '</think>' chunk after it: a user who shows the chunks shows the model's reasoning as its
    answer. The final CreateResult keeps it apart, in thought. Upstream: microsoft/autogen#7009
    (closed).""",
    scenarios={"thinking-before-tool-call"},
    rules={"order"},
)

explain(
    _LIBRARY,
    "cut-stream-reads-as-finished",
    """A body that ends before the finish_reason (a connection cut mid-call) still ends in a
    CreateResult, with finish_reason 'unknown' (AutoGen's word for any reason it does not
    know, too) and the call cut short among its content: nothing raises, and the user takes
    the cut response for a finished one.""",
    rules={"error-surfaced"},
)

explain(
    _LIBRARY,
    "content-filter-chunk-crash",
    """Azure OpenAI's asynchronous content filter sends a trailing chunk whose choice has no
    delta, only content_filter_results. create_stream reads choice.delta.model_extra and raises
    AttributeError ('NoneType' object has no attribute 'model_extra'), so the stream dies
    after the model has finished, and the user gets no CreateResult and none of its calls.
    Upstream: microsoft/autogen#6465 (open).""",
    quirks={"content_filter_trailing_chunk"},
)

explain(
    _LIBRARY,
    "call-start-beside-text-dropped",
    """When one delta carries text and the start of a call (its id and name), create_stream
    takes the text and skips the rest of the delta, so the call is assembled from its later
    fragments alone: the user gets a call with no id and no name, which no tool answers to.""",
    quirks={"text_with_call_start"},
)

explain(
    _LIBRARY,
    "name-on-every-delta-joined",
    """A tool name repeated on every delta (llama.cpp's server does this) is appended each
    time, so the CreateResult's call is named final_resultfinal_result... and the user looks
    up a tool that does not exist.""",
    rules={"strict-assembly"},
)

# last: the causes of calls missing from the CreateResult are shared by the shapes above too
explain(
    _LIBRARY,
    "calls-keyed-by-index-ids-joined",
    """create_stream keys each call by its index alone and appends every id it is sent.
    Parallel calls sent at one index (Groq, gateways that rewrite indices), or with none
    (Gemini's OpenAI-compatible endpoint, Ollama), become one call with the ids, the names and
    the arguments joined (call_1call_2, readread, two objects back to back); an id repeated or
    changed on later deltas is appended to the first (call_k1call_k1), so the user's result
    answers an id the server never issued. (Where a content-filter chunk or text beside a
    call's start loses the same call, the cause they share is counted here.)""",
    rules={"emit-once-early", "parallel-apart"},
)
