"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: parallel calls at
one index (or with none) become one call, ids, names and arguments joined; an id repeated on a
later delta is appended to the first.

    python docs/reproductions/autogen/calls-keyed-by-index-ids-joined.py

prints, with autogen-ext 0.7.5:

    at index 0: [FunctionCall(id='call_1call_2', arguments='{"path": "a.rs"}{"path": "b.rs"}', name='write_filewrite_file')]
    without an index: [FunctionCall(id='call_1call_2', arguments='{"path": "a.rs"}{"path": "b.rs"}', name='write_filewrite_file')]
    id repeated: [FunctionCall(id='call_k1call_k1', arguments='{"key": "a"}', name='kv_get')]
"""

from _wire import ROLE, body, call, stream

for label, index in (("at index 0", 0), ("without an index", None)):
    _, merged = stream(
        body(
            ROLE,
            call(index, "call_1", "write_file", '{"path": "a.rs"}'),
            call(index, "call_2", "write_file", '{"path": "b.rs"}'),
        )
    )
    print(f"{label}:", merged.content)
    assert [(c.id, c.name) for c in merged.content] == [("call_1call_2", "write_filewrite_file")]

_, repeated = stream(
    body(ROLE, call(0, "call_k1", "kv_get", '{"key": '), call(0, "call_k1", None, '"a"}'))
)
print("id repeated:", repeated.content)
assert [c.id for c in repeated.content] == ["call_k1call_k1"], repeated.content
