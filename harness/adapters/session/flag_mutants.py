"""The reference session consumer showing a failed tool as succeeded, one class per place."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.reference import ReferenceSessionConsumer
from harness.model import session as ev
from harness.model.history import HistoryMessage, ToolResultBlock

mutant = mutant_registrar("session")


@mutant(
    "error-flag-dropped-live",
    "A completed tool call is attached with its result text but without its error flag, so a "
    "failed tool shows as succeeded.",
)
class ErrorFlagDroppedLive(ReferenceSessionConsumer):
    """Its resume path, like many clients', builds the transcript apart from the live one, and
    keeps the flags."""

    resuming = False

    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        if not self.resuming:
            event = replace(event, results=tuple(replace(r, is_error=False) for r in event.results))
        super().on_tool_completed(event)

    def on_resume(self, event: ev.Resume) -> None:
        self.resuming = True
        try:
            super().on_resume(event)
        finally:
            self.resuming = False


@mutant(
    "error-flag-dropped-on-resume",
    "Rebuilding a session from its stored history reads each tool_result's content but not "
    "its is_error, so a call that failed before the resume shows as succeeded after it.",
)
class ErrorFlagDroppedOnResume(ReferenceSessionConsumer):
    def resumable(self, event: ev.Resume) -> tuple[Any, ...]:
        return tuple(
            HistoryMessage(
                m.role,
                tuple(
                    replace(b, is_error=False) if isinstance(b, ToolResultBlock) else b
                    for b in m.blocks
                ),
            )
            for m in event.history
        )
