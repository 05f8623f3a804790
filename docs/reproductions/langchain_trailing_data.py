"""langchain-core's AIMessageChunk merging, without the harness: tool-call arguments that hold
the same JSON object twice come out as a valid call with the first object; a second closing
brace is reported invalid.

    python docs/reproductions/langchain_trailing_data.py

prints, with langchain-core 1.7.2:

    '{"city": "Paris"}{"city": "Paris"}' -> valid {'city': 'Paris'}
    '{"ticket_id": 42}}' -> invalid '{"ticket_id": 42}}'
"""

from __future__ import annotations

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk


def summed(fragments: list[str]) -> AIMessageChunk:
    header = tool_call_chunk(name="get_ticket", args="", id="call_1", index=0)
    message = AIMessageChunk(content="", tool_call_chunks=[header])
    for fragment in fragments:
        part = tool_call_chunk(name=None, args=fragment, id=None, index=0)
        message = message + AIMessageChunk(content="", tool_call_chunks=[part])
    return message


if __name__ == "__main__":
    for fragments in (['{"city": "Paris"}'] * 2, ['{"ticket_id": 42', "}", "}"]):
        message = summed(fragments)
        text = repr("".join(fragments))
        if message.tool_calls:
            print(text, "-> valid", message.tool_calls[0]["args"])
        else:
            print(text, "-> invalid", repr(message.invalid_tool_calls[0]["args"]))
