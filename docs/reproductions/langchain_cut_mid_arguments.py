"""langchain-core's AIMessageChunk merging, without the harness: a tool call whose stream was
cut in the middle of its arguments comes out as a valid call, its arguments completed by the
partial JSON parser, and nothing in invalid_tool_calls.

    python docs/reproductions/langchain_cut_mid_arguments.py

prints, with langchain-core 1.7.2:

    tool_calls: [{'name': 'write_file', 'args': {'path': 'notes/todo.md', 'content': '- re'}, 'id': 'call_1', 'type': 'tool_call'}]
    invalid_tool_calls: []
    finish_reason: None
"""

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

pieces = ['{"path": "notes/todo.md", ', '"content": "- re']  # the body ends here
message = AIMessageChunk(
    content="", tool_call_chunks=[tool_call_chunk(name="write_file", args="", id="call_1", index=0)]
)
for piece in pieces:
    message = message + AIMessageChunk(
        content="", tool_call_chunks=[tool_call_chunk(name=None, args=piece, id=None, index=0)]
    )
print("tool_calls:", message.tool_calls)
print("invalid_tool_calls:", message.invalid_tool_calls)
print("finish_reason:", message.response_metadata.get("finish_reason"))
