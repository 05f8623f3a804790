"""The openai SDK's chat.completions.stream, without the harness: a call id repeated on every
delta, or changed on a later one, is concatenated onto the first, so the call answers to an id
the server never issued.

    python docs/reproductions/openai-chat/glued-ids.py

prints, with openai 3.54.0:

    id repeated: events [('call_k1call_k1', 'kv_get', '{"key": "a"}')], final [('call_k1call_k1', 'kv_get', '{"key": "a"}')]
    id changed: events [('chatcmpl-tool-1toolcall0', 'read', '{"p": 1}')], final [('chatcmpl-tool-1toolcall0', 'read', '{"p": 1}')]
"""

from _wire import ROLE, body, call, handed_over

CASES = {
    "id repeated": (
        [call(0, "call_k1", "kv_get", '{"key": '), call(0, "call_k1", None, '"a"}')],
        ("call_k1call_k1", "kv_get", '{"key": "a"}'),
    ),
    "id changed": (
        [call(0, "chatcmpl-tool-1", "read", ""), call(0, "toolcall0", None, '{"p": 1}')],
        ("chatcmpl-tool-1toolcall0", "read", '{"p": 1}'),
    ),
}

if __name__ == "__main__":
    for what, (calls, glued) in CASES.items():
        done, final = handed_over(body(ROLE, *calls, {}))
        print(f"{what}: events {done}, final {final}")
        assert done == final == [glued], "the SDK no longer glues the ids"
