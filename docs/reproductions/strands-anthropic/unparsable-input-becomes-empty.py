"""Strands Agents over Anthropic Messages: a tool use's input that lost its closing brace
reaches the tool as {}.

The input fragments add up to '{"ticket_id": 42, "fields": ["title", "status"]' and the message
stops for tool_use. Strands passes the raw fragments on (not the SDK's lenient parse), and the
event loop's process_stream, which cannot parse them, replaces them with {}, with only a logged
warning: an agent runs get_ticket with no arguments and the model is not told its call was
broken (strands-agents/harness-sdk#2051).

Run: python docs/reproductions/strands-anthropic/unparsable-input-becomes-empty.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

    stop reason: tool_use
    tool use: {'toolUseId': 'toolu_tk', 'name': 'get_ticket', 'input': {}}
"""

from _wire import START, end, fragment, sse, stop, streamed_over, tool_start, tool_uses

BODY = sse(
    START,
    tool_start(0, "toolu_tk", "get_ticket"),
    fragment(0, '{"ticket_id": 42, '),
    fragment(0, '"fields": ["title", "status"]'),
    stop(0),
    *end("tool_use"),
)

_, stop_reason, message = streamed_over(BODY)
(use,) = tool_uses(message)
print("stop reason:", stop_reason)
print("tool use:", use)
assert stop_reason == "tool_use"
assert use["input"] == {}
