"""The reference session consumer with one bug put back that no specific session rule targets:
each is caught by the reference comparison (`harness rules`: reference-comparison), which holds
every field of the transcript to the reference's."""

from __future__ import annotations

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.reference import ReferenceSessionConsumer
from harness.model import session as ev

mutant = mutant_registrar("session")


@mutant(
    "stream-response-kept-first",
    "A streamed tool's tool_response keeps the first one the stream sent; a later, final one is "
    "ignored.",
)
class StreamResponseKeptFirst(ReferenceSessionConsumer):
    def on_tool_stream(self, event: ev.ToolStreamPart) -> None:
        stream = self.session(event).streams.get(event.call_id)
        kept = stream.tool_response if stream is not None else ""
        super().on_tool_stream(event)
        if kept:
            self.session(event).streams[event.call_id].tool_response = kept


@mutant(
    "subsession-deltas-dropped",
    "Text deltas that name a parent session are dropped (the consumer only streams top-level "
    "text), so a sub-agent's messages stay empty in its own session.",
)
class SubsessionDeltasDropped(ReferenceSessionConsumer):
    def on_message_delta(self, event: ev.MessageDelta) -> None:
        if event.parent_session_id is None:
            super().on_message_delta(event)


@mutant(
    "subsession-thoughts-as-text",
    "A sub-agent's thought messages are shown as its answers (role assistant): the consumer "
    "reads the role only from top-level events.",
)
class SubsessionThoughtsAsText(ReferenceSessionConsumer):
    def on_message_start(self, event: ev.MessageStart) -> None:
        super().on_message_start(event)
        message = self.session(event).by_id[event.message_id]
        if event.parent_session_id is not None and message.role == "thought":
            message.role = "assistant"
