"""The openai SDK's chat.completions.stream, without the harness: a turn cut by max_tokens
(finish_reason 'length') makes get_final_completion() raise LengthFinishReasonError, though the
request asked for no response_format and no strict tools to parse; reading the stream itself
raises nothing (openai/openai-python#3589, an open pull request, would raise only when there is
something to parse).

    python docs/reproductions/openai-chat-final/length-finish-raises.py

prints, with openai 3.54.0:

    the stream: read to its end, 2 text deltas
    get_final_completion(): raised LengthFinishReasonError
"""

import openai
from _wire import body, chat_stream

BODY = body(
    {"role": "assistant", "content": ""},
    {"content": "The migration adds "},
    {"content": "a column"},
    {},
    finish="length",
)

if __name__ == "__main__":
    with chat_stream(BODY) as stream:
        texts = [e for e in stream if e.type == "content.delta" and e.delta]
        print(f"the stream: read to its end, {len(texts)} text deltas")
        try:
            stream.get_final_completion()
            error = None
        except openai.LengthFinishReasonError as exc:
            error = type(exc).__name__
    print("get_final_completion(): raised", error)
    assert error == "LengthFinishReasonError", "get_final_completion() no longer raises"
