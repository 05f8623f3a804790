"""litellm on an OpenAI Chat Completions body cut in the middle of a call's arguments (no
finish_reason, no [DONE]), without the harness: ``litellm.completion(stream=True)`` ends the
stream with a chunk of its own whose finish_reason is 'stop', raises nothing, and
``stream_chunk_builder`` builds a finished-looking message holding the partial call.

    python docs/reproductions/litellm/cut-body-reads-as-finished.py

prints, with litellm 1.106.2 and openai 2.54.0:

    finish_reason per chunk: [None, None, None, None, 'stop', None]
    built: finish_reason 'stop', calls [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
"""

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import

import httpx
import litellm
import openai


def chunk(delta):
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return f"data: {json.dumps(data)}\n\n"


def arguments(text):
    return {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}


header = {"index": 0, "id": "call_1", "type": "function"}
body = "".join(
    [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{**header, "function": {"name": "write_file", "arguments": ""}}]}),
        chunk(arguments('{"path": "notes/todo.md", ')),
        chunk(arguments('"content": "- re')),
    ]
)  # the connection closes here: no finish_reason, no [DONE]


def handler(request):
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


client = openai.OpenAI(
    api_key="x", max_retries=0, http_client=httpx.Client(transport=httpx.MockTransport(handler))
)
messages = [{"role": "user", "content": "go"}]
chunks = list(litellm.completion("openai/gpt-4o", messages, stream=True, client=client))
print("finish_reason per chunk:", [c.choices[0].finish_reason for c in chunks])
built = litellm.stream_chunk_builder(chunks).choices[0]
calls = [(c.id, c.function.name, c.function.arguments) for c in built.message.tool_calls]
print(f"built: finish_reason {built.finish_reason!r}, calls {calls}")
assert built.finish_reason == "stop", "the cut body no longer reads as finished"
assert calls == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')]
