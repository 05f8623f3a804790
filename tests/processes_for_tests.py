"""``exec:`` adapters for the tests of out-of-process adapters: a process started before the
replay it is handed to, and the check that a test's processes and pipes are gone."""

from __future__ import annotations

import contextlib
import gc
import shlex
import threading
from collections.abc import Iterator

from harness.adapters.process import ProcessAdapter, ProcessFactory
from harness.adapters.registry import AdapterInfo
from tests.budgets import within
from tests.heap import frozen

#: seconds a Python process importing the harness takes to answer hello on an idle machine
START = 2.0


class _Started(ProcessFactory):
    """A factory whose first adapter's process is already running and has answered hello; the
    adapters after it start as any ``exec:`` adapter's do."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        first = ProcessAdapter(argv, self.limits)
        try:
            first.hello(timeout=within(START))
        except BaseException:
            first.close()
            raise
        self.first: ProcessAdapter | None = first

    def __call__(self) -> ProcessAdapter:
        first, self.first = self.first, None
        return first if first is not None else super().__call__()


@contextlib.contextmanager
def started(adapter: str) -> Iterator[AdapterInfo]:
    """The ``exec:`` adapter ``adapter``, its process started and past its hello before the
    replay, so that the replay's time limit holds the adapter's calls and none of its start-up
    (a Python process importing the harness takes a second or more on a loaded machine): a test
    can then give a hang a short limit. The process is closed afterwards if no replay took it."""
    factory = _Started(shlex.split(adapter.removeprefix("exec:")))
    try:
        yield AdapterInfo(adapter, "session", "external", factory)
    finally:
        if factory.first is not None:
            factory.first.close()


@contextlib.contextmanager
def collected() -> Iterator[None]:
    """Around a test: afterwards, the replay threads it abandoned have ended and what it left
    unreferenced is collected, so that a pipe or process it leaked shows (a ResourceWarning,
    an error) in that test, not in a later one. The collection walks what the test made, not
    the whole heap (``frozen``): it took seconds a test."""
    with frozen():
        yield
        for thread in threading.enumerate():
            if thread.name == "harness-replay":
                thread.join(within(5))
        gc.collect()
