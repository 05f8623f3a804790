"""smolagents: ``OpenAIModel.generate_stream`` and the ``agglomerate_stream_deltas`` its agents
run on the deltas (harness/adapters/libs/smolagents.py)."""

from harness.adapters.libs.explanations import explain

explain(
    "smolagents",
    "cut-body-ends-the-turn",
    """The model's deltas drop the chunks' finish_reason, so a body cut off mid-call (no
    finish_reason, no [DONE]) ends the stream without an error, exactly as a finished response
    does. agglomerate_stream_deltas builds the message with the call's arguments cut short, and a
    ToolCallingAgent goes on to run it (a text answer cut mid-sentence would be taken as final);
    nothing tells the user the response broke off.""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)
explain(
    "smolagents",
    "content-filter-chunk-raises",
    """Azure OpenAI ends a stream with a chunk whose choice has no delta, only the content
    filter's results, and no finish_reason. generate_stream raises ValueError ("No content or
    tool calls in event") on it, so the agent's step fails with AgentGenerationError after the
    whole answer arrived, and its text and calls are lost.""",
    quirks={"content_filter_trailing_chunk"},
)
explain(
    "smolagents",
    "calls-at-one-index-merged",
    """Parallel calls sent at one index, each with its own id (Groq, Ollama through LiteLLM,
    gateways that renumber indices), are merged into one: agglomerate_stream_deltas files call
    deltas by index alone, so the last call's id and name win and the arguments are the calls'
    JSON objects back to back. The first call is lost and the merged one cannot be parsed.
    Upstream: huggingface/smolagents#1569 (open).""",
    rules={"parallel-apart"},
)
explain(
    "smolagents",
    "missing-index-raises",
    """Call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama) make
    agglomerate_stream_deltas raise ValueError ("Tool call index is not provided"), which a
    ToolCallingAgent meets on the first such delta: its step fails with AgentGenerationError and
    every call of the message is lost. Some of these cases are brought out as well by Azure's
    content-filter chunk, which loses the calls the same way (content-filter-chunk-raises).""",
    rules={"robust-framing", "emit-once-early"},
)
