"""The async form of ``session_sync``: ``feed`` is a coroutine, so the harness runs the adapter
in an event loop of its own; ``notifications`` and ``transcript`` may be coroutines too."""

from __future__ import annotations

from typing import Any

from session_sync import SessionTemplate

from harness.model import session as ev


class AsyncSessionTemplate:
    layers = ("session",)

    def __init__(self) -> None:
        self.consumer = SessionTemplate()  # your async consumer goes here

    async def feed(self, event: ev.SessionEvent) -> None:
        self.consumer.feed(event)

    async def notifications(self) -> list[dict[str, str]]:
        return self.consumer.notifications()

    async def transcript(self) -> dict[str, Any]:
        return self.consumer.transcript()


def make_adapter() -> AsyncSessionTemplate:
    return AsyncSessionTemplate()
