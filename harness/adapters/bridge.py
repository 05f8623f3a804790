"""A driver over a library whose streaming call blocks: it reports what it streams through a
callback and returns the final result at the end (Haystack's ``run(streaming_callback=...)``,
and many SDKs' ``on_token`` hooks).

``drive_blocking(work, chunks)`` runs ``work(reads, emit)`` in a worker thread. ``reads`` is
what the library's HTTP client reads its body from: each read the library makes is one read of
``chunks``, made by the thread running ``drive()``, so the harness counts reads, stalls and
cancels them as it does for any driver. What the library hands ``emit`` (from its callback),
then what ``work`` returns, comes out of ``drive()`` before its next read: at the read that
produced it. ::

    class MyDriver:
        layers = ("driver",)
        dialect = "openai-chat"
        reads = "bytes"
        emits_calls = "per-message"

        def drive(self, chunks):
            yield from drive_blocking(self.run, chunks)

        def run(self, reads, emit):
            client = my_library.Client(http_client=client_reading(reads))
            reply = client.chat("go", on_token=lambda text: emit(TextOut(text)))
            return [ToolCallOut(c.id, c.name, c.arguments, True) for c in reply.calls]

When ``drive()`` stops early (a read it makes for the library is cancelled, or the harness
closes the generator), every read the library makes from then on raises ``ReadsClosed``, a
``BaseException`` its ``except Exception`` does not swallow, and ``drive()`` waits up to
``join_within`` seconds for the worker to end: a library that goes on regardless raises
``WorkerStuck``. What the worker raises, ``drive()`` raises. ``chunks`` is closed however
``drive()`` ends.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, Generic, TypeVar

from harness.adapters.driver.reference import close_upstream

T = TypeVar("T")
Chunk = TypeVar("Chunk")

#: what ``work`` is given to report an output with, as the library hands it over
Emit = Callable[[T], None]

__all__ = ["ReadsClosed", "WorkerStuck", "drive_blocking"]


class ReadsClosed(BaseException):
    """Raised into the worker by each read it makes once ``drive()`` has stopped (a
    ``BaseException``, as ``asyncio.CancelledError`` is: the library must not go on)."""


class WorkerStuck(RuntimeError):
    """The worker did not end within its time after ``drive()`` stopped."""


# what the worker tells drive(): an output, a read wanted, the outputs of its return, a failure
_OUTPUT, _READ, _RETURNED, _RAISED = "output", "read", "returned", "raised"
# what drive() answers a read with: a chunk, the end of the body, or that reading is over
_CHUNK, _END, _CLOSED = "chunk", "end", "closed"


class _Channel(Generic[Chunk, T]):
    """The two queues between the worker and ``drive()``."""

    def __init__(self) -> None:
        self.to_driver: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self.to_worker: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self.closed = False

    def emit(self, output: T) -> None:
        self.to_driver.put((_OUTPUT, output))

    def reads(self) -> Iterator[Chunk]:
        return _Reads(self)

    def run(self, work: Callable[[Iterator[Chunk], Emit[T]], Iterable[T] | None]) -> None:
        try:
            returned = list(work(self.reads(), self.emit) or ())
        except BaseException as exc:  # the worker's end, whatever it is, goes to drive()
            self.to_driver.put((_RAISED, exc))
        else:
            self.to_driver.put((_RETURNED, returned))

    def close(self) -> None:
        self.closed = True
        self.to_worker.put((_CLOSED, None))  # for a read already waiting


class _Reads(Iterator[Chunk]):
    """The worker's side: each step is one read that ``drive()`` makes for it (an iterator, not
    a generator: once closed, every read raises, however often the library tries)."""

    def __init__(self, channel: _Channel[Chunk, Any]) -> None:
        self.channel = channel

    def __next__(self) -> Chunk:
        channel = self.channel
        if channel.closed:
            raise ReadsClosed
        channel.to_driver.put((_READ, None))
        kind, chunk = channel.to_worker.get()
        if kind == _CLOSED:
            raise ReadsClosed
        if kind == _END:
            raise StopIteration
        return chunk  # type: ignore[no-any-return]


def drive_blocking(
    work: Callable[[Iterator[Chunk], Emit[T]], Iterable[T] | None],
    chunks: Iterator[Chunk],
    *,
    join_within: float = 5.0,
) -> Generator[T, None, None]:
    """What ``work(reads, emit)``, run in a worker thread, emits and then returns, each output
    at the read of ``chunks`` that produced it (see the module's docstring)."""
    if not join_within > 0:  # NaN too
        raise ValueError(f"{join_within=} must be a positive number of seconds")
    return _drive(work, chunks, join_within)


def _drive(
    work: Callable[[Iterator[Chunk], Emit[T]], Iterable[T] | None],
    chunks: Iterator[Chunk],
    join_within: float,
) -> Generator[T, None, None]:
    channel: _Channel[Chunk, T] = _Channel()
    worker = threading.Thread(target=channel.run, args=(work,), name="drive-blocking", daemon=True)
    worker.start()
    try:
        while True:
            kind, value = channel.to_driver.get()
            if kind == _OUTPUT:
                yield value
            elif kind == _READ:
                try:
                    chunk = next(chunks)
                except StopIteration:
                    channel.to_worker.put((_END, None))
                else:
                    channel.to_worker.put((_CHUNK, chunk))
            elif kind == _RETURNED:
                yield from value
                return
            else:
                raise value
    finally:
        channel.close()
        worker.join(join_within)
        close_upstream(chunks)
        if worker.is_alive():
            raise WorkerStuck(
                f"the library's call went on for {join_within:g}s after its stream was closed: "
                "every read it made raised ReadsClosed, and it neither ended nor raised"
            )
