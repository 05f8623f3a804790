"""What the ``anthropic`` SDK's ``MessageStream`` gets wrong (adapter: ``anthropic_sdk``)."""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

explain(
    "anthropic",
    "unclosed-input-completed",
    """The tool input stops before its closing brace. MessageStream parses the input JSON in
    partial mode (jiter) at every input_json_delta and never checks at content_block_stop that
    it was complete, so the block it hands over carries a complete-looking input and the tool
    runs with a call the model never finished; nothing marks it incomplete. Related upstream:
    anthropics/anthropic-sdk-python#1517 (tests that pinned the partial input as kept; closed).""",
    scenarios={"arguments-missing-closing-brace"},
    rules={"strict-assembly"},
)
explain(
    "anthropic",
    "trailing-input-dropped",
    """The tool input holds a complete JSON object and then more (the object twice, or one
    closing brace too many). The partial-mode parse stops at the end of the first object and
    drops the rest without a word, so content_block_stop hands over a valid-looking input and
    the tool runs; nothing tells the user the stream was corrupt.""",
    scenarios={"arguments-trailing-duplicate-value", "arguments-trailing-extra-brace"},
    rules={"strict-assembly"},
)
explain(
    "anthropic",
    "block-stop-passed-twice",
    """A content_block_stop sent twice for one tool_use block (a LiteLLM proxy serving an
    OpenAI-compatible deployment did, BerriAI/litellm#37273) is passed on twice, each time with
    the finished block: the SDK does not check that the block was already stopped, so a user who
    runs tools at content_block_stop runs each tool twice. Anthropic's own API never sends
    it.""",
    rules={"no-duplicates"},
)
explain(
    "anthropic",
    "events-without-event-lines-dropped",
    """Events sent as bare data: lines, without the event: line before them (third-party
    Anthropic-compatible proxies: earendil-works/pi#1983, openclaw/openclaw#37571), are all
    skipped: the SDK's Stream drops every server-sent event without an event name, although
    each one's type is in its data. The user gets an empty message and no error: no text, no
    tool call, no stop reason, and an error event the server sent is lost too.""",
    quirks={"no_event_lines"},
)
