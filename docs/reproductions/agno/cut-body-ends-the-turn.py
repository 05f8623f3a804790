"""agno takes a response cut off mid-call for a finished one, without the harness.

``OpenAIChat`` drops the chunks' ``finish_reason``, the one sign that a response ended rather
than broke off. A body cut in the middle of a call's arguments (no finish_reason, no [DONE]) ends
``process_response_stream`` without an error, as a finished response does, and the assistant
message gets the call with its arguments cut short: an ``Agent`` goes on to run it (agno answers
the model that the arguments do not decode), and a text answer cut mid-sentence would be taken as
final.

    python docs/reproductions/agno/cut-body-ends-the-turn.py

prints, with agno 3.1.10 and openai 3.57.0:

    the stream ended without an error
    calls: [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
"""

from _wire import ROLE, assistant_message, body, call, summary

BODY = body(
    ROLE,
    call(0, "call_1", "write_file"),
    call(0, None, None, '{"path": "notes/todo.md", "content": "- re'),
    finish=None,
    done=False,
)  # the connection closes here: no finish_reason, no [DONE]

message = assistant_message(BODY)  # raises nothing
print("the stream ended without an error")
calls = summary(message.tool_calls)
print("calls:", calls)
assert calls == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')], calls
