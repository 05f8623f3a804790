"""llama-index's OpenAI class, without the harness: a server that repeats the tool's name on
every delta (llama.cpp's server) gets the names joined, a tool that does not exist.

    python docs/reproductions/llama-index-openai/glued-names.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'read_fileread_fileread_file', {'path': 'a.rs'})]
"""

from _wire import body, call, calls_of

BODY = body(
    call(0, "call_1", "read_file", ""),
    call(0, None, "read_file", '{"path": '),
    call(0, None, "read_file", '"a.rs"}'),
    {},
)
calls = calls_of(BODY)
print("calls:", calls)
assert calls == [("call_1", "read_fileread_fileread_file", {"path": "a.rs"})], calls
