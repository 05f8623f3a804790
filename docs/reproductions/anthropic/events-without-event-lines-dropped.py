"""The anthropic SDK's MessageStream, without the harness: events sent as bare data: lines, without
the event: line before them (as some Anthropic-compatible proxies send them:
earendil-works/pi#1983, openclaw/openclaw#37571), are all skipped, an error event among them.
The stream ends with no event, no text, no tool call and no exception.

    python docs/reproductions/anthropic/events-without-event-lines-dropped.py

prints, with anthropic 2.12.0:

    a whole message: 0 events handed over
    text, then an error: 0 events handed over, no exception
"""

from _wire import START, end, handed_over, sse, stop, text, text_start

OPENING = [START, text_start(0), text(0, "Hello")]
WHOLE = [*OPENING, stop(0), *end("end_turn")]
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
FAILED = [*OPENING, OVERLOADED]

if __name__ == "__main__":
    # each event as these proxies send it: its data line alone
    whole = handed_over(sse(*WHOLE, event_lines=False))
    print(f"a whole message: {len(whole)} events handed over")
    failed = handed_over(sse(*FAILED, event_lines=False))  # the server's error raises nothing
    print(f"text, then an error: {len(failed)} events handed over, no exception")
    assert whole == [] and failed == [], "the SDK now reads events without an event: line"
