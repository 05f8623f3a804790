"""Misbehaving and hand-written adapters used by the tests (importable as MODULE:FACTORY)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from harness.adapters.session.reference import ReferenceSessionConsumer
from harness.model import session as ev


class RaisesOnCompletion(ReferenceSessionConsumer):
    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        raise KeyError(f"no such tool {event.calls[0].id}")


class HangsOnCompletion(ReferenceSessionConsumer):
    def on_tool_completed(self, event: ev.ToolCompleted) -> None:
        time.sleep(30)


class BadStatus(ReferenceSessionConsumer):
    # a status no Notification can hold, sent as the plain dicts an adapter may send
    def notifications(self) -> list[dict[str, str]]:  # type: ignore[override]
        return [
            {
                "session_id": n.session_id,
                "tool_call_id": n.tool_call_id,
                "tool_name": n.tool_name,
                "status": "running",
            }
            for n in self.notes.values()
        ] or [{"session_id": "main", "tool_call_id": "x", "tool_name": "t", "status": "running"}]


class TranscriptNotAMapping(ReferenceSessionConsumer):
    def transcript(self) -> Any:
        return ["not", "a", "transcript"]


class DictAdapter:
    """A correct consumer that reports plain dicts, as an out-of-process adapter would."""

    layers = ("session",)

    def __init__(self) -> None:
        self.inner = ReferenceSessionConsumer()

    def feed(self, event: ev.SessionEvent) -> None:
        self.inner.feed(event)

    def notifications(self) -> list[dict[str, Any]]:
        return [
            {
                "session_id": n.session_id,
                "tool_call_id": n.tool_call_id,
                "tool_name": n.tool_name,
                "status": n.status,
            }
            for n in self.inner.notifications()
        ]

    # Key by key, as an out-of-process adapter writes them (the protocol's documented keys), and
    # not derived from the package's dataclasses or Observation.to_data: a key renamed in the
    # package must fail here, not follow along.
    def transcript(self) -> dict[str, Any]:
        t = self.inner.transcript()
        return {
            "sessions": {
                sid: {
                    "messages": [
                        {
                            "message_id": m.message_id,
                            "role": m.role,
                            "text": m.text,
                            "tool_calls": [
                                {
                                    "id": c.id,
                                    "name": c.name,
                                    "input": c.input,
                                    "result": c.result,
                                    "is_error": c.is_error,
                                }
                                for c in m.tool_calls
                            ],
                        }
                        for m in view.messages
                    ],
                    "tool_streams": [
                        {
                            "call_id": s.call_id,
                            "event_type": s.event_type,
                            "tool_name": s.tool_name,
                            "tool_response": s.tool_response,
                            "summary": s.summary,
                            "content": s.content,
                            "is_complete": s.is_complete,
                        }
                        for s in view.tool_streams
                    ],
                }
                for sid, view in t.sessions.items()
            },
            "updates": [
                {"session_id": u.session_id, "message_id": u.message_id} for u in t.updates
            ],
        }


class AsyncReference:
    """The reference behind async methods."""

    layers = ("session",)

    def __init__(self) -> None:
        self.inner = ReferenceSessionConsumer()

    async def feed(self, event: ev.SessionEvent) -> None:
        await asyncio.sleep(0)
        self.inner.feed(event)

    async def notifications(self) -> Any:
        return self.inner.notifications()

    async def transcript(self) -> Any:
        return self.inner.transcript()


class AsyncHangs(AsyncReference):
    async def feed(self, event: ev.SessionEvent) -> None:
        if isinstance(event, ev.ToolCompleted):
            await asyncio.sleep(3600)
        self.inner.feed(event)


class DriverOnly:
    layers = ("driver",)


def make_failing_factory() -> Any:
    raise RuntimeError("cannot connect to the consumer under test")
