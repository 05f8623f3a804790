"""pydantic-ai on a Chat Completions body cut in the middle of a call's arguments (no
finish_reason, no [DONE]), without the harness: the streamed response hands the partial call
over at its PartEndEvent, as finished, and reports finish_reason 'stop'.

    python docs/reproductions/pydantic-ai/cut-body-reads-as-finished.py

prints, with pydantic-ai 2.68.0 and openai 3.54.0:

    PartEndEvent: ToolCallPart(tool_name='write_file', args='{"path": "notes/todo.md", "content": "- re', tool_call_id='call_1')
    finish_reason: stop
"""

from _wire import body, call, ended_parts

BODY = body(
    {"role": "assistant", "content": ""},
    call(0, "call_1", "write_file", ""),
    call(0, None, None, '{"path": "notes/todo.md", '),
    call(0, None, None, '"content": "- re'),
    finish=None,
    done=False,
)  # the connection closes here: no finish_reason, no [DONE]

ended, response = ended_parts(BODY)
for part in ended:
    print("PartEndEvent:", part)
print("finish_reason:", response.finish_reason)
assert [part.args for part in ended] == ['{"path": "notes/todo.md", "content": "- re']
assert response.finish_reason == "stop", "the cut body no longer reads as finished"
