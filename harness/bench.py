"""How much the harness adds on top of the adapter's own work, on one long session trace."""

from __future__ import annotations

import gc
import resource
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.adapters.registry import BUNDLED
from harness.replay import replay
from harness.replay.session import prepare
from harness.scenario import SessionScenario, parse_scenario
from harness.scenario.generators import burst_run

_TEMPLATE = """
id: bench-delegation
title: One delegation with a long sub-session burst
description: Benchmark trace; mostly sub-session events between a tool's start and completion.
source: harness bench
layer: session
trace:
  - user_message: {{text: "Delegate the refactoring."}}
  - interaction_start: {{id: i1}}
  - message: {{id: m1, text: "Handing this to a sub-agent."}}
  - tool_select: {{calls: [{{id: toolu_delegate, name: act_oneshot}}]}}
  - tool_executing: {{calls: [{{id: toolu_delegate, name: act_oneshot}}]}}
  - burst: {{session: sub, parent: main, events: {burst}, seed: 1, depth: 3}}
  - tool_completed:
      calls: [{{id: toolu_delegate, name: act_oneshot}}]
      results: [{{id: toolu_delegate, content: done}}]
  - message: {{id: m2, text: "The sub-agent finished."}}
  - interaction_end: {{id: i1}}
  - user_turn_start:
"""


#: the template's events besides the burst's
_AROUND_BURST = 14


@dataclass(frozen=True)
class BenchResult:
    events: int
    harness_seconds: float
    #: the bare loop: every event fed, then the adapter's final view read once
    bare_seconds: float
    #: reading the trace alone, expanding its generated events: part of both sides' time
    expand_seconds: float = 0.0
    #: parsing the scenario and deriving what the rules expect (the ledger), once
    load_seconds: float = 0.0
    #: the process's peak resident memory, in MiB, when the runs are done
    peak_rss_mb: float = 0.0
    #: the bare loop's feeding alone, without reading the final view
    feed_seconds: float = 0.0

    @property
    def events_per_second(self) -> float:
        return self.events / self.harness_seconds

    @property
    def overhead_ratio(self) -> float:
        return self.harness_seconds / self.bare_seconds

    @property
    def feed_only_ratio(self) -> float:
        """The harness against feeding alone: the adapter's work of showing its view counted
        as the harness's."""
        return self.harness_seconds / self.feed_seconds

    @property
    def loop_overhead_ratio(self) -> float:
        """``overhead_ratio`` without the expansion both sides pay: the replay loop against the
        bare loop's feeding and final view."""
        return (self.harness_seconds - self.expand_seconds) / (
            self.bare_seconds - self.expand_seconds
        )

    def lines(self) -> list[str]:
        return [
            f"events={self.events}",
            f"harness_seconds={self.harness_seconds:.6f}",
            f"bare_seconds={self.bare_seconds:.6f}",
            f"feed_seconds={self.feed_seconds:.6f}",
            f"expand_seconds={self.expand_seconds:.6f}",
            f"events_per_second={self.events_per_second:.0f}",
            f"overhead_ratio={self.overhead_ratio:.3f}",
            f"feed_only_ratio={self.feed_only_ratio:.3f}",
            f"loop_overhead_ratio={self.loop_overhead_ratio:.3f}",
            f"load_seconds={self.load_seconds:.3f}",
            f"peak_rss_mb={self.peak_rss_mb:.0f}",
        ]


def burst_size(events: int) -> int:
    """The burst size that makes the bench trace ``events`` events long, or a few fewer: a
    burst's size is a target its random walk can pass by a few events, so the size asked for
    is corrected for what the seed makes."""
    target = size = max(4, events - _AROUND_BURST)
    for _ in range(3):
        made = len(burst_run("sub", "main", size, 1, 3, (), 0))
        if made <= target:
            break
        size = max(4, size - (made - target))
    return size


def bench_scenario(events: int, *, size: int | None = None) -> SessionScenario:
    burst = burst_size(events) if size is None else size
    scenario = parse_scenario(_TEMPLATE.format(burst=burst), "<bench>")
    assert isinstance(scenario, SessionScenario)  # the template is a session scenario
    return scenario


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _timed(run: Callable[[], object]) -> float:
    """One run's seconds, with the cyclic collector paused as ``timeit`` does.

    A collection walks every live object, the 100,000-event trace included, so whichever side
    happened to trigger one more of them would look slower for reasons that are not its work.
    """
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start
    finally:
        gc.enable()


