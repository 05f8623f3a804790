"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: a tool name
repeated on every delta is appended each time.

    python docs/reproductions/autogen/name-on-every-delta-joined.py

prints, with autogen-ext 0.7.5:

    [FunctionCall(id='call_fr', arguments='{"a": 1}', name='final_resultfinal_result')]
"""

from _wire import ROLE, body, call, stream

_, result = stream(
    body(ROLE, call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
)
print(result.content)
assert [c.name for c in result.content] == ["final_resultfinal_result"], result.content
