"""The OpenAI Agents SDK's Chat Completions model on two parallel calls streamed at one index
(as Groq and index-rewriting gateways send them), and on two sent with no index (as Gemini's
OpenAI-compatible endpoint and Ollama send them), without the harness: the stream handler keys
calls by index alone, so each time it hands over one function call, with the last call's id and
name and both calls' arguments back to back.

    python docs/reproductions/openai-agents/calls-at-one-index-merged.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    index 0 for both: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    no index: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from _wire import ROLE, body, call, function_calls


def two_calls(index):
    """Two whole calls, each with its own id, both at ``index`` (None: no index field)."""
    return body(
        ROLE,
        call(index, "call_1", "write_file", '{"path": "a.rs"}'),
        call(index, "call_2", "write_file", '{"path": "b.rs"}'),
        {},
    )


merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = function_calls(two_calls(0), buffered=False)
print("index 0 for both:", at_one_index)
without_index = function_calls(two_calls(None), buffered=False)
print("no index:", without_index)
assert at_one_index == merged, at_one_index
assert without_index == merged, without_index
