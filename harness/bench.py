"""How much the harness adds on top of the adapter's own work, on one long session trace."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.adapters.registry import BUNDLED
from harness.replay import replay
from harness.replay.session import prepare
from harness.scenario import SessionScenario, parse_scenario

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


@dataclass(frozen=True)
class BenchResult:
    events: int
    harness_seconds: float
    bare_seconds: float

    @property
    def events_per_second(self) -> float:
        return self.events / self.harness_seconds

    @property
    def overhead_ratio(self) -> float:
        return self.harness_seconds / self.bare_seconds

    def lines(self) -> list[str]:
        return [
            f"events={self.events}",
            f"harness_seconds={self.harness_seconds:.6f}",
            f"bare_seconds={self.bare_seconds:.6f}",
            f"events_per_second={self.events_per_second:.0f}",
            f"overhead_ratio={self.overhead_ratio:.3f}",
        ]


def bench_scenario(events: int) -> SessionScenario:
    scenario = parse_scenario(_TEMPLATE.format(burst=max(4, events - 13)), "<bench>")
    assert isinstance(scenario, SessionScenario)  # the template is a session scenario
    return scenario


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
    events: int = 100_000, repeats: int = 7, adapter: str = "session-reference"
) -> BenchResult:
    """Replay an ``events``-event trace through the harness and through a bare loop."""
    scenario = bench_scenario(events)
    info = BUNDLED[adapter]
    trace = scenario.trace

    def harness_run() -> None:
        result = replay(scenario, info, timeout=60.0)
        if result.status != "pass":
            raise RuntimeError(
                f"the bench trace did not pass: {result.status} {result.violations[:3]}"
            )

    def bare_loop() -> None:
        consumer = info.factory()
        feed = consumer.feed  # type: ignore[attr-defined]
        for event in trace:
            feed(event)

    def bare_run() -> None:
        # in a thread of its own, as the replay runs in one (for the watchdog)
        worker = threading.Thread(target=bare_loop)
        worker.start()
        worker.join()

    prepare(scenario)  # like expanding the events: once per scenario, shared by every replay
    # Interleaved, so both sides see the same machine; the fastest run of each is its cost.
    bare = harnessed = float("inf")
    for _ in range(repeats):
        bare = min(bare, _timed(bare_run))
        harnessed = min(harnessed, _timed(harness_run))
    return BenchResult(len(trace), harnessed, bare)


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
