"""Strands Agents over Anthropic Messages: a body cut in the middle of a tool use's input ends
the model's message as a finished end_turn turn, the cut call dropped.

The body stops after the input fragment '{"path": "notes/todo.md", "content": "- re' (no
content_block_stop, message_delta or message_stop), as a dropped connection leaves it. Strands'
AnthropicModel yields no messageStop, and the event loop's process_stream falls back to
end_turn: the user sees a finished, empty answer and nothing says the stream broke
(strands-agents/harness-sdk#4334).

Run: python docs/reproductions/strands-anthropic/stream-end-taken-as-end-turn.py
(strands-agents[anthropic] 1.62.0, anthropic 0.125.0). Prints:

    stop reason: end_turn
    content: []
"""

from _wire import START, fragment, sse, streamed_over, tool_start

BODY = sse(
    START,
    tool_start(0, "toolu_1", "write_file"),
    fragment(0, '{"path": "notes/todo.md", "content": "- re'),
)  # and the connection drops

_, stop_reason, message = streamed_over(BODY)
print("stop reason:", stop_reason)
print("content:", message["content"])
assert stop_reason == "end_turn"
assert message["content"] == []
