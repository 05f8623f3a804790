"""llama-index's OpenAI class, without the harness: a stream cut in the middle of a call's
arguments (no finish_reason, no [DONE]) still hands the call over from
get_tool_calls_from_response, its arguments completed by parse_partial_json, the cut value
turned into None.

    python docs/reproductions/llama-index-openai/cut-arguments-completed.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'write_file', {'path': 'notes/todo.md', 'content': None})]
"""

from _wire import body, call, calls_of

BODY = body(
    call(0, "call_1", "write_file", ""),
    call(0, None, None, '{"path": "notes/todo.md", '),
    call(0, None, None, '"content": "- re'),
    finish=None,
    done=False,
)  # the connection is cut here
calls = calls_of(BODY)
print("calls:", calls)
assert calls == [("call_1", "write_file", {"path": "notes/todo.md", "content": None})], calls
