"""The openai SDK's chat.completions.stream, without the harness: call deltas without an index
(as Gemini's OpenAI-compatible endpoint and Ollama send them) crash the stream with TypeError,
since the accumulator uses the index as a list position (openai/openai-python#2806).

    python docs/reproductions/openai-chat/crash-without-index.py

prints, with openai 3.54.0:

    no index: the stream raised TypeError: list indices must be integers or slices, not NoneType
"""

from _wire import ROLE, body, call, raised

BODY = body(
    ROLE,
    call(None, "call_1", "get_weather", '{"city": '),
    call(None, None, None, '"Paris"}'),
    {},
)

if __name__ == "__main__":
    error = raised(BODY)
    print("no index: the stream raised", error and f"{error[0].__name__}: {error[1]}")
    assert error and error[0] is TypeError, "the SDK now takes a call delta without an index"
