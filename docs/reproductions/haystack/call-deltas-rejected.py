"""Haystack's OpenAIChatGenerator, streaming, without the harness: a call delta without an
index, or a delta with text and a call's start together, makes run() raise ValueError.

    python docs/reproductions/haystack/call-deltas-rejected.py

prints, with haystack-ai 3.4.1:

    no index: ValueError: If `tool_call`, `tool_call_result` or `reasoning` is set, `index` must also be set.
    text beside a call's start: ValueError: Only one of `content`, `tool_call`, `tool_call_result` or `reasoning` may be set in a StreamingChunk.
"""

from _wire import ROLE, body, call, reply


def raised(data: str) -> str:
    try:
        reply(data)
    except ValueError as exc:
        return f"ValueError: {exc}"
    raise AssertionError("run() returned a reply")


no_index = raised(body(ROLE, call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}')))
print("no index:", no_index)
assert "`index` must also be set" in no_index

beside_text = raised(
    body(
        ROLE,
        {"content": "Checking.", **call(0, "call_fc", "get_forecast", "")},
        call(0, None, None, '{"city": "Oslo"}'),
    )
)
print("text beside a call's start:", beside_text.split(" Got ")[0])
assert "Only one of `content`, `tool_call`" in beside_text
