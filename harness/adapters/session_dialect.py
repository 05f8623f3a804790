"""A consumer of a UI protocol, as the session replayer sees it.

An adapter that declares ``session_dialect = "ag-ui"`` (any name of
``harness.codecs.session.session_codecs()``) is fed that protocol's events, one by one
(``feed(event)``, a JSON-like dict), and reports what it shows in the protocol's own terms
(``view()``: AG-UI messages, AI SDK UI messages). ``DialectAdapter`` stands between it and the
replayer: each canonical event the replayer feeds is encoded by the dialect's codec, and the
view is decoded into the notifications and transcript the session rules read.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from harness.codecs.session.base import SessionEncoder
from harness.model import session as ev
from harness.model.observation import Notification, Transcript


class DialectFeedError(RuntimeError):
    """The consumer raised on one of the protocol's events; says which."""


def _excerpt(event: Any) -> str:
    text = json.dumps(event, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."


class DialectAdapter:
    """A sync consumer of a UI protocol behind the canonical session adapter contract."""

    layers = ("session",)

    def __init__(self, inner: Any, encoder: SessionEncoder) -> None:
        self.inner = inner
        self.encoder = encoder
        self._decoded: tuple[tuple[Notification, ...], Transcript] | None = None

    def feed(self, event: ev.SessionEvent) -> None:
        self._decoded = None
        feed = self.inner.feed
        for data in self.encoder.encode(event):
            try:
                feed(data)
            except Exception as exc:
                raise DialectFeedError(
                    f"{type(exc).__name__}: {exc}; fed {_excerpt(data)}"
                ) from exc

    def _decode(self) -> tuple[tuple[Notification, ...], Transcript]:
        if self._decoded is None:
            self._decoded = self.encoder.decode(self.inner.view())
        return self._decoded

    def notifications(self) -> tuple[Notification, ...]:
        return self._decode()[0]

    def transcript(self) -> Transcript:
        return self._decode()[1]


class AsyncDialectAdapter:
    """The same for a consumer whose ``feed`` is a coroutine function (``view`` may be too)."""

    layers = ("session",)

    def __init__(self, inner: Any, encoder: SessionEncoder) -> None:
        self.inner = inner
        self.encoder = encoder
        self._decoded: tuple[tuple[Notification, ...], Transcript] | None = None

    async def feed(self, event: ev.SessionEvent) -> None:
        self._decoded = None
        for data in self.encoder.encode(event):
            try:
                await self.inner.feed(data)
            except Exception as exc:
                raise DialectFeedError(
                    f"{type(exc).__name__}: {exc}; fed {_excerpt(data)}"
                ) from exc

    async def _decode(self) -> tuple[tuple[Notification, ...], Transcript]:
        if self._decoded is None:
            view = self.inner.view()
            if inspect.isawaitable(view):
                view = await view
            self._decoded = self.encoder.decode(view)
        return self._decoded

    async def notifications(self) -> tuple[Notification, ...]:
        return (await self._decode())[0]

    async def transcript(self) -> Transcript:
        return (await self._decode())[1]


def in_dialect(inner: Any, encoder: SessionEncoder) -> DialectAdapter | AsyncDialectAdapter:
    """``inner`` behind the canonical contract, in the form (sync or async) of its ``feed``."""
    if inspect.iscoroutinefunction(getattr(inner, "feed", None)):
        return AsyncDialectAdapter(inner, encoder)
    return DialectAdapter(inner, encoder)
