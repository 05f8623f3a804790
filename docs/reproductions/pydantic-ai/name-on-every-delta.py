"""pydantic-ai on a Chat Completions body that repeats the tool name on every delta of a call
(as llama.cpp's server did), without the harness: with an index the name is concatenated onto
the call's; with no index as well, each delta that carries the name starts a call of its own,
under an id pydantic-ai makes up.

    python docs/reproductions/pydantic-ai/name-on-every-delta.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0 (the made-up ids differ on each run):

    with an index: [('call_fr', 'final_resultfinal_resultfinal_result', '{"answer": 42}')]
    with no index: [('call_fr', 'final_result', ''), ('pyd_ai_...', 'final_result', '{"answer": '), ('pyd_ai_...', 'final_result', '42}')]
"""

from _wire import body, call, ended_parts
from pydantic_ai.messages import ToolCallPart


def one_call(index):
    """One call whose three deltas all name it; the first also carries its id."""
    return body(
        {"role": "assistant"},
        call(index, "call_fr", "final_result", ""),
        call(index, None, "final_result", '{"answer": '),
        call(index, None, "final_result", "42}"),
        {},
    )


def calls(data):
    ended, _ = ended_parts(data)
    return [(p.tool_call_id, p.tool_name, p.args) for p in ended if isinstance(p, ToolCallPart)]


indexed = calls(one_call(0))
print("with an index:", indexed)
assert indexed == [("call_fr", "final_resultfinal_resultfinal_result", '{"answer": 42}')]

unindexed = calls(one_call(None))
print("with no index:", unindexed)
assert [(name, args) for _, name, args in unindexed] == [
    ("final_result", ""),
    ("final_result", '{"answer": '),
    ("final_result", "42}"),
]
assert unindexed[0][0] == "call_fr" and all(i.startswith("pyd_ai_") for i, _, _ in unindexed[1:])
