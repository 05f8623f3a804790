"""llama-index's OpenAI class, without the harness: a call whose id is repeated on every delta,
or replaced on the later ones (toolcall0, as GLM through Mistral's API sends), gets the ids
joined: the call's id is one the server never issued.

    python docs/reproductions/llama-index-openai/glued-ids.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    id repeated: [('call_k1call_k1call_k1', 'read_file', {'path': 'a.rs'})]
    id changed:  [('chatcmpl-tool-1toolcall0toolcall0', 'read_file', {'path': 'a.rs'})]
"""

from _wire import body, call, calls_of


def continuation(call_id, arguments):
    """A later delta of the call at index 0 that carries an id again, and no type."""
    return {"tool_calls": [{"index": 0, "id": call_id, "function": {"arguments": arguments}}]}


def one_call(first_id, later_id):
    return body(
        call(0, first_id, "read_file", ""),
        continuation(later_id, '{"path": '),
        continuation(later_id, '"a.rs"}'),
        {},
    )


calls = calls_of(one_call("call_k1", "call_k1"))
print("id repeated:", calls)
assert calls == [("call_k1call_k1call_k1", "read_file", {"path": "a.rs"})], calls
calls = calls_of(one_call("chatcmpl-tool-1", "toolcall0"))
print("id changed: ", calls)
assert calls == [("chatcmpl-tool-1toolcall0toolcall0", "read_file", {"path": "a.rs"})], calls
