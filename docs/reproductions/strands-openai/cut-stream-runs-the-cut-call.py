"""Strands Agents over OpenAI Chat Completions: a body cut in the middle of a call's arguments
ends the model's message as a finished tool_use turn, the call's input {}.

The body stops after '{"path": "notes/todo.md", "content": "- re' (no finish_reason, no [DONE]),
as a dropped connection leaves it. Strands' OpenAIModel ends the message with end_turn, the event
loop's process_stream makes that tool_use because the message holds a tool use, and the
half-sent input, which does not parse, becomes {}: an agent runs write_file with no arguments.

Run: python docs/reproductions/strands-openai/cut-stream-runs-the-cut-call.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'call_1', 'name': 'write_file', 'input': {}}
"""

from _wire import ROLE, body, call, streamed_over, tool_uses

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", ""),
    call(0, None, None, '{"path": "notes/todo.md", '),
    call(0, None, None, '"content": "- re'),
    finish=None,
    done=False,
)  # and the connection drops

_, stop_reason, message = streamed_over(BODY)
(use,) = tool_uses(message)
print("stop reason:", stop_reason)
print("tool use:", use)
assert stop_reason == "tool_use"
assert use["input"] == {}
