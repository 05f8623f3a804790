"""Strands Agents over Anthropic Messages: events sent as data: lines without their event:
lines (as some Anthropic-compatible proxies send them) are all dropped, and the answer ends as
an empty end_turn.

The anthropic SDK under Strands dispatches a stream's events by their event: name, so a body of
data: lines alone passes nothing on, and the event loop's process_stream, which saw no
messageStop, reports an empty message that ended with end_turn: the text "Hello!" is lost and
nothing says so (the TypeScript SDK does the same: openclaw/openclaw#37571).

Run: python docs/reproductions/strands-anthropic/events-without-event-lines-dropped.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

    text: ''
    stop reason: end_turn
    content: []
"""

from _wire import START, end, sse, stop, streamed_over, text, text_start

# no "event: ..." line before each data: line
BODY = sse(START, text_start(0), text(0, "Hello!"), stop(0), *end("end_turn"), event_lines=False)

streamed_text, stop_reason, message = streamed_over(BODY)
print("text:", repr(streamed_text))
print("stop reason:", stop_reason)
print("content:", message["content"])
assert streamed_text == ""
assert stop_reason == "end_turn"
assert message["content"] == []
