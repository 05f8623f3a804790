"""``drive_blocking`` over a fake blocking library (no real one): what its callback and its return
hand over comes out at the read that produced it, a cancelled read or a closed generator ends
the worker, and what the worker raises ``drive()`` raises."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.bridge import ReadsClosed, WorkerStuck, drive_blocking
from harness.adapters.driver.reference import OpenAIChatDriver
from harness.replay import replay
from harness.scenario import load_scenario

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"


class Cancelled(BaseException):
    """What the source raises at the read a test cancels, as the harness's StreamCancelled."""


class Source:
    """Chunks that count their reads, cancel one if asked and note that they were closed."""

    def __init__(self, chunks: list[str], cancel_at: int | None = None) -> None:
        self.chunks = chunks
        self.cancel_at = cancel_at
        self.reads = 0
        self.closed = False
        self.reader: threading.Thread | None = None

    def __iter__(self) -> Source:
        return self

    def __next__(self) -> str:
        self.reader = threading.current_thread()
        if self.cancel_at is not None and self.reads >= self.cancel_at:
            raise Cancelled
        if self.reads >= len(self.chunks):
            raise StopIteration
        self.reads += 1
        return self.chunks[self.reads - 1]

    def close(self) -> None:
        self.closed = True


def at_reads(outputs: Iterator[Any], source: Source) -> list[tuple[Any, int]]:
    """Each output with the reads made when it came out, as the harness records it."""
    return [(output, source.reads) for output in outputs]


def streaming_call(reads: Iterator[str], callback: Callable[[str], None]) -> str:
    """A library's blocking call: one callback per chunk read, the joined text returned."""
    seen = []
    for chunk in reads:
        callback(chunk.upper())
        seen.append(chunk)
    return "".join(seen)


def run_streaming(reads: Iterator[str], emit: Callable[[str], None]) -> list[str]:
    return [f"done:{streaming_call(reads, emit)}"]


def finishes_within(seconds: float, body: Callable[[], object]) -> None:
    """Run ``body()``, failing if it takes longer than ``seconds`` (a hang); what it raises is
    raised here."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            body()
        except BaseException as exc:
            raised.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(seconds)
    assert not runner.is_alive(), f"still running after {seconds}s"
    if raised:
        raise raised[0]


def test_each_callback_output_comes_out_at_the_read_that_produced_it() -> None:
    source = Source(["a", "b", "c"])
    outputs = at_reads(drive_blocking(run_streaming, source), source)
    assert outputs == [("A", 1), ("B", 2), ("C", 3), ("done:abc", 3)]
    assert source.closed


def test_an_output_waits_for_the_reads_that_complete_it() -> None:
    """A library that reads two chunks per output: each output at the second read."""

    def pairs(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        for first in reads:
            emit(first + next(reads, ""))

    source = Source(["a", "b", "c", "d"])
    assert at_reads(drive_blocking(pairs, source), source) == [("ab", 2), ("cd", 4)]


def test_the_reads_are_made_by_the_thread_running_drive() -> None:
    source = Source(["a"])
    list(drive_blocking(run_streaming, source))
    assert source.reader is threading.current_thread()


def test_what_the_worker_raises_drive_raises() -> None:
    failure = ValueError("the library failed")

    def fails(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        emit(next(reads))
        raise failure

    source = Source(["a", "b"])
    outputs = drive_blocking(fails, source)
    assert next(outputs) == "a"
    with pytest.raises(ValueError) as raised:
        next(outputs)
    assert raised.value is failure
    assert source.closed


def test_a_cancelled_read_propagates_and_ends_the_worker() -> None:
    ended: list[BaseException] = []

    def reading(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        try:
            for chunk in reads:
                emit(chunk)
        except BaseException as exc:
            ended.append(exc)
            raise

    source = Source(["a", "b", "c"], cancel_at=1)
    outputs: list[str] = []

    def run() -> None:
        for output in drive_blocking(reading, source):
            outputs.append(output)

    with pytest.raises(Cancelled):
        finishes_within(5, run)
    assert outputs == ["a"]
    assert len(ended) == 1
    assert isinstance(ended[0], ReadsClosed)
    assert source.closed


def test_closing_the_generator_ends_a_worker_waiting_for_its_read() -> None:
    in_library = threading.Event()
    ended = threading.Event()

    def reading(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        try:
            for chunk in reads:
                emit(chunk)
                in_library.set()
        finally:
            ended.set()

    source = Source(["a", "b", "c"])
    outputs = drive_blocking(reading, source)
    assert next(outputs) == "a"
    in_library.wait(5)
    finishes_within(5, outputs.close)
    assert ended.is_set()
    assert source.closed
    assert source.reads == 1


def test_every_read_after_the_close_raises() -> None:
    """A library that catches the close and reads on gets it again, never a clean end."""
    after: list[str] = []

    def stubborn(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        for _ in range(3):
            try:
                emit(next(reads))
            except ReadsClosed:
                after.append("closed")

    source = Source(["a", "b", "c"])
    outputs = drive_blocking(stubborn, source)
    assert next(outputs) == "a"
    finishes_within(5, outputs.close)
    assert after == ["closed", "closed"]


def test_a_worker_that_goes_on_after_the_close_is_reported_not_waited_for() -> None:
    release = threading.Event()

    def ignores_the_close(reads: Iterator[str], emit: Callable[[str], None]) -> None:
        emit(next(reads))
        release.wait(10)  # stuck elsewhere than in a read

    source = Source(["a", "b"])
    outputs = drive_blocking(ignores_the_close, source, join_within=0.2)
    assert next(outputs) == "a"
    started = time.monotonic()
    with pytest.raises(WorkerStuck, match=r"went on for 0\.2s"):
        outputs.close()
    assert time.monotonic() - started < 2
    assert source.closed
    release.set()


class BridgedReferenceDriver:
    """The reference Chat Completions driver, run as a blocking call whose callback gets each
    output: through the bridge, the harness must judge it as it judges the driver itself."""

    layers = ("driver",)
    dialect = "openai-chat"

    def drive(self, chunks: Iterator[str]) -> Iterator[Any]:
        yield from drive_blocking(self.run, chunks)

    def run(self, reads: Iterator[str], emit: Callable[[Any], None]) -> None:
        for output in OpenAIChatDriver().drive(reads):
            emit(output)


@pytest.mark.parametrize(
    "name", ["parallel-calls", "text-before-tool-call", "cancel-after-complete-call"]
)
def test_a_bridged_driver_passes_the_per_call_timing_rules(name: str) -> None:
    scenario = load_scenario(DRIVER / f"{name}.yaml")
    result = replay(scenario, "tests.libs.test_bridge:BridgedReferenceDriver")
    assert result.status == "pass", result.violations


def test_a_time_to_join_within_that_is_no_time_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="join_within=0 must be a positive number"):
        drive_blocking(run_streaming, Source([]), join_within=0)
