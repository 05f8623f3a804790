"""smolagents takes a response cut off mid-call for a finished one, without the harness.

The deltas of ``OpenAIModel.generate_stream`` drop the chunks' ``finish_reason``, the one sign
that a response ended rather than broke off. A body cut in the middle of a call's arguments (no
finish_reason, no [DONE]) ends the stream without an error, as a finished response does, and
``agglomerate_stream_deltas`` builds a message whose call has the arguments cut short: a
``ToolCallingAgent`` goes on to run it, and a text answer cut mid-sentence would be taken as
final.

    python docs/reproductions/smolagents/cut-body-ends-the-turn.py

prints, with smolagents 1.26.0 and openai 3.57.0:

    the stream ended without an error after 3 deltas
    calls: [('call_1', 'write_file', '{"path": "notes/todo.md", "content": "- re')]
"""

from _wire import ROLE, body, call, calls, generate_stream
from smolagents.models import agglomerate_stream_deltas

BODY = body(
    ROLE,
    call(0, "call_1", "write_file"),
    call(0, None, None, '{"path": "notes/todo.md", "content": "- re'),
    finish=None,
    done=False,
)  # the connection closes here: no finish_reason, no [DONE]

deltas = list(generate_stream(BODY))  # raises nothing
print("the stream ended without an error after", len(deltas), "deltas")
cut = calls(agglomerate_stream_deltas(deltas))
print("calls:", cut)
assert cut == [("call_1", "write_file", '{"path": "notes/todo.md", "content": "- re')], cut
# nothing the model hands over says the response broke off
assert not any(hasattr(d, "finish_reason") for d in deltas)
