"""Where a heavy driver replay spends its time: one turn of many tool calls (or a recording)
against the reference driver of each dialect, the harness's phases timed apart from the
driver's own work.

    python -m harness.bench_driver --calls 1000            # one message of 1,000 parallel calls
    python -m harness.bench_driver --calls 1000 --cycles   # 1,000 tool cycles on an agent stream
    python -m harness.bench_driver --wire scenario.yaml    # a wire: scenario, e.g. a 50 MB body

Each phase is timed in CPU seconds of this process (``time.process_time``), so that other work
on a shared machine does not inflate the figures; ``replay_*`` are the wall-clock seconds the
replay itself reports (``ScenarioResult.adapter_seconds`` and ``harness_seconds``).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.model.driver import turn_facts
from harness.replay import replay
from harness.replay._watchdog import Progress
from harness.replay.driver import DriverReplay, SyncSource
from harness.rules.driver_timing import DriverTimeline
from harness.rules.registry import rules_for
from harness.scenario import DriverScenario, load_scenario, parse_scenario

T = TypeVar("T")

#: the reference driver of each dialect, as a user would name it
REFERENCES = (
    "driver-anthropic-reference",
    "driver-anthropic-agent-reference",
    "driver-openai-chat-reference",
    "driver-openai-responses-reference",
    "driver-gemini-sse-reference",
    "driver-gemini-json-array-reference",
    "driver-ag-ui-reference",
)


def turn_of_calls(calls: int, *, cycles: bool) -> str:
    """A driver scenario: ``calls`` tool calls, each in a message cycle of its own followed by
    a final answer (``cycles``), or all in one message after some text."""
    head = (
        f"id: bench-{'cycles' if cycles else 'parallel'}-{calls}\ntitle: {calls} tool calls\n"
        "description: Benchmark turn.\nsource: harness bench_driver\nlayer: driver\ntrace:\n"
    )
    call = "tool_use: {{id: toolu_{n:06d}, name: read_file, input: {{path: src/file{n}.py}}}}"
    if cycles:
        steps = [f"  - cycle:\n      blocks:\n        - {call.format(n=n)}" for n in range(calls)]
        steps.append('  - cycle:\n      blocks:\n        - text: "All files read."')
    else:
        steps = ['  - cycle:\n      blocks:\n        - text: "Reading every file."']
        steps += [f"        - {call.format(n=n)}" for n in range(calls)]
    return head + "\n".join(steps) + "\n"


@dataclass
class Phases:
    """CPU seconds of each phase of one replay, and its verdict."""

    adapter: str
    status: str = ""
    chunks: int = 0
    encode: float = 0.0
    drive: float = 0.0
    rules: dict[str, float] = field(default_factory=dict)
    replay_adapter: float = 0.0
    replay_harness: float = 0.0

    def lines(self) -> list[str]:
        slowest = max(self.rules.items(), key=lambda item: item[1], default=("none", 0.0))
        return [
            f"{self.adapter}: status={self.status} chunks={self.chunks} "
            f"encode_seconds={self.encode:.3f} adapter_seconds={self.drive:.3f} "
            f"rule_seconds={sum(self.rules.values()):.3f} "
            f"(slowest {slowest[0]} {slowest[1]:.3f}) "
            f"replay_adapter_seconds={self.replay_adapter:.3f} "
            f"replay_harness_seconds={self.replay_harness:.3f}"
        ]


def _cpu(run: Callable[[], T]) -> tuple[T, float]:
    start = time.process_time()
    value = run()
    return value, time.process_time() - start


def phases(scenario: DriverScenario, adapter: str) -> Phases:
    """Time one replay of ``scenario`` against a bundled sync driver, phase by phase, then
    replay it as ``harness run`` does for the verdict and the times the result reports."""
    out = Phases(adapter)
    instance: Any = BUNDLED[adapter].factory()
    codec = dialects()[instance.dialect]
    replayer = DriverReplay(scenario, [])
    if replayer.skip_reason(instance) is not None:
        out.status = "skip"
        return out
    chunks, out.encode = _cpu(lambda: replayer.chunks(codec))
    reads: Sequence[Any] = chunks
    if getattr(instance, "reads", "events") == "bytes":
        (reads, _), cut = _cpu(lambda: replayer.reads(chunks))
        out.encode += cut
    out.chunks = len(reads)
    source = SyncSource(reads, Progress(), None)
    _, out.drive = _cpu(lambda: list(_items(instance, source)))
    result = replay(scenario, adapter, timeout=600)
    out.status = result.status
    out.replay_adapter, out.replay_harness = result.adapter_seconds, result.harness_seconds
    if result.driver_run is None:  # the replay erred before the rules: nothing to time
        return out
    run = result.driver_run  # the run the replay's rules saw, timed again rule by rule
    _, expect = _cpu(lambda: turn_facts(scenario.turn))
    check, derive = _cpu(lambda: DriverTimeline(run))
    out.rules["(expectations)"] = expect + derive
    for rule in rules_for("driver"):
        start = time.process_time()
        list(rule.check(check))
        out.rules[rule.id] = time.process_time() - start
    return out


def _items(instance: Any, source: SyncSource) -> Iterator[Any]:
    yield from instance.drive(source)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.bench_driver", description=__doc__)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--calls", type=int, metavar="N", help="a turn of N tool calls")
    what.add_argument("--wire", metavar="SCENARIO", help="a driver scenario file (e.g. wire:)")
    parser.add_argument(
        "--cycles", action="store_true", help="with --calls: each call in a cycle of its own"
    )
    parser.add_argument(
        "--adapter", action="append", help="a bundled sync driver (default: every reference)"
    )
    args = parser.parse_args(argv)
    gc.collect()
    if args.calls is not None:
        text = turn_of_calls(args.calls, cycles=args.cycles)
        scenario, load = _cpu(lambda: parse_scenario(text, "<bench>"))
    else:
        scenario, load = _cpu(lambda: load_scenario(Path(args.wire)))
    if not isinstance(scenario, DriverScenario):
        parser.error("a driver scenario is needed")
    print(f"events={len(scenario.turn)} load_seconds={load:.3f}")
    for adapter in args.adapter or REFERENCES:
        print("\n".join(phases(scenario, adapter).lines()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
