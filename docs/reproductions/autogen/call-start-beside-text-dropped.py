"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: a delta with text
and a call's start loses the call's id and name.

    python docs/reproductions/autogen/call-start-beside-text-dropped.py

prints, with autogen-ext 0.7.5:

    chunks ['Checking.'] content [FunctionCall(id='', arguments='{"city": "Oslo"}', name='')]
"""

from _wire import ROLE, body, call, stream

texts, result = stream(
    body(
        ROLE,
        {"content": "Checking.", **call(0, "call_fc", "get_forecast", "")},
        call(0, None, None, '{"city": "Oslo"}'),
    )
)
print("chunks", texts, "content", result.content)
assert [(c.id, c.name) for c in result.content] == [("", "")], result.content
