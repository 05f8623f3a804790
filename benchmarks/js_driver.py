"""What a chunk costs a JavaScript driver over the protocol, against the in-process reference
driver, on the same turn in one run.

    .venv/bin/python benchmarks/js_driver.py [--cycles N] [--rounds R] [--exec COMMAND ...]

The turn is N tool cycles on an agent's stream (dialect anthropic-agent,
``harness.bench_driver.turn_of_calls``), its chunks made once. Each side drives the whole turn
R times, interleaved, and its best round counts: the reference driver in process
(``drive`` over a list of the chunks; the bytes-reading reference for a process that reads
bytes, given the same events as bytes), and each command as a process started beforehand
(``ProcessAdapter.drive``: the JSON lines both ways, the pipes, the event loop's settling and the
driver's own work; its start-up is not counted). Prints microseconds per chunk and the ratio to
the reference. By default the commands are the JS example driver on the Node helper, reading
through ``ctx.chunks`` and through ``ctx.fetch``, and the Python process that wraps the
reference driver (the protocol's cost without Node).
"""

from __future__ import annotations

import argparse
import gc
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness.adapters.process import ProcessAdapter
from harness.adapters.registry import BUNDLED
from harness.bench_driver import turn_of_calls
from harness.codecs import dialects
from harness.model.driver import TurnEnd
from harness.replay.driver import DriverReplay
from harness.scenario import DriverScenario, parse_scenario

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = {
    "events": "driver-anthropic-agent-reference",
    "bytes": "driver-anthropic-agent-bytes-reference",
}
COMMANDS = (
    f"node {ROOT / 'examples/drivers/js/driver.mjs'}",
    f"node {ROOT / 'examples/drivers/js/driver.mjs'} --fetch",
    f"{sys.executable} {ROOT / 'tests/processes/driver_process.py'} driver-anthropic-agent-reference",
)


def best(run: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` runs, in seconds, with the cyclic collector paused."""
    fastest = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            fastest = min(fastest, time.perf_counter() - start)
        finally:
            gc.enable()
    return fastest


def turn_through(drive: Callable[[Iterator[Any]], Iterator[Any]], chunks: list[Any]) -> None:
    outputs = list(drive(iter(chunks)))
    if not outputs or not isinstance(outputs[-1], TurnEnd):
        raise RuntimeError(f"the turn did not end: {outputs[-3:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/js_driver.py", description=__doc__)
    parser.add_argument("--cycles", type=int, default=1000, help="tool cycles in the turn")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds of each side")
    parser.add_argument("--exec", action="append", dest="commands", metavar="COMMAND")
    args = parser.parse_args(argv)
    scenario = parse_scenario(turn_of_calls(args.cycles, cycles=True), "<bench>")
    assert isinstance(scenario, DriverScenario)
    events = [c.data for c in DriverReplay(scenario, []).chunks(dialects()["anthropic-agent"])]
    given: dict[str, list[Any]] = {"events": events, "bytes": [e.encode() for e in events]}
    print(f"chunks={len(events)} cycles={args.cycles} rounds={args.rounds}")

    reference: dict[str, float] = {}
    for reads, name in REFERENCE.items():
        factory: Any = BUNDLED[name].factory
        turn_through(factory().drive, given[reads])  # warm-up

        def in_process(factory: Any = factory, chunks: list[Any] = given[reads]) -> None:
            turn_through(factory().drive, chunks)

        reference[reads] = best(in_process, args.rounds) / len(events)
        print(f"{name} (in process): {reference[reads] * 1e6:.2f} us/chunk")

    for command in args.commands or COMMANDS:
        adapter = ProcessAdapter(shlex.split(command))
        try:
            reads = adapter.reads
            turn_through(adapter.drive, given[reads])  # warm-up: start-up, the JIT

            def over_protocol(
                adapter: ProcessAdapter = adapter, chunks: list[Any] = given[reads]
            ) -> None:
                turn_through(adapter.drive, chunks)

            seconds = best(over_protocol, args.rounds) / len(events)
        finally:
            adapter.close()
        print(
            f"{command} (reads {reads}): {seconds * 1e6:.1f} us/chunk, "
            f"ratio={seconds / reference[reads]:.1f} to the reference in process"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
