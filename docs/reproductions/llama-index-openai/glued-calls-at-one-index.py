"""llama-index's OpenAI class, without the harness: two parallel calls sent at index 0, each
with its own id (as Groq sends them), or with no index at all (as Gemini's compatible endpoint
sends them), come out of get_tool_calls_from_response as one call with the ids and names
joined and the arguments, two objects back to back, parsed to {}.

    python docs/reproductions/llama-index-openai/glued-calls-at-one-index.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    at index 0:     [('call_1call_2', 'read_fileread_file', {})]
    without index:  [('call_1call_2', 'read_fileread_file', {})]
"""

from _wire import body, call, calls_of


def two_calls(index):
    """Two calls, each with its own id, both at ``index`` (None: no index field)."""
    return body(
        call(index, "call_1", "read_file", ""),
        call(index, None, None, '{"path": "a.rs"}'),
        call(index, "call_2", "read_file", ""),
        call(index, None, None, '{"path": "b.rs"}'),
        {},
    )


for shape, index in (("at index 0:", 0), ("without index:", None)):
    calls = calls_of(two_calls(index))
    print(f"{shape:15} {calls}")
    assert calls == [("call_1call_2", "read_fileread_file", {})], calls