def run_bench(
    events: int = 100_000, repeats: int = 15, adapter: str = "session-reference"
) -> BenchResult:
    """Replay an ``events``-event trace through the harness and through a bare loop."""
    size = burst_size(events)
    start = time.perf_counter()
    scenario = bench_scenario(events, size=size)
    prepare(scenario)  # like expanding the events: once per scenario, shared by every replay
    load_seconds = time.perf_counter() - start
    info = BUNDLED[adapter]
    trace = scenario.trace

    def harness_run() -> None:
        result = replay(scenario, info, timeout=60.0)
        if result.status != "pass":
            raise RuntimeError(
                f"the bench trace did not pass: {result.status} {result.violations[:3]}"
            )

    def bare_loop(view: bool) -> None:
        """What a test of the adapter does without the harness: feed every event, then read
        what the adapter shows once (``view``), as the harness does at the end of the trace."""
        consumer: Any = info.factory()
        feed = consumer.feed
        for event in trace:
            feed(event)
        if view:
            consumer.notifications()
            consumer.transcript()

    def bare_run(view: bool = True) -> None:
        # in a thread of its own, as the replay runs in one (for the watchdog)
        worker = threading.Thread(target=bare_loop, args=(view,))
        worker.start()
        worker.join()

    def expand_run() -> None:
        for _ in trace:
            pass

    # Interleaved, so all sides see the same machine; the fastest run of each is its cost.
    bare = fed = harnessed = expanded = float("inf")
    for _ in range(repeats):
        expanded = min(expanded, _timed(expand_run))
        fed = min(fed, _timed(lambda: bare_run(view=False)))
        bare = min(bare, _timed(bare_run))
        harnessed = min(harnessed, _timed(harness_run))
    return BenchResult(
        len(trace), harnessed, bare, expanded, load_seconds, peak_rss_mb(), feed_seconds=fed
    )


# -- a recording replayed through vcrpy and its SDK, against directly into a driver --------------


@dataclass(frozen=True)
class WireBenchResult:
    label: str
    dialect: str
    interaction: int | None
    adapter: str
    rounds: int
    #: the best round of each: vcrpy answering the SDK's request, and the direct replay
    sdk_seconds: float
    direct_seconds: float

    @property
    def vcr_ratio(self) -> float:
        return self.sdk_seconds / self.direct_seconds

    def lines(self) -> list[str]:
        return [
            f"recording={self.label}",
            f"dialect={self.dialect}",
            f"interaction={'-' if self.interaction is None else self.interaction}",
            f"direct_adapter={self.adapter}",
            f"rounds={self.rounds}",
            f"sdk_seconds={self.sdk_seconds:.6f}",
            f"direct_seconds={self.direct_seconds:.6f}",
            f"vcr_ratio={self.vcr_ratio:.2f}",
        ]


def run_wire_bench(
    path: str, interaction: int | None = None, rounds: int = 7, adapter: str | None = None
) -> WireBenchResult:
    """Replay one recorded response through vcrpy and its SDK (``SdkReplay``) and directly into
    a driver adapter (``DirectReplay``, its dialect's reference by default), interleaved; the
    best of ``rounds`` of each, after one warm-up round each that is not counted.

    Reading and decoding the recording happens once, before either side runs, as expanding a
    scenario's events does; vcrpy still reads a stock cassette on every use, as it always does.
    """
    from harness.wirereplay import DirectReplay, SdkReplay, recorded_stream

    response = recorded_stream(path, interaction)
    sdk = SdkReplay(response)
    direct = DirectReplay(response, adapter)
    sdk.run(), direct.run()  # warm-up: imports, vcrpy's first patching, first-call caches
    sdk_best = direct_best = float("inf")
    for _ in range(rounds):
        sdk_best = min(sdk_best, _timed(sdk.run))
        direct_best = min(direct_best, _timed(direct.run))
    return WireBenchResult(
        response.label,
        response.dialect or "",
        response.interaction,
        direct.info.name,
        rounds,
        sdk_best,
        direct_best,
    )


# -- long and heavy session inputs: memory, load and replay time, the verdict ---------------------


