"""Run a replay in a worker thread and notice when the adapter stops making progress.

A per-call ``wait_for`` would cost more than the adapter's own work on 100,000-event traces, so
the replay loop only records where it is (a session replay: the iterator over the batch of
events it feeds, read by ``Progress.at`` when the watchdog looks, nothing stored per event; a
driver replay: the chunk index), bumps ``calls`` before any other adapter call, and the
watchdog, in the calling thread, checks that one of them moves at least once per time limit.
The harness's own work in the worker (encoding, checking the rules) is timed apart
(``Progress.harness``) and left out of that limit: the limit is the adapter's. A module starting
to load counts as progress too: an adapter that imports its library when it is created or first
called is importing, not hung, so the import's time counts against no call (one module that
never finishes loading still does). A hung worker cannot be killed; it is a daemon thread and is
abandoned (an async body cancels its task first).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import length_hint
from typing import Any

from harness._errors import AdapterError


@dataclass(slots=True)
class Progress:
    #: the event (or chunk) last handed to the adapter, when no ``batch`` is being fed
    index: int = -1
    calls: int = 0
    #: the adapter method being called, for the message when it hangs
    phase: str = "creating the adapter"
    on_hang: Callable[[], None] | None = None
    #: seconds the harness spent on its own work in the worker, stretches ended so far
    harness_seconds: float = 0.0
    #: when the running stretch of the harness's own work began (None: none runs)
    harness_since: float | None = None
    #: the iterator over the batch of events being fed, if any, and the index after the
    #: batch's last event: the index is read from them when asked for, so the feed loop
    #: stores nothing per event
    batch: Iterator[Any] | None = None
    batch_end: int = 0

    def at(self) -> int:
        """The index of the event (or chunk) the adapter was handed last."""
        batch = self.batch
        if batch is None:
            return self.index
        return self.batch_end - length_hint(batch) - 1  # a tuple's iterator: the ones left

    def harness(self) -> _HarnessStretch:
        """``with progress.harness():`` times the block as the harness's work, not the
        adapter's."""
        return _HarnessStretch(self)

    def harness_time(self, now: float) -> float:
        """The harness's seconds so far, the running stretch included."""
        since = self.harness_since
        return self.harness_seconds + (0.0 if since is None else now - since)

    def describe(self) -> str:
        """What the adapter was doing, in words: the phase, and where in the trace or stream."""
        index = self.at()
        if self.phase == "feed":
            return f"feed() was handling event {index}"
        if self.phase == "drive":
            if index <= 0:  # ``index`` counts the chunks read; none yet
                return "drive() had not read a chunk: it neither asked for the first nor yielded"
            return (
                f"drive() was handling chunk {index} of the stream (it had read "
                f"{index} chunks and neither yielded nor asked for more)"
            )
        where = f" after event {index}" if index >= 0 else ""
        return f"{self.phase}{where}"


class _HarnessStretch:
    """One stretch of the harness's own work (a class, not a generator: it runs at every
    checkpoint of a long trace)."""

    __slots__ = ("progress", "start")

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def __enter__(self) -> None:
        self.start = self.progress.harness_since = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        # the total first: the watchdog reads ``harness_since`` first, so at worst it counts a
        # stretch twice, never not at all
        progress = self.progress
        progress.harness_seconds += time.perf_counter() - self.start
        progress.harness_since = None


class Hung(AdapterError):
    """The adapter stopped making progress for longer than the time limit."""

    def __init__(self, progress: Progress, seconds: float) -> None:
        super().__init__(
            f"the adapter did not return within {seconds:g}s: {progress.describe()}",
            index=progress.at(),
        )


def run_guarded(
    body: Callable[[Progress], Any], *, limit: float, progress: Progress | None = None
) -> Any:
    """Run ``body(progress)`` in a worker thread and return its value.

    Raises ``Hung`` if the body's progress stalls for more than ``limit`` seconds of the
    adapter's time (calling ``progress.on_hang`` first, so an async body can cancel its task);
    re-raises what the body raised. ``progress``: the one to hand the body (a new one if None),
    to read the harness's time in it afterwards.
    """
    progress = Progress() if progress is None else progress
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = body(progress)
        except BaseException as exc:  # handed to the calling thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="harness-replay", daemon=True)
    worker.start()
    poll = min(0.05, limit / 4)
    last, since = (-2, -1, -1), time.perf_counter()
    harness_then = 0.0  # the harness's seconds at ``since``
    while True:
        worker.join(poll)
        if not worker.is_alive():
            break
        now = time.perf_counter()
        harness_now = progress.harness_time(now)
        state = (progress.at(), progress.calls, len(sys.modules))  # see the module's doc
        if state != last:
            last, since, harness_then = state, now, harness_now
        elif now - since - (harness_now - harness_then) > limit:
            if progress.on_hang is not None:
                progress.on_hang()
            raise Hung(progress, limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
