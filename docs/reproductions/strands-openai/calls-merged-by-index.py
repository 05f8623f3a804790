"""Strands Agents over OpenAI Chat Completions: two parallel calls sent at one index (as Groq
and index-rewriting gateways send them) become one tool use whose input is {}.

Each call has its own id; both come at index 0. Strands' OpenAIModel groups call deltas by
index, so it emits one tool use with the first call's id and name and both argument objects
back to back, which the event loop's process_stream cannot parse and replaces with {}: an agent
runs write_file once, with no arguments, and the second call is lost.

Run: python docs/reproductions/strands-openai/calls-merged-by-index.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    tool uses: [{'toolUseId': 'call_1', 'name': 'write_file', 'input': {}}]
"""

from _wire import ROLE, body, call, streamed_over, tool_uses

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", '{"path": "a.rs"}'),
    call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    {},
)

_, _, message = streamed_over(BODY)
uses = tool_uses(message)
print("tool uses:", uses)
assert uses == [{"toolUseId": "call_1", "name": "write_file", "input": {}}]
