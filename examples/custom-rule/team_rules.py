"""A rule of our own team's, beside the harness's: our chat UI must never leave an empty
assistant bubble behind (the "typing..." placeholder it shows while a turn streams).

The check is an ordinary function of the session layer's facts; ``register()`` adds it to the
harness's rules under its id. Call it at the top of a ``conftest.py`` to check it in every
session scenario, or inside ``harness.scoped_registrations()`` for one test only.
"""

from __future__ import annotations

from collections.abc import Iterator

from harness import Finding, SessionFacts, rule

RULE_ID = "no-empty-assistant-bubble"


def no_empty_assistant_bubble(facts: SessionFacts) -> Iterator[Finding]:
    """At the end of a run, every assistant message shown holds text or a tool call."""
    if not facts.checkpoint.final:
        return  # a message just begun is empty until its first delta
    for session_id, view in facts.transcript.sessions.items():
        for message in view.messages:
            if message.role == "assistant" and not message.text and not message.tool_calls:
                yield Finding(
                    facts.c,
                    f"session {session_id!r} shows the assistant message "
                    f"{message.message_id!r} with no text and no tool call; the trace gives "
                    "every assistant message text or a call",
                )


def register() -> None:
    rule(
        RULE_ID,
        layer="session",
        statement="No assistant message is left empty once the run is over.",
        source="our chat UI's spec, 'Streaming bubbles'",
    )(no_empty_assistant_bubble)
