"""The OpenAI Agents SDK's Runner.run_streamed over Chat Completions, without the harness: a
call the token limit cut off is run with its cut arguments and sent back. The first response
streams "Writing both files.", a whole write_file call and a second one cut in its arguments
('{"path": "b.txt", "text": "sec'), and stops with finish_reason 'length'. The SDK raises on
'length' only when the message has no visible output (raise_on_length_truncation); this one has
text, so the Runner hands both calls to their tool, the cut one with its cut arguments, and
sends both back with their results.

The bodies are the ones the harness's loop stand-in serves for loop-max-tokens-cut-call in
openai-chat.

    python docs/reproductions/openai-agents/length-cut-call-run.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    tools run: [('write_file', '{"path": "a.txt", "text": "first"}'), ('write_file', '{"path": "b.txt", "text": "sec')]
    sent back: call_write_b write_file '{"path": "b.txt", "text": "sec'
"""

from _wire import run_streamed, serving

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
    run_streamed(server.openai_base_url, ran)
print("tools run:", ran)
assert ("write_file", '{"path": "b.txt", "text": "sec') in ran, "the cut call was not run"
assert len(server.requests) > 1, "no request after the cut turn"
second = server.requests[1]["messages"]
calls = [c for m in second if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
cut = [c for c in calls if c["id"] == "call_write_b"]
for c in cut:
    print("sent back:", c["id"], c["function"]["name"], repr(c["function"]["arguments"]))
assert cut, "the cut call was not sent back"
