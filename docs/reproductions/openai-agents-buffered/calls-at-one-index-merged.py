"""The OpenAI Agents SDK's Chat Completions model with ``buffer_streamed_tool_calls=True`` on two
parallel calls streamed at one index (as Groq and index-rewriting gateways send them), without
the harness: the buffer keys calls by index alone, so it hands over one function call, with the
last call's id and name and both calls' arguments back to back.

    python docs/reproductions/openai-agents-buffered/calls-at-one-index-merged.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    index 0 for both: [('call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from _wire import ROLE, body, call, function_calls

# two whole calls, each with its own id, both at index 0
BODY = body(
    ROLE,
    call(0, "call_1", "write_file", '{"path": "a.rs"}'),
    call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    {},
)

merged = [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]
at_one_index = function_calls(BODY, buffered=True)
print("index 0 for both:", at_one_index)
assert at_one_index == merged, at_one_index
