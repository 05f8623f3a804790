"""langchain-core's AIMessageChunk merging, without the harness: a tool call chunk joins the
earlier one with its index unless both carry different ids, so a call whose chunks have no
index, or whose id changes, is split; and where two calls share an index, the second call's
fragments (which come without an id) join the first call.

    python docs/reproductions/langchain-core/calls-matched-by-index.py

prints, with langchain-core 1.7.2:

    no index: [('call_1', 'read', {}), (None, '', {'f': 1})]
    id changes: [('call_1', 'read', {}), ('toolcall0', '', {'f': 1})]
    one index: [('t1', 'glob', {'pattern': '**/*'}), ('t2', 'glob', {})]
"""

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk


def calls(*chunks):
    """The summed message's tool calls, (id, name, args) each: chunks are (index, id, name, args)."""
    message = None
    for index, call_id, name, args in chunks:
        part = tool_call_chunk(name=name, args=args, id=call_id, index=index)
        chunk = AIMessageChunk(content="", tool_call_chunks=[part])
        message = chunk if message is None else message + chunk
    return [(c["id"], c["name"], c["args"]) for c in message.tool_calls]


no_index = calls((None, "call_1", "read", ""), (None, None, None, '{"f": 1}'))
print("no index:", no_index)
assert no_index == [("call_1", "read", {}), (None, "", {"f": 1})]

id_changes = calls((0, "call_1", "read", ""), (0, "toolcall0", None, '{"f": 1}'))
print("id changes:", id_changes)
assert id_changes == [("call_1", "read", {}), ("toolcall0", "", {"f": 1})]

one_index = calls(
    (0, "t1", "glob", ""),
    (0, None, None, '{"pattern": "**/*"}'),
    (0, "t2", "glob", ""),
    (0, None, None, '{"path": "content/wiki"}'),
)
print("one index:", one_index)
assert one_index == [("t1", "glob", {"pattern": "**/*"}), ("t2", "glob", {})]
