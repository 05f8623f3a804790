"""An offline HTTP transport that serves what the driver is given as a streamed SSE body, one
piece per read the library makes, so a library's own client, SSE decoder and accumulator run
unchanged. The adapters declare ``reads = "bytes"``: the body reaches the library cut anywhere,
as a network delivers it (whole chunks, as text, work too)."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

from harness.adapters.driver.reference import close_upstream


def http_module(client_class: type) -> ModuleType:
    """The httpx flavour (``httpx`` or ``httpx2``) an SDK's default client class is built on:
    SDK releases move from one to the other, and a client must be of the kind they expect."""
    for base in client_class.__mro__:
        root = base.__module__.split(".")[0]
        if root in ("httpx", "httpx2"):
            return importlib.import_module(root)
    raise TypeError(f"{client_class.__name__} is not an httpx client")


def sync_client(client_class: type, chunks: Iterator[str | bytes]) -> Any:
    """The SDK's default HTTP client, answering every request with the chunks."""
    httpx = http_module(client_class)

    class Body(httpx.SyncByteStream):  # type: ignore[misc, name-defined]
        def __iter__(self) -> Iterator[bytes]:
            for chunk in chunks:  # pulled lazily: one read per chunk the library asks for
                yield _bytes(chunk)

        def close(self) -> None:
            close_upstream(chunks)  # the library closed the response

    return client_class(transport=httpx.MockTransport(_answer(httpx, Body)))


def async_client(client_class: type, chunks: AsyncIterator[str | bytes]) -> Any:
    httpx = http_module(client_class)

    class Body(httpx.AsyncByteStream):  # type: ignore[misc, name-defined]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in chunks:
                yield _bytes(chunk)

        async def aclose(self) -> None:
            close = getattr(chunks, "aclose", None)
            if callable(close):
                await close()

    return client_class(transport=httpx.MockTransport(_answer(httpx, Body)))


def _bytes(chunk: str | bytes) -> bytes:
    return chunk if isinstance(chunk, bytes) else chunk.encode()


def _answer(httpx: Any, body: Callable[[], Any]) -> Callable[[Any], Any]:
    def answer(request: Any) -> Any:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=body(), request=request
        )

    return answer
