"""agno: ``OpenAIChat.process_response_stream`` and the ``parse_tool_calls`` that builds the
assistant message's calls (harness/adapters/libs/agno.py)."""

from harness.adapters.libs.explanations import explain

explain(
    "agno",
    "cut-body-ends-the-turn",
    """OpenAIChat drops the chunks' finish_reason, so a body cut off mid-call (no finish_reason,
    no [DONE]) ends the response stream without an error, exactly as a finished response does.
    The assistant message gets the call with its arguments cut short and the Agent goes on to
    run it (a text answer cut mid-sentence would be taken as final); nothing tells the user the
    response broke off. The same gap in agno's LiteLLM model is agno-agi/agno#7985 (open).""",
    scenarios={"cut-mid-arguments"},
    rules={"error-surfaced"},
)
explain(
    "agno",
    "calls-filed-by-index",
    """parse_tool_calls puts each call delta at tool_calls[index], a missing index counting as
    0, and trusts nothing else. Parallel calls sent at one index (Groq, gateways that renumber
    indices) or without one (Gemini's OpenAI-compatible endpoint, Ollama) are merged into one
    call with the last id and name and the arguments back to back, so a call is lost and the
    merged one cannot be decoded; a first call at index 1 (Bedrock Claude through LiteLLM)
    leaves slot 0 empty, and agno hands it over as one more call, with a made-up uuid id and no
    name or function, which it answers as an unknown tool and sends back to the model.
    Upstream: agno-agi/agno#8879 (open).""",
    rules={"parallel-apart", "emit-once-early"},
)
