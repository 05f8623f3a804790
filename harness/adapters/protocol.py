"""The adapter contract: a tiny protocol per layer, sync or async.

A session-layer adapter is push-style: the replayer feeds it one canonical event at a time and
asks what it shows at checkpoints::

    class MyAdapter:
        layers = ("session",)

        def feed(self, event): ...           # or: async def feed(self, event)
        def notifications(self): ...         # [Notification | dict]
        def transcript(self): ...            # Transcript | dict

``notifications`` and ``transcript`` may be plain functions or coroutines too. The factory given
to ``--adapter MODULE:FACTORY`` is called once per scenario, so every replay starts fresh.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import Any, Protocol, runtime_checkable

from harness.model.session import SessionEvent


@runtime_checkable
class SessionAdapter(Protocol):
    def feed(self, event: SessionEvent) -> Awaitable[None] | None: ...

    def notifications(self) -> Iterable[Any] | Awaitable[Iterable[Any]]: ...

    def transcript(self) -> Any: ...


def adapter_layers(adapter: object) -> tuple[str, ...]:
    """The layers an adapter declares (``layers``), or those its methods imply."""
    declared = getattr(adapter, "layers", None)
    if declared is not None:
        if isinstance(declared, str):
            return (declared,)
        return tuple(declared)
    return ("session",) if isinstance(adapter, SessionAdapter) else ()
