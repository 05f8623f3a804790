"""llama-index's OpenAI class, without the harness: two parallel calls whose argument
fragments interleave (each call's header first, then the fragments in turn) fall apart: each
fragment after the other call started becomes a call of its own with no id and no name, and
the two real calls keep arguments {}.

    python docs/reproductions/llama-index-openai/interleaved-fragments-become-calls.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_1', 'read_file', {}), ('call_2', 'read_file', {}), ('', '', {'path': 'a.rs'}), ('', '', {'path': 'b.rs'})]
"""

from _wire import body, call, calls_of

BODY = body(
    call(0, "call_1", "read_file", ""),
    call(1, "call_2", "read_file", ""),
    call(0, None, None, '{"path": "a.rs"}'),
    call(1, None, None, '{"path": "b.rs"}'),
    {},
)
calls = calls_of(BODY)
print("calls:", calls)
assert calls == [
    ("call_1", "read_file", {}),
    ("call_2", "read_file", {}),
    ("", "", {"path": "a.rs"}),
    ("", "", {"path": "b.rs"}),
], calls
