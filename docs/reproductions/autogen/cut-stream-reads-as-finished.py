"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: a body that ends in
the middle of a call's arguments, with no finish_reason and no [DONE], ends in a CreateResult
like any other, finish_reason 'unknown', the cut call in its content; nothing raises.

    python docs/reproductions/autogen/cut-stream-reads-as-finished.py

prints, with autogen-ext 0.7.5:

    finish_reason 'unknown' content [FunctionCall(id='toolu_01Cut', arguments='{"path": "no', name='write_file')]
"""

from _wire import ROLE, body, call, stream

_, result = stream(
    body(ROLE, call(0, "toolu_01Cut", "write_file", '{"path": "no'), finish=None, done=False)
)
print("finish_reason", repr(result.finish_reason), "content", result.content)
assert result.finish_reason == "unknown"
assert [c.arguments for c in result.content] == ['{"path": "no']
