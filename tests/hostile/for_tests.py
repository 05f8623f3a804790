"""What every hostile-input test asserts of one input: the reader gives a value, or a located
``HarnessError``, within a time bound; never another exception.

Each call is counted per class of input, with its time (and, when ``HARNESS_HOSTILE_MEMORY=1``,
its peak memory under tracemalloc), so that ``python -m tests.hostile.figures`` can report
the inputs tried and the worst case seen.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from harness._errors import HarnessError, ScenarioError, UsageError, WireError
from harness.cli import main
from tests.budgets import examples, within

ROOT = Path(__file__).resolve().parents[2]
#: the issue's bound for one input on an idle machine (the README's figures are measured against
#: it); a test stops only a hang, so it allows a loaded machine's slowness on top (``within``)
TIME_LIMIT = within(20.0)
MEASURE_MEMORY = os.environ.get("HARNESS_HOSTILE_MEMORY") == "1"

#: bounded for CI: a few seconds a test
FUZZ = settings(
    deadline=None,
    max_examples=int(os.environ.get("HARNESS_HOSTILE_EXAMPLES", examples(40))),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@dataclass
class Figures:
    inputs: int = 0
    errors: int = 0
    worst_seconds: float = 0.0
    worst_bytes: int = 0


FIGURES: dict[str, Figures] = {}


def assert_located(exc: HarnessError) -> None:
    """A refusal names its file and line, and says what is wrong in a line or a few."""
    if isinstance(exc, ScenarioError):
        assert exc.problems, exc
        for problem in exc.problems:
            assert problem.path and problem.line >= 1 and problem.message.strip(), problem
    elif isinstance(exc, WireError):
        assert exc.source and exc.line >= 1 and exc.message.strip(), exc
    else:
        assert isinstance(exc, UsageError), f"{type(exc).__name__}: {exc}"
        assert str(exc).strip()
    assert "Traceback" not in str(exc)


class Hung(AssertionError):
    """An input the reader was still busy with long after the time limit."""


@contextlib.contextmanager
def _hang_guard(kind: str) -> Iterator[None]:
    """Ends a reader that loops without end (an input that hangs it) with ``Hung``, well past
    the time limit, so that a hang fails its test instead of stalling the suite. Only in the
    main thread (signals are delivered there), which is where pytest runs tests."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise Hung(f"{kind}: one input was still being read after {3 * TIME_LIMIT:.0f}s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 3 * TIME_LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def outcome(kind: str, run: Callable[[], Any]) -> Any:
    """``run()``'s value, or the located ``HarnessError`` it raised; anything else fails."""
    figures = FIGURES.setdefault(kind, Figures())
    if MEASURE_MEMORY:
        tracemalloc.start()
    started = time.perf_counter()
    try:
        with _hang_guard(kind):
            value = run()
    except HarnessError as exc:
        assert_located(exc)
        figures.errors += 1
        value = exc
    finally:
        elapsed = time.perf_counter() - started
        figures.inputs += 1
        figures.worst_seconds = max(figures.worst_seconds, elapsed)
        if MEASURE_MEMORY:
            figures.worst_bytes = max(figures.worst_bytes, tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    # tracemalloc slows a reader that allocates much (a long cassette) about threefold
    limit = 3 * TIME_LIMIT if MEASURE_MEMORY else TIME_LIMIT
    assert elapsed < limit, f"{kind}: one input took {elapsed:.1f}s"
    return value


def run_cli(kind: str, *argv: str) -> tuple[int, str, str]:
    """``harness ARGV`` in this process: its exit code, stdout and stderr. Exit 2 must come
    with ``file:line:`` messages, and no exit code with a traceback."""
    out, err = io.StringIO(), io.StringIO()

    def call() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return main(list(argv))

    code = outcome(kind, call)
    assert code in (0, 1, 2), (code, err.getvalue())
    assert "Traceback" not in err.getvalue()
    if code == 2:
        assert err.getvalue().strip(), "exit 2 says why"
    return code, out.getvalue(), err.getvalue()


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


def long_call(folder: Path, size: int = 20_000) -> Path:
    """A driver scenario of a call with ``size`` characters of arguments, in 20 chunks."""
    arguments = json.dumps("x" * size)
    return write(
        folder / "long.yaml",
        "id: long\ntitle: A long call\ndescription: d\nsource: s\nlayer: driver\n"
        "rules: [strict-assembly]\ntrace:\n  - cycle:\n      blocks:\n"
        "        - text: Writing it.\n"
        f"        - tool_use: {{id: c1, name: w, input: {{content: {arguments}}}, chunks: 20}}\n",
    )


def calls_to(monkeypatch: Any, owner: Any, name: str) -> list[tuple[Any, ...]]:
    """The arguments of each call to ``owner.name`` from now on (the call itself goes on as
    before): how many times a large input's work is done."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def driver_runs_held(monkeypatch: Any) -> list[int]:
    """Watch the cases replayed from now on (``harness.replay.run.replay``): the list fills, as
    each case starts (skipped ones too), with how many earlier cases' ``DriverRun`` (their
    streams and outputs) are still held. A weak reference to each, not a scan of every object: that took 104 s in
    a loaded worker."""
    import weakref

    from harness.replay import run as run_module

    runs: list[weakref.ref[Any]] = []
    alive: list[int] = []
    real = run_module.replay

    def replay(*args: Any, **kwargs: Any) -> Any:
        alive.append(sum(run() is not None for run in runs))
        result = real(*args, **kwargs)
        if result.driver_run is not None:  # a case skipped before its driver ran has none
            runs.append(weakref.ref(result.driver_run))
        return result

    monkeypatch.setattr(run_module, "replay", replay)
    return alive
