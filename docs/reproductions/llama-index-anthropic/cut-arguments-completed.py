"""llama-index's Anthropic class, without the harness: a stream cut in the middle of a tool
use's input (no content_block_stop, no message_delta) still hands the call over from
get_tool_calls_from_response, its input completed by parse_partial_json, the cut value turned
into None, and no stop reason to tell the turn did not end.

    python docs/reproductions/llama-index-anthropic/cut-arguments-completed.py

prints, with llama-index-llms-anthropic 0.12.3 (llama-index-core 0.14.25, anthropic 0.125.0):

    calls: [('toolu_1', 'write_file', {'path': 'notes/todo.md', 'content': None})]
    stop_reason: None
"""

from _wire import START, fragment, responses_of, sse, tool_start

BODY = sse(
    START,
    tool_start(0, "toolu_1", "write_file"),
    fragment(0, '{"path": "notes/todo.md", '),
    fragment(0, '"content": "- re'),
)  # the connection is cut here
responses, calls = responses_of(BODY)
stop_reason = responses[-1].message.additional_kwargs["stop_reason"]
print("calls:", calls)
print("stop_reason:", stop_reason)
assert calls == [("toolu_1", "write_file", {"path": "notes/todo.md", "content": None})], calls
