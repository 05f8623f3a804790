"""Haystack's OpenAIChatGenerator, streaming, without the harness: parallel calls sent at one
index become one call, the names joined and the arguments back to back, under the last id.

    python docs/reproductions/haystack/calls-at-one-index-merged.py

prints, with haystack-ai 3.4.1:

    [ToolCall(tool_name='current_timelist_events', arguments={'days': 7}, id='call_cal', extra=None)]
"""

from _wire import ROLE, body, call, reply

merged = reply(
    body(
        ROLE,
        call(0, "call_now", "current_time", ""),
        call(0, "call_cal", "list_events", '{"days": 7}'),
    )
)
print(merged.tool_calls)
assert [(c.id, c.tool_name, c.arguments) for c in merged.tool_calls] == [
    ("call_cal", "current_timelist_events", {"days": 7})
], merged.tool_calls
