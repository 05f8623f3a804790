"""The async form of ``history_sync``: ``feed`` is a coroutine; the other methods may be too."""

from __future__ import annotations

from typing import Any

from history_sync import HistoryTemplate

from harness.model import session as ev


class AsyncHistoryTemplate:
    layers = ("history",)

    def __init__(self) -> None:
        self.store = HistoryTemplate()  # your async store goes here

    async def feed(self, event: ev.SessionEvent) -> None:
        self.store.feed(event)

    async def history(self, session_id: str) -> list[dict[str, Any]]:
        return self.store.history(session_id)

    async def request(self, session_id: str) -> list[dict[str, Any]]:
        return self.store.request(session_id)

    async def rebuild(self, session_id: str) -> list[dict[str, Any]]:
        return self.store.rebuild(session_id)


def make_adapter() -> AsyncHistoryTemplate:
    return AsyncHistoryTemplate()
