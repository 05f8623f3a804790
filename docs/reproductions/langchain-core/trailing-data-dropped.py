"""langchain-core's AIMessageChunk merging, without the harness: tool-call arguments that hold
the same JSON object twice come out as a valid call with the first object; a second closing
brace, by contrast, is reported invalid.

    python docs/reproductions/langchain-core/trailing-data-dropped.py

prints, with langchain-core 1.7.2:

    '{"city": "Paris"}{"city": "Paris"}' -> valid {'city': 'Paris'}
    '{"ticket_id": 42}}' -> invalid '{"ticket_id": 42}}'
"""

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk


def summed(fragments):
    header = tool_call_chunk(name="get_forecast", args="", id="call_1", index=0)
    message = AIMessageChunk(content="", tool_call_chunks=[header])
    for fragment in fragments:
        part = tool_call_chunk(name=None, args=fragment, id=None, index=0)
        message = message + AIMessageChunk(content="", tool_call_chunks=[part])
    return message


twice = summed(['{"city": "Paris"}'] * 2)
print(repr('{"city": "Paris"}' * 2), "-> valid", twice.tool_calls[0]["args"])
assert twice.tool_calls[0]["args"] == {"city": "Paris"}, "the object given twice is not kept"
assert not twice.invalid_tool_calls

extra_brace = summed(['{"ticket_id": 42', "}", "}"])
print(repr('{"ticket_id": 42}}'), "-> invalid", repr(extra_brace.invalid_tool_calls[0]["args"]))
assert not extra_brace.tool_calls
