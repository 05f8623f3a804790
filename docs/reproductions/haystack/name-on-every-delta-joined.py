"""Haystack's OpenAIChatGenerator, streaming, without the harness: a tool name repeated on
every delta is appended each time.

    python docs/reproductions/haystack/name-on-every-delta-joined.py

prints, with haystack-ai 3.4.1:

    [ToolCall(tool_name='final_resultfinal_result', arguments={'a': 1}, id='call_fr', extra=None)]
"""

from _wire import ROLE, body, call, reply

joined = reply(
    body(ROLE, call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
)
print(joined.tool_calls)
assert [c.tool_name for c in joined.tool_calls] == ["final_resultfinal_result"], joined.tool_calls
