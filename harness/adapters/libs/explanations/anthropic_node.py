"""What ``@anthropic-ai/sdk``'s ``client.messages.stream`` (its ``MessageStream``) gets wrong
(adapter: ``js/libs/anthropic/messages.mjs``, a user of its ``text``, ``contentBlock`` and
``message`` events). Every cause here comes from shapes only gateways and proxies send."""

from __future__ import annotations

from harness.adapters.libs.explanations import Match, explain

explain(
    "anthropic-node",
    "unclosed-input-completed",
    """The tool input stops before its closing brace. MessageStream parses the input JSON in
    partial mode (its vendored partial-json-parser) and never checks at content_block_stop that
    it was complete, so the contentBlock event (and finalMessage()) hands over a
    complete-looking input and the tool runs with a call the model never finished; nothing marks
    it incomplete. The Python SDK does the same (the anthropic library's
    unclosed-input-completed).""",
    scenarios={"arguments-missing-closing-brace"},
    rules={"strict-assembly"},
)
explain(
    "anthropic-node",
    "block-stop-passed-twice",
    """A content_block_stop sent twice for one tool_use block (a LiteLLM proxy serving an
    OpenAI-compatible deployment did, BerriAI/litellm#37273) fires the contentBlock event twice,
    each time with the finished block: the SDK does not check that the block was already
    stopped, so a user who runs tools at contentBlock runs each tool twice. Anthropic's own API
    never sends it.""",
    rules={"no-duplicates"},
)
explain(
    "anthropic-node",
    "message-start-twice-fails",
    """A message_start sent twice (the LiteLLM proxy, BerriAI/litellm#32478, and bifrost,
    maximhq/bifrost#4556, did) fails the stream: MessageStream throws "Unexpected event order,
    got message_start before receiving message_stop", so the user gets an error and none of the
    text or tool calls that follow, although the repeated start changes nothing. The Python SDK
    takes the second start and streams on.""",
    quirks={"duplicate_message_start"},
    also=[Match(scenarios=frozenset({"duplicate-message-start-thinking"}))],
)
explain(
    "anthropic-node",
    "events-without-event-lines-dropped",
    """Events sent as bare data: lines, without the event: line before them (third-party
    Anthropic-compatible proxies: earendil-works/pi#1983, openclaw/openclaw#37571), are all
    skipped: the SDK's Stream drops every server-sent event without an event name, although
    each one's type is in its data. The user gets no text and no tool call, and the stream fails
    with "request ended without sending any chunks". Each call lost this way is lost at the same
    point when message_start comes twice (message-start-twice-fails).""",
    quirks={"no_event_lines", "duplicate_message_start"},
)
