"""pydantic-ai's Agent.run_stream_events over Anthropic's Messages API, without the harness: a
body that ends before its message_stop is a whole turn to pydantic-ai, and it acts on the calls
it holds, the last of them cut. The first body streams "Writing both files.", a whole
write_file call and the start of a second one (its content_block_start, no input yet), and then
ends properly as HTTP goes (its terminating chunk is sent, as a gateway or proxy that lost its
upstream may end it), with no content_block_stop, message_delta or message_stop. pydantic-ai
raises nothing: it runs the cut call with {} for its arguments and sends it back with its
result, and the user is never told the response broke off.

The bodies are the ones the harness's loop stand-in serves for loop-body-ends-mid-call in
anthropic (the first ends after its 10th event, the scenario's end:10).

    python docs/reproductions/pydantic-ai-run-stream-events/ended-body-acted-on.py

prints, with pydantic-ai 2.68.0 and anthropic 2.12.0:

    tools run: [('write_file', {'path': 'a.txt', 'text': 'first'}), ('write_file', {})]
    sent back: {'id': 'call_write_b', 'type': 'tool_use', 'name': 'write_file', 'input': {}}
    its result: {'tool_use_id': 'call_write_b', 'type': 'tool_result', 'content': [{'text': '{}', 'type': 'text'}], 'is_error': False}
"""

from _wire import agent, run_stream_events, serving

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
    run_stream_events(agent("anthropic", server.url, ran))  # raises nothing
print("tools run:", ran)
assert len(server.requests) > 1, "no request after the broken-off turn"
second = server.requests[1]["messages"]
sent = [b for m in second if m["role"] == "assistant" for b in m["content"]]
results = [b for m in second if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
cut = [b for b in sent if b.get("id") == "call_write_b"]
cut_result = [b for b in results if b["tool_use_id"] == "call_write_b"]
for block in cut:
    print("sent back:", block)
for block in cut_result:
    print("its result:", block)
assert ("write_file", {}) in ran, "the cut call was not run"
assert cut and cut_result, "the cut call and its result were not sent back"
