"""The openai SDK's chat.completions.stream, without the harness: call deltas that send every
missing field as null (as Writer's API does) crash the accumulator. A continuation's
"type": null replaces the call's "function", and the SDK's own assertion that the call is still a
function fails: the stream raises AssertionError and hands over no call.

    python docs/reproductions/openai-chat/crash-on-gateway-call-deltas.py

prints, with openai 3.54.0:

    null fields: the stream raised AssertionError
"""

from _wire import ROLE, body, raised

HEADER = {
    "index": 0,
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": None},
}
CONTINUATION = {
    "index": 0,
    "id": None,
    "type": None,
    "function": {"name": None, "arguments": '{"city": "Paris"}'},
}
BODY = body(
    ROLE,
    {"content": None, "tool_calls": [HEADER], "refusal": None},
    {"content": None, "tool_calls": [CONTINUATION], "refusal": None},
    {"content": None, "tool_calls": None, "refusal": None},
)

if __name__ == "__main__":
    error = raised(BODY)
    print("null fields: the stream raised", error and error[0].__name__)
    assert error and error[0] is AssertionError, "the SDK now takes a null type"
