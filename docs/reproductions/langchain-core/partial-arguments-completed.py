"""langchain-core's AIMessageChunk merging, without the harness: a tool call whose arguments
stop short (the stream cut in the middle of them, or their closing brace lost) comes out as a
valid call, its arguments completed by the partial JSON parser, and nothing in
invalid_tool_calls.

    python docs/reproductions/langchain-core/partial-arguments-completed.py

prints, with langchain-core 1.7.2:

    '{"path": "notes/todo.md", "content": "- re' -> tool_calls [{'path': 'notes/todo.md', 'content': '- re'}] invalid_tool_calls []
    '{"ticket_id": 42, "fields": ["title", "status"]' -> tool_calls [{'ticket_id': 42, 'fields': ['title', 'status']}] invalid_tool_calls []
"""

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk


def summed(name, pieces):
    """The message a stream of one call's chunks sums to: its header, then its argument pieces."""
    header = tool_call_chunk(name=name, args="", id="call_1", index=0)
    message = AIMessageChunk(content="", tool_call_chunks=[header])
    for piece in pieces:
        part = tool_call_chunk(name=None, args=piece, id=None, index=0)
        message = message + AIMessageChunk(content="", tool_call_chunks=[part])
    return message


cases = [
    ("write_file", ['{"path": "notes/todo.md", ', '"content": "- re']),  # the body ends here
    ("get_ticket", ['{"ticket_id": 42, ', '"fields": ["title", "status"]']),  # no closing brace
]
for name, pieces in cases:
    message = summed(name, pieces)
    args, invalid = [call["args"] for call in message.tool_calls], message.invalid_tool_calls
    print(repr("".join(pieces)), "-> tool_calls", args, "invalid_tool_calls", invalid)
    assert len(message.tool_calls) == 1, "the unfinished call is no longer a valid tool call"
    assert not message.invalid_tool_calls
