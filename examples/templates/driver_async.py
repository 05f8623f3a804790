"""The async form of ``driver_sync``: ``drive`` is an async generator over an async iterator of
the same chunks; a cancellation arrives as ``asyncio.CancelledError`` from the read."""

from __future__ import annotations

from collections.abc import AsyncIterator

from driver_sync import ChatReader, Output


class AsyncChatDriver:
    layers = ("driver",)
    dialect = "openai-chat"

    async def drive(self, chunks: AsyncIterator[str]) -> AsyncIterator[Output]:
        reader = ChatReader()
        try:
            async for chunk in chunks:  # CancelledError raises out of this read: let it
                for output in reader.read(chunk):
                    yield output
                if reader.done:
                    break
            if not reader.done:
                for output in reader.end():  # the body ended without [DONE]
                    yield output
        finally:
            await chunks.aclose()  # type: ignore[attr-defined]  # however drive ends


def make_adapter() -> AsyncChatDriver:
    return AsyncChatDriver()
