"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: reasoning_content
comes out as str chunks, like the answer's text, marked only by <think> tags.

    python docs/reproductions/autogen/reasoning-streamed-as-text.py

prints, with autogen-ext 0.7.5:

    chunks ['<think>The user wants the forecast.', '</think>', 'Let me check.']
    thought 'The user wants the forecast.'
"""

from _wire import ROLE, body, stream

texts, result = stream(
    body(
        ROLE,
        {"reasoning_content": "The user wants the forecast."},
        {"content": "Let me check."},
        finish="stop",
    )
)
print("chunks", texts)
print("thought", repr(result.thought))
assert texts == ["<think>The user wants the forecast.", "</think>", "Let me check."], texts
