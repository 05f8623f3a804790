"""litellm on OpenAI Chat Completions bodies whose two parallel calls, each with its own id,
stream at one index (as Groq sends them) or with no index at all (as Gemini's compatible
endpoint and Ollama do), without the harness: ``stream_chunk_builder`` merges them into one
call with the last id and both argument objects back to back.

    python docs/reproductions/litellm/calls-merged-by-index.py

prints, with litellm 1.106.2 and openai 2.54.0:

    at index 0: [('call_2', 'get_weather', '{"city": "Lisbon"}{"city": "Porto"}')]
    with no index: [('call_2', 'get_weather', '{"city": "Lisbon"}{"city": "Porto"}')]
"""

from _wire import ROLE, body, call, completion, summary


def two_calls(index):
    """Two whole calls, each with its own id, both at ``index`` (None: no index field)."""
    return body(
        ROLE,
        call(index, "call_1", "get_weather", '{"city": "Lisbon"}'),
        call(index, "call_2", "get_weather", '{"city": "Porto"}'),
        {},
    )


merged = [("call_2", "get_weather", '{"city": "Lisbon"}{"city": "Porto"}')]
for label, index in (("at index 0", 0), ("with no index", None)):
    _, built = completion(two_calls(index))
    calls = summary(built.message)
    print(f"{label}:", calls)
    assert calls == merged, "the two calls are no longer merged into one"