def _figures(label: str, scenario: SessionScenario, load_seconds: float, adapter: str) -> list[str]:
    """Replay a loaded scenario once; its figures and verdict, one ``name=value`` a line."""
    start = time.perf_counter()
    prepare(scenario)
    prepare_seconds = time.perf_counter() - start
    start = time.perf_counter()
    result = replay(scenario, BUNDLED[adapter], timeout=60.0)
    replay_seconds = time.perf_counter() - start
    lines = [
        f"input={label}",
        f"events={len(scenario.trace)}",
        f"adapter={adapter}",
        f"status={result.status}",
        f"violations={len(result.violations)}",
    ]
    if result.violations:
        first = result.violations[0]
        kind = scenario.trace.kind_at(first.event_index)
        lines.append(f"first_violation={first.rule} at event {first.event_index} ({kind})")
    if result.error:
        lines.append(f"error={result.error}")
    return [
        *lines,
        f"load_seconds={load_seconds:.3f}",
        f"prepare_seconds={prepare_seconds:.3f}",
        f"replay_seconds={replay_seconds:.3f}",
        f"peak_rss_mb={peak_rss_mb():.0f}",
    ]


def run_long(events: int, adapter: str = "session-reference") -> list[str]:
    """The bench trace of ``events`` events replayed once through ``adapter`` (a mutant, say):
    the verdict, where the first violation is, and what loading and replaying cost."""
    size = burst_size(events)
    start = time.perf_counter()
    scenario = bench_scenario(events, size=size)
    return _figures(f"burst of {events} events", scenario, time.perf_counter() - start, adapter)


def heavy_literal_text(steps: int) -> str:
    """A scenario of ``steps`` literal steps: messages of one delta each, in one interaction."""
    out = [
        "id: heavy-literal",
        "title: Many literal steps",
        "description: A long trace written out step by step.",
        "source: harness bench",
        "layer: session",
        "trace:",
        '  - user_message: {text: "Go."}',
        "  - interaction_start: {id: i1}",
    ]
    for n in range((steps - 4) // 3):
        out.append(f"  - message_start: {{id: m{n}}}")
        out.append(f'  - message_delta: {{id: m{n}, text: "piece {n} "}}')
        out.append(f"  - message_end: {{id: m{n}}}")
    out += ["  - interaction_end: {id: i1}", "  - user_turn_start:"]
    return "\n".join(out) + "\n"


def heavy_message_text(megabytes: float) -> str:
    """A scenario with one message of ``megabytes`` MB of text, streamed a few words a delta."""
    words = " ".join(["lorem", "ipsum", "dolor", "sit", "amet", "consectetur"])
    text = (words + " ") * int(megabytes * 1_000_000 / (len(words) + 1))
    return (
        "id: heavy-message\n"
        "title: One very long message\n"
        "description: A message of many megabytes.\n"
        "source: harness bench\n"
        "layer: session\n"
        "trace:\n"
        '  - user_message: {text: "Write it all."}\n'
        "  - interaction_start: {id: i1}\n"
        f'  - message: {{id: m1, text: "{text.strip()}"}}\n'
        "  - interaction_end: {id: i1}\n"
        "  - user_turn_start:\n"
    )


def run_heavy(which: str, adapter: str = "session-reference") -> list[str]:
    """``literal`` (200,000 literal steps) or ``message`` (a 10 MB message), loaded from its
    YAML text and replayed once."""
    if which == "literal":
        text, label = heavy_literal_text(200_000), "200000 literal steps"
    elif which == "message":
        text, label = heavy_message_text(10), "a 10 MB message"
    else:
        raise ValueError(f"no heavy input {which!r} (literal, message)")
    start = time.perf_counter()
    scenario = parse_scenario(text, f"<{which}>")
    load_seconds = time.perf_counter() - start
    assert isinstance(scenario, SessionScenario)  # both are session scenarios
    return _figures(label, scenario, load_seconds, adapter)


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.bench long --events N [--adapter A]`` or ``heavy literal|message``:
    one input per process, so that the peak memory printed is that input's."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m harness.bench")
    sub = parser.add_subparsers(dest="what", required=True)
    long = sub.add_parser("long", help="the bench trace replayed once, through any adapter")
    long.add_argument("--events", type=int, default=1_000_000)
    long.add_argument("--adapter", default="session-reference")
    heavy = sub.add_parser("heavy", help="a heavy valid input replayed once")
    heavy.add_argument("which", choices=("literal", "message"))
    heavy.add_argument("--adapter", default="session-reference")
    args = parser.parse_args(argv)
    if args.what == "long":
        print("\n".join(run_long(args.events, args.adapter)))
    else:
        print("\n".join(run_heavy(args.which, args.adapter)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
