"""pydantic-ai's Agent.run_stream_events over Chat Completions, without the harness: a call the
token limit cut off is sent back to the model as a call of the turn, with a retry prompt for
its result. The first response streams "Writing both files.", a whole write_file call and a
second one cut in its arguments ('{"path": "b.txt", "text": "sec'), and stops with
finish_reason 'length'. pydantic-ai does not look at why the response stopped: it runs the
whole call, does not run the cut one (its arguments do not parse), and sends the cut call back
(its arguments wrapped as {"INVALID_JSON": ...}) with the JSON error as its tool result, asking
the model to mend JSON it never finished rather than telling anyone it ran out of tokens.

The bodies are the ones the harness's loop stand-in serves for loop-max-tokens-cut-call in
openai-chat.

    python docs/reproductions/pydantic-ai-run-stream-events/cut-call-sent-back-for-a-retry.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    tools run: [('write_file', {'path': 'a.txt', 'text': 'first'})]
    sent back: call_write_b write_file {'INVALID_JSON': '{"path": "b.txt", "text": "sec'}
    its result: {"error":[{"type":"json_invalid","loc":[],"msg":"Invalid JSON: EOF while parsing a string at line 1 column 30" ...
"""

import json

from _wire import agent, run_stream_events, serving

BODIES = [
    # response 1
    r"""
data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Writing both files."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_write_a","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \"a."}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"txt\", \"text"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\": \"first\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_write_b","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\": \""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"b.txt\", \"t"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"ext\": \"sec"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}

data: [DONE]
""",
    # response 2
    r"""
data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"a.txt is written; "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"b.txt still needs "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"its text."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]
""",
]

ran = []
with serving(BODIES) as server:
    run_stream_events(agent("chat", server.openai_base_url, ran))
print("tools run:", ran)
assert len(server.requests) > 1, "no request after the cut turn"
second = server.requests[1]["messages"]
calls = [c for m in second if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
cut = [c for c in calls if c["id"] == "call_write_b"]
result = [m["content"] for m in second if m["role"] == "tool" and m["tool_call_id"] == "call_write_b"]
for call in cut:
    print("sent back:", call["id"], call["function"]["name"], json.loads(call["function"]["arguments"]))
for content in result:
    print("its result:", content[:110], "...")
assert cut, "the cut call was not sent back"
assert "INVALID_JSON" in json.loads(cut[0]["function"]["arguments"]), cut[0]
assert result and "Invalid JSON" in result[0], "the cut call's result is no retry prompt"
