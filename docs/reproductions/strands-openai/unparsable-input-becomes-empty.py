"""Strands Agents over OpenAI Chat Completions: arguments that lost their closing brace (as
vLLM's hermes parser sends them) reach the tool as {}.

The call's arguments are '{"ticket_id": 42, "fields": ["title", "status"]' and the choice
finishes with tool_calls. The event loop's process_stream cannot parse them and replaces them
with {}, with only a logged warning: an agent runs get_ticket with no arguments and the model is
not told its call was broken (strands-agents/harness-sdk#2051).

Run: python docs/reproductions/strands-openai/unparsable-input-becomes-empty.py
(strands-agents[openai] 1.62.0, openai 2.54.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'call_tk', 'name': 'get_ticket', 'input': {}}
"""

from _wire import ROLE, body, call, streamed_over, tool_uses

ARGUMENTS = '{"ticket_id": 42, "fields": ["title", "status"]'
BODY = body(ROLE, call(0, "call_tk", "get_ticket", ARGUMENTS), {})

_, stop_reason, message = streamed_over(BODY)
(use,) = tool_uses(message)
print("stop reason:", stop_reason)
print("tool use:", use)
assert stop_reason == "tool_use"
assert use["input"] == {}
