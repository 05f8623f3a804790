"""Haystack's OpenAIChatGenerator, streaming, without the harness: a call whose arguments do
not parse is left out of the reply, with only a logged warning; parallel calls sent at one
index are merged, do not parse, and the reply holds no call.

    python docs/reproductions/haystack/unparsable-calls-skipped.py

prints, with haystack-ai 3.4.1 (and Haystack's warnings on stderr):

    arguments cut before the closing brace: tool_calls []
    two calls at index 0: tool_calls []
"""

from _wire import ROLE, body, call, reply

cut = reply(body(ROLE, call(0, "call_tk", "get_ticket", '{"ticket_id": 42')))
print("arguments cut before the closing brace: tool_calls", cut.tool_calls)
assert cut.tool_calls == [], cut.tool_calls

merged = reply(
    body(
        ROLE,
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
)
print("two calls at index 0: tool_calls", merged.tool_calls)
assert merged.tool_calls == [], merged.tool_calls
