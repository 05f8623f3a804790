"""agno files streamed call deltas by their index alone, read as a position in a list, without
the harness.

``OpenAIChat.parse_tool_calls``, which builds the assistant message's calls once the stream is
over, puts each call delta at ``tool_calls[index]`` (a missing index counts as 0) and trusts
nothing else. Parallel calls sent at one index (Groq, gateways that renumber indices) or without
one (Gemini's OpenAI-compatible endpoint, Ollama) are merged into one call; a first call at index
1 (Bedrock Claude through LiteLLM) leaves slot 0 empty, and agno hands that slot over as a call of
its own, with a made-up id and no name or function.

    python docs/reproductions/agno/calls-filed-by-index.py

prints, with agno 3.1.10 and openai 3.57.0:

    at one index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    without an index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    first at index 1: [{'id': '<a uuid4>'}, {'id': 'tooluse_1', 'type': 'function', ...}]
"""

from _wire import ROLE, assistant_message, body, call, summary


def tool_calls(*deltas):
    """The calls of the assistant message agno builds from a body with these deltas."""
    return assistant_message(body(ROLE, *deltas, {})).tool_calls


def two_calls(index):
    """Two whole calls, each with its own id, both at ``index`` (None: no index field)."""
    return (
        call(index, "call_1", "write_file", '{"path": "a.rs"}'),
        call(index, "call_2", "write_file", '{"path": "b.rs"}'),
    )


merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = summary(tool_calls(*two_calls(0)))
print("at one index:", at_one_index)
assert at_one_index == merged, at_one_index
no_index = summary(tool_calls(*two_calls(None)))
print("without an index:", no_index)
assert no_index == merged, no_index

slot, real = tool_calls(call(1, "tooluse_1", "write_file", '{"path": "a.rs"}'))
print("first at index 1:", [slot, real])
assert set(slot) == {"id"} and len(slot["id"]) == 36, slot  # only the uuid4 agno made up
assert (real["id"], real["function"]["arguments"]) == ("tooluse_1", '{"path": "a.rs"}'), real
