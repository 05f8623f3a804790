"""llama-index's OpenAI class, without the harness: arguments that are not JSON (the object
sent twice) come out of get_tool_calls_from_response as {}, the parse error swallowed.

    python docs/reproductions/llama-index-openai/corrupt-arguments-become-empty.py

prints, with llama-index-llms-openai 0.8.3 (llama-index-core 0.14.25, openai 2.54.0):

    calls: [('call_fc', 'get_forecast', {})]
"""

from _wire import body, call, calls_of

twice = '{"city": "Paris", "days": 3}{"city": "Paris", "days": 3}'
calls = calls_of(body(call(0, "call_fc", "get_forecast", twice), {}))
print("calls:", calls)
assert calls == [("call_fc", "get_forecast", {})], calls
