"""pydantic-ai's Agent.run_stream over Chat Completions, without the harness: a body that ends
before its finish_reason is taken for a finished run, its first text the answer. The first body
streams "Writing both files.", a whole write_file call and half of a second one, and then ends
properly as HTTP goes (its terminating chunk is sent, as a gateway or proxy that lost its
upstream may end it) with no finish_reason and no [DONE]. run_stream raises nothing: the
program's answer is "Writing both files.", and nothing tells the user the response broke off
(the whole call still runs, as the default end_strategy 'graceful' runs function tools, and
its result never goes back to the model).

The bodies are the ones the harness's loop stand-in serves for loop-body-ends-mid-call in
openai-chat (the first ends after its 10th event, the scenario's end:10).

    python docs/reproductions/pydantic-ai-run-stream/ended-body-taken-for-the-answer.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    requests: 1
    tools run: [('write_file', {'path': 'a.txt', 'text': 'first'})]
    answer: 'Writing both files.'
"""

from _wire import agent, run_stream, serving

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
    answer = run_stream(agent("chat", server.openai_base_url, ran))  # raises nothing
print("requests:", len(server.requests))
print("tools run:", ran)
print("answer:", repr(answer))
assert answer == "Writing both files.", "the broken-off text is no longer the run's answer"
