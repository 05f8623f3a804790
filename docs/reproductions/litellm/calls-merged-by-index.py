"""litellm on OpenAI Chat Completions bodies whose two parallel calls, each with its own id,
stream at one index (as Groq sends them) or with no index at all (as Gemini's compatible
endpoint and Ollama do), without the harness: ``stream_chunk_builder`` merges them into one
call with the last id and both argument objects back to back.

    python docs/reproductions/litellm/calls-merged-by-index.py

prints, with litellm 1.106.2 and openai 2.54.0:

    at index 0: [('call_2', 'get_weather', '{"city": "Lisbon"}{"city": "Porto"}')]
    with no index: [('call_2', 'get_weather', '{"city": "Lisbon"}{"city": "Porto"}')]
"""

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import

import httpx
import litellm
import openai


def chunk(delta, finish=None):
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n"


def body(index):
    deltas = [chunk({"role": "assistant", "content": None})]
    for call_id, city in (("call_1", "Lisbon"), ("call_2", "Porto")):
        function = {"name": "get_weather", "arguments": json.dumps({"city": city})}
        call = {"id": call_id, "type": "function", "function": function}
        if index is not None:
            call["index"] = index
        deltas.append(chunk({"tool_calls": [call]}))
    return "".join([*deltas, chunk({}, "tool_calls"), "data: [DONE]\n\n"]).encode()


def built_calls(data):
    def handler(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    client = openai.OpenAI(api_key="x", max_retries=0, http_client=http)
    messages = [{"role": "user", "content": "go"}]
    chunks = list(litellm.completion("openai/gpt-4o", messages, stream=True, client=client))
    message = litellm.stream_chunk_builder(chunks).choices[0].message
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]


merged = [("call_2", "get_weather", '{"city": "Lisbon"}{"city": "Porto"}')]
for label, index in (("at index 0", 0), ("with no index", None)):
    calls = built_calls(body(index))
    print(f"{label}:", calls)
    assert calls == merged, "the two calls are no longer merged into one"
