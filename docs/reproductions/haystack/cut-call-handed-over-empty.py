"""Haystack's OpenAIChatGenerator, streaming, without the harness: a body cut after a call's
start, before its arguments, gives a reply holding the call with {} as its arguments; only the
finish_reason, None, tells that the stream was cut.

    python docs/reproductions/haystack/cut-call-handed-over-empty.py

prints, with haystack-ai 3.4.1:

    [ToolCall(tool_name='write_file', arguments={}, id='toolu_01Cut', extra=None)] finish_reason None
"""

from _wire import ROLE, body, call, reply

cut = reply(body(ROLE, call(0, "toolu_01Cut", "write_file", ""), finish=None, done=False))
print(cut.tool_calls, "finish_reason", cut.meta["finish_reason"])
assert [(c.id, c.arguments) for c in cut.tool_calls] == [("toolu_01Cut", {})], cut.tool_calls
assert cut.meta["finish_reason"] is None
