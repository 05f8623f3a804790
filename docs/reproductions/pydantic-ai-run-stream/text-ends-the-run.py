"""pydantic-ai's Agent.run_stream over Chat Completions, without the harness: a turn that says a
sentence before its call ends the run there. The first response streams "Let me read the file
first." and a read_file call (finish_reason 'tool_calls'); the tool runs, but its result is
never sent back: the agent sends no second request, and the program's answer is the preamble.

The bodies are the ones the harness's loop stand-in serves for loop-two-tool-cycles in
openai-chat (three responses: two tool cycles, then the answer), served on loopback.

    python docs/reproductions/pydantic-ai-run-stream/text-ends-the-run.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    requests: 1
    tools run: [('read_file', {'path': 'notes.txt'})]
    answer: 'Let me read the file first.'
"""

from _wire import agent, run_stream, serving

BODIES = [
    # response 1
    r"""
data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Let me read "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"the file first."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_read_1","type":"function","function":{"name":"read_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": \"note"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"s.txt\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0001","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}

data: [DONE]
""",
    # response 2
    r"""
data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Now I'll write "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"the summary."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_write_1","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \"summar"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"y.txt\", \"text\":"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"three notes\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0002","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}

data: [DONE]
""",
    # response 3
    r"""
data: {"id":"msg_0003","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0003","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Done: the summary "},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0003","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"is in summary.txt."},"logprobs":null,"finish_reason":null}]}

data: {"id":"msg_0003","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]
""",
]

ran = []
with serving(BODIES) as server:
    answer = run_stream(agent("chat", server.openai_base_url, ran))
print("requests:", len(server.requests))
print("tools run:", ran)
print("answer:", repr(answer))
assert answer == "Let me read the file first.", "the run's answer is no longer the preamble"
assert len(server.requests) == 1, "the call's result went back to the model"
