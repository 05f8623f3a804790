"""langchain-core's AIMessageChunk merging, without the harness: a tool name repeated on every
chunk of a call (as llama.cpp's server sent it) is concatenated like the arguments.

    python docs/reproductions/langchain-core/names-concatenated.py

prints, with langchain-core 1.7.2:

    tool_calls: [{'name': 'final_resultfinal_resultfinal_result', 'args': {'answer': 42}, 'id': 'call_1', 'type': 'tool_call'}]
"""

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

chunks = [
    tool_call_chunk(name="final_result", args="", id="call_1", index=0),
    tool_call_chunk(name="final_result", args='{"answer": ', id=None, index=0),
    tool_call_chunk(name="final_result", args="42}", id=None, index=0),
]
message = None
for chunk in chunks:
    part = AIMessageChunk(content="", tool_call_chunks=[chunk])
    message = part if message is None else message + part
print("tool_calls:", message.tool_calls)
assert [c["name"] for c in message.tool_calls] == ["final_resultfinal_resultfinal_result"]
