"""``exec:`` adapters that misbehave in every way hypothesis can draw.

Each plan (tests/processes/hostile_process.py) is replayed: the result is a verdict (pass,
fail, skip) or an ``error`` whose message says what happened, never a traceback; the replay
ends within the time limit and a little more; memory stays bounded (stdout, stderr and lines
are capped by ``Limits``); and the process is gone afterwards, grandchildren included.

``HARNESS_FUZZ_STATS=1`` prints the inputs tried and the worst time and memory seen.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.adapters.process import Limits, ProcessAdapter, ProcessFactory, _marked
from harness.adapters.registry import AdapterInfo
from harness.library import library_path
from harness.replay import replay
from harness.scenario import load_scenario
from tests.budgets import examples, within

HOSTILE = Path(__file__).parent.parent / "processes" / "hostile_process.py"
SESSION = load_scenario(library_path() / "session" / "backward-attachment-basic.yaml")
DRIVER = load_scenario(library_path() / "driver" / "text-before-tool-call.yaml")
#: small, so that the examples are quick; the defaults are measured once (test_default_limits)
LIMITS = Limits(line=64 * 1024, stdout=1 << 20, stderr=256 * 1024, outputs=2000)
#: the process's start-up is in it (its hello is what is fuzzed, so it cannot be started
#: first): on a loaded machine 0.5 s was sometimes gone before the hello
TIMEOUT = within(0.5)
#: a replay may take the time limit, the 2 s a closed process gets to exit, and some slack
SECONDS = TIMEOUT + 2 + 2.5
MEMORY = 48 << 20

STATS: dict[str, dict[str, float]] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_stats() -> Iterator[None]:
    yield
    if os.environ.get("HARNESS_FUZZ_STATS"):
        for name, stats in sorted(STATS.items()):
            print(
                f"\n{name}: {stats['inputs']:.0f} inputs, worst {stats['seconds']:.2f}s, "
                f"worst RSS growth {stats['rss'] / (1 << 20):.1f} MiB",
                file=sys.stderr,
            )


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measured(name: str, run: Callable[[], Any]) -> tuple[Any, float, int]:
    """``run()``, its time, and the most the resident memory grew while it ran (sampled)."""
    before = peak = _rss()
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.005):
            peak = max(peak, _rss())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    try:
        value = run()
    finally:
        seconds = time.monotonic() - started
        done.set()
        sampler.join()
    growth = max(peak, _rss()) - before
    stats = STATS.setdefault(name, {"inputs": 0, "seconds": 0.0, "rss": 0})
    stats["inputs"] += 1
    stats["seconds"] = max(stats["seconds"], seconds)
    stats["rss"] = max(stats["rss"], growth)
    return value, seconds, growth


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().split(")")[-1].split()[0] == "Z"  # a zombie: dead, not yet reaped


class Recorder(ProcessFactory):
    """The factory of the hostile process, keeping the processes it started."""

    def __init__(self, plan: list[Any], limits: Limits = LIMITS) -> None:
        super().__init__([sys.executable, str(HOSTILE), json.dumps(plan)], limits)
        self.started: list[ProcessAdapter] = []

    def __call__(self) -> ProcessAdapter:
        adapter = super().__call__()
        self.started.append(adapter)
        return adapter


def replayed(
    name: str,
    plan: list[Any],
    scenario: Any,
    limits: Limits = LIMITS,
    memory: int = MEMORY,
    timeout: float = TIMEOUT,
) -> Any:
    factory = Recorder(plan, limits)
    info = AdapterInfo("exec:hostile", "session", "external", factory)
    result, seconds, growth = measured(name, lambda: replay(scenario, info, timeout=timeout))
    assert result.status in ("pass", "fail", "skip", "error")
    if result.status == "error":
        assert result.error and "Traceback" not in result.error
    assert seconds < timeout + SECONDS - TIMEOUT, f"{plan}: the replay took {seconds:.1f}s"
    assert growth < memory, f"{plan}: memory grew {growth >> 20} MiB"
    for adapter in factory.started:
        assert _gone(adapter.process.pid), f"{plan}: the process is still there"
        # whatever it started too, in its process group or not (setsid)
        left = [pid for pid in _marked(adapter._mark) if not _gone(pid)]
        assert not left, f"{plan}: processes it started are still there: {left}"
    return result


# -- what a hostile process does ------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
#: a line that is JSON, but maybe of the wrong shape, or not JSON at all
LINES = st.one_of(
    JSON.map(json.dumps),
    st.dictionaries(st.sampled_from(["ok", "op", "error", "notifications"]), JSON).map(json.dumps),
    TEXT.filter(lambda text: "\n" not in text and "\r" not in text),
)
HELLO_FIELDS = st.dictionaries(
    st.sampled_from(["protocol", "layers", "name", "dialect", "emits_calls", "reads"]),
    st.one_of(
        JSON,
        st.sampled_from(["session", "driver", "history", "anthropic", "per-call", "bytes", 2]),
        st.lists(st.sampled_from(["session", "history", "driver", "sesion", ""]), max_size=3),
    ),
)
GOOD_HELLO = st.sampled_from(
    [
        ["hello", {"layers": ["session"]}],
        ["hello", {"layers": ["driver"], "dialect": "anthropic"}],
    ]
)
MISCHIEF = st.one_of(
    LINES.map(lambda line: ["raw", line]),
    st.builds(lambda n: ["huge", n], st.integers(LIMITS.line - 10, LIMITS.line * 3)),
    st.just(["endless"]),
    st.just(["lines"]),
    st.builds(lambda n: ["stderr", n], st.sampled_from([10, LIMITS.stderr * 2, -1])),
    st.just(["silence"]),
    st.builds(lambda code: ["exit", code], st.integers(0, 3)),
    st.just(["grandchild"]),
    st.just(["escape"]),
    st.just(["ok"]),
    st.just(["flood"]),
)
PLANS = st.one_of(
    # misbehaving at hello
    st.lists(MISCHIEF, min_size=1, max_size=2),
    st.tuples(HELLO_FIELDS.map(lambda fields: ["hello", fields]), MISCHIEF).map(list),
    # a good hello, then misbehaving
    st.tuples(GOOD_HELLO, st.lists(st.just(["ok"]), max_size=3), MISCHIEF).map(
        lambda t: [t[0], *t[1], t[2]]
    ),
)
FUZZ = settings(
    max_examples=int(os.environ.get("HARNESS_FUZZ_EXAMPLES", examples(25))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.slow
@FUZZ
@given(plan=PLANS, driver=st.booleans())
def test_a_hostile_process_is_a_located_error_or_a_verdict(plan: list[Any], driver: bool) -> None:
    replayed("exec: process", plan, DRIVER if driver else SESSION)


OUTPUTS = st.lists(
    st.one_of(
        JSON,
        st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "tool_call", "turn_end", "refusal", "x"])},
            optional={"text": JSON, "id": JSON, "name": JSON, "arguments": JSON, "valid": JSON},
        ),
    ),
    max_size=4,
)


@FUZZ
@given(outputs=OUTPUTS)
def test_a_driver_emitting_anything_is_a_located_error_or_a_verdict(outputs: list[Any]) -> None:
    hello = ["hello", {"layers": ["driver"], "dialect": "anthropic"}]
    replayed("exec: driver outputs", [hello, ["drive", outputs]], DRIVER)


@FUZZ
@given(fields=HELLO_FIELDS)
def test_every_hello_field_is_checked(fields: dict[str, Any]) -> None:
    """A hello is taken as it says, or refused naming the field: never ``"layers": "session"``
    read as the layers s, e, s, s, i, o, n."""
    result = replayed("hello fields", [["hello", fields], ["ok"]], SESSION)
    if result.status == "error" and "in its hello" in result.error:
        assert any(f'"{field}"' in result.error for field in fields), result.error
    layers = fields.get("layers", ["session"])
    if result.status != "error" and "protocol" not in fields:
        assert isinstance(layers, list) and set(layers) <= {"session", "history", "driver"}


@pytest.mark.parametrize(
    ("plan", "says"),
    [
        ([["hello", {"layers": "session"}]], '"layers": "session"; it is a list of layer names'),
        ([["hello", {"name": 7}]], '"name": 7; it is a string'),
        ([["endless"]], "a line of more than 64 MiB on stdout"),
        (
            [["hello", {"layers": ["driver"], "dialect": "anthropic"}], ["flood"]],
            "more than 100,000 outputs",
        ),
        ([["stderr", -1]], "more than 64 MiB on stderr"),
        ([["hello", {"layers": ["session"]}], ["grandchild"]], "exited (code 0)"),
    ],
    ids=["layers-string", "name-number", "endless-line", "emit-flood", "stderr", "grandchild"],
)
@pytest.mark.slow
def test_default_limits(plan: list[Any], says: str) -> None:
    """The limits as shipped: what they say, and the memory they cost (Limits' defaults)."""
    scenario = DRIVER if "flood" in str(plan) else SESSION
    # the time limit as shipped too: a flood of outputs is no hang, it is stopped by its limit
    result = replayed("default limits", plan, scenario, Limits(), memory=320 << 20, timeout=10)
    assert result.status == "error"
    assert says in result.error


@pytest.mark.parametrize("driver", [False, True])
def test_a_process_that_starts_one_in_a_session_of_its_own_is_ended_with_it(driver: bool) -> None:
    # the child calls setsid, so the process group's kill misses it; it holds stdout open
    hello = (
        ["hello", {"layers": ["driver"], "dialect": "anthropic"}]
        if driver
        else ["hello", {"layers": ["session"]}]
    )
    result = replayed("exec: setsid", [hello, ["escape"]], DRIVER if driver else SESSION)
    assert result.status == "error"
