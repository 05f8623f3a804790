"""Strands Agents' agent loop over OpenAI Chat Completions, without the harness: a body that
ends before its finish_reason is a finished tool_use turn, and its cut call runs with no
arguments. The first body streams "Writing both files.", a whole write_file call and half of a
second one ('{"path": "b.txt", "text": "'), and then ends properly as HTTP goes (its
terminating chunk is sent, as a gateway or proxy that lost its upstream may end it) with no
finish_reason and no [DONE]. Strands' OpenAIModel fails to parse the cut call's arguments and
uses {} instead, with a logged warning only; the missing finish_reason becomes end_turn,
overridden to tool_use as the message holds calls, so write_file runs with {} and its result
goes back to the model.

The bodies are the ones the harness's loop stand-in serves for loop-body-ends-mid-call in
openai-chat (the first ends after its 10th event, the scenario's end:10).

    python docs/reproductions/strands/ended-body-acted-on.py

prints, with strands-agents 1.62.0 and openai 2.54.0 (besides Strands' logged warnings):

    tools run: [('write_file', {'path': 'a.txt', 'text': 'first'}), ('write_file', {})]
    sent back: call_write_b write_file '{}'
"""

from _wire import run_agent, serving

BODIES = [
    # response 1, ended after its chunk 10 (end:10)
    r"""
data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Writing both files."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_write_a","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \"a."}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"txt\", \"text"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\": \"first\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_write_b","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\": "}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"b.txt\", "}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"text\": \""}}]},"logprobs":null,"finish_reason":null}]}
""",
    # response 2
    r"""
data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Something went wrong "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"with the files; "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"I will not "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"write them."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]
""",
]

ran = []
with serving(BODIES) as server:
    run_agent("chat", server.openai_base_url, ran)  # raises nothing
print("tools run:", ran)
assert ("write_file", {}) in ran, "the cut call was not run with {}"
assert len(server.requests) > 1, "no request after the broken-off turn"
second = server.requests[1]["messages"]
calls = [c for m in second if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
cut = [c for c in calls if c["id"] == "call_write_b"]
for c in cut:
    print("sent back:", c["id"], c["function"]["name"], repr(c["function"]["arguments"]))
assert cut, "the cut call was not sent back"
