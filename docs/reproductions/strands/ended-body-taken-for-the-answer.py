"""Strands Agents' agent loop over Anthropic's Messages API, without the harness: a body that
ends before its message_stop is a message that ended with end_turn, its text the answer. The
first body streams "Writing both files.", a whole write_file call and the start of a second
one, and then ends properly as HTTP goes (its terminating chunk is sent, as a gateway or proxy
that lost its upstream may end it), with no message_delta and no message_stop. Strands raises
nothing: the agent's answer is "Writing both files.", the calls are never run, and nothing
tells the user the response broke off.

The bodies are the ones the harness's loop stand-in serves for loop-body-ends-mid-call in
anthropic (the first ends after its 10th event, the scenario's end:10).

    python docs/reproductions/strands/ended-body-taken-for-the-answer.py

prints, with strands-agents 1.62.0 and anthropic 0.125.0:

    requests: 1
    tools run: []
    answer: 'Writing both files.'
"""

from _wire import run_agent, serving

BODIES = [
    # response 1, ended after its chunk 10 (end:10)
    r"""
event: message_start
data: {"type":"message_start","message":{"id":"msg_0001","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Writing both files."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_write_a","name":"write_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a."}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"txt\", \"text"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\": \"first\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_write_b","name":"write_file","input":{}}}
""",
    # response 2
    r"""
event: message_start
data: {"type":"message_start","message":{"id":"msg_0002","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Something went wrong "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"with the files; "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I will not "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"write them."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42}}

event: message_stop
data: {"type":"message_stop"}
""",
]

ran = []
with serving(BODIES) as server:
    answer = run_agent("anthropic", server.url, ran)  # raises nothing
print("requests:", len(server.requests))
print("tools run:", ran)
print("answer:", repr(answer.strip()))
assert answer.strip() == "Writing both files.", "the broken-off text is no longer the answer"
