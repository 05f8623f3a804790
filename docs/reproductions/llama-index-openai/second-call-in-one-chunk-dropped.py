"""llama-index's OpenAI class, without the harness: a chunk that carries two calls whole (as
Ollama through LiteLLM sends them) loses the second: only the chunk's first call is read.

    python docs/reproductions/llama-index-openai/second-call-in-one-chunk-dropped.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'read_file', {'path': 'a.rs'})]
"""

from _wire import body, call, calls_of

first = call(0, "call_1", "read_file", '{"path": "a.rs"}')["tool_calls"]
second = call(1, "call_2", "read_file", '{"path": "b.rs"}')["tool_calls"]
calls = calls_of(body({"tool_calls": first + second}, {}))  # the two calls whole, in one chunk
print("calls:", calls)
assert calls == [("call_1", "read_file", {"path": "a.rs"})], calls
