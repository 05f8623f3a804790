"""litellm on an OpenAI Chat Completions body cut in the middle of a call's arguments (no
finish_reason, no [DONE]), without the harness: ``litellm.completion(stream=True)`` ends the
stream with a chunk of its own whose finish_reason is 'stop', raises nothing, and
``stream_chunk_builder`` builds a finished-looking message holding the partial call.

    python docs/reproductions/litellm/cut-body-reads-as-finished.py

prints, with litellm 1.106.2 and openai 2.54.0:

    finish_reason per chunk: [None, None, None, None, 'stop', None]
    built: finish_reason 'stop', calls [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
"""

from _wire import ROLE, body, call, completion, summary

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", ""),
    call(0, None, None, '{"path": "notes/todo.md", '),
    call(0, None, None, '"content": "- re'),
    finish=None,
    done=False,
)  # the connection closes here: no finish_reason, no [DONE]

chunks, built = completion(BODY)
print("finish_reason per chunk:", [c.choices[0].finish_reason for c in chunks])
calls = summary(built.message)
print(f"built: finish_reason {built.finish_reason!r}, calls {calls}")
assert built.finish_reason == "stop", "the cut body no longer reads as finished"
assert calls == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')]
