"""pydantic-ai on a Chat Completions body whose two parallel calls both stream at index 0, each
with its own id (as Groq sends them), without the harness: the parts manager keys calls by
index, so the user gets one call with both names, both argument objects and the last id.

    python docs/reproductions/pydantic-ai/same-index-calls-merged.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    calls: [('call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from _wire import ROLE, body, call, ended_parts
from pydantic_ai.messages import ToolCallPart

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", '{"path": "a.rs"}'),
    call(0, "call_2", "write_file", '{"path": "b.rs"}'),  # the second call, at the same index
    {},
)

ended, _ = ended_parts(BODY)
calls = [(p.tool_call_id, p.tool_name, p.args) for p in ended if isinstance(p, ToolCallPart)]
print("calls:", calls)
assert calls == [("call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')]
