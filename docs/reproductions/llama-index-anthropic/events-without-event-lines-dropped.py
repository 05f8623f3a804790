"""llama-index's Anthropic class, without the harness: a stream whose events come as data:
lines without their event: line (as some Anthropic-compatible proxies send them) yields nothing
at all: the anthropic SDK under it drops every event, the text, the call and the stop reason
with them, and a server's error event raises nothing.

    python docs/reproductions/llama-index-anthropic/events-without-event-lines-dropped.py

prints, with llama-index-llms-anthropic 0.12.3 (llama-index-core 0.14.25, anthropic 0.125.0):

    with event: lines:    5 responses, text 'Writing it.', calls [('toolu_1', 'write_file', {'path': 'a.md'})]
    without event: lines: 0 responses, calls []
    an error event without its event: line: 0 responses, nothing raised
"""

from _wire import START, end, fragment, responses_of, sse, stop, text, text_start, tool_start

EVENTS = [
    START,
    text_start(0),
    text(0, "Writing it."),
    stop(0),
    tool_start(1, "toolu_1", "write_file"),
    fragment(1, '{"path": "a.md"}'),
    stop(1),
    *end("tool_use"),
]

responses, calls = responses_of(sse(*EVENTS))
streamed = "".join(r.delta or "" for r in responses)
print(f"with event: lines:    {len(responses)} responses, text {streamed!r}, calls {calls}")
assert calls == [("toolu_1", "write_file", {"path": "a.md"})], calls
responses, calls = responses_of(sse(*EVENTS, event_lines=False))
print(f"without event: lines: {len(responses)} responses, calls {calls}")
assert responses == [] and calls == [], (responses, calls)

overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
responses, calls = responses_of(sse(START, overloaded, event_lines=False))
print(f"an error event without its event: line: {len(responses)} responses, nothing raised")
assert responses == [], responses
