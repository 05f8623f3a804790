"""llama-index's Anthropic class, without the harness: a tool use's input whose fragment
arrives twice is not JSON; the class keeps the last text that parsed, so the call comes out
with the path and without the content the model sent.

    python docs/reproductions/llama-index-anthropic/corrupt-arguments-keep-last-parse.py

prints, with llama-index-llms-anthropic 0.12.3 (llama-index-core 0.14.25, anthropic 0.125.0):

    joined input: {"path": "src/main.rs", "c/main.rs", "content": "fn main() {}"}
    calls: [('toolu_1', 'write_file', {'path': 'src/main.rs'})]
"""

from _wire import START, end, fragment, responses_of, sse, stop, tool_start

fragments = ['{"path": "src', '/main.rs", "c', '/main.rs", "c', 'ontent": "fn main() {}"}']
BODY = sse(
    START,
    tool_start(0, "toolu_1", "write_file"),
    *(fragment(0, f) for f in fragments),  # the second one arrives twice
    stop(0),
    *end("tool_use"),
)
responses, calls = responses_of(BODY)
print("joined input:", "".join(fragments))
print("calls:", calls)
assert calls == [("toolu_1", "write_file", {"path": "src/main.rs"})], calls
