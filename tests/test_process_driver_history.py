"""Protocol 2 of out-of-process adapters (docs/PROTOCOL.md): the driver and history layers.

Python processes wrapping the bundled references (tests/processes/) replay the driver and
history libraries exactly as the references do in process; processes that break the protocol
give an error (or, where the protocol is kept but the driving is wrong, a failure) whose message
names what they sent; the JavaScript driver (examples/drivers/js/driver.mjs) passes the driver
library and its bug (the turn ends at the first message_stop) is caught.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from harness._errors import AdapterError
from harness.adapters.process import DriverFailed, ProcessAdapter
from harness.adapters.registry import adapter_dialect, resolve_adapter
from harness.codecs import dialects
from harness.model.driver import DriverObservation, TextOut, ToolCallOut, TurnEnd, WireChunk
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.replay.driver import DriverReplay
from harness.replay.result import ScenarioResult
from harness.scenario import DriverScenario, Scenario, load_scenario
from harness.scenario.cases import ALL
from tests.budgets import within
from tests.processes_for_tests import collected, started
from tests.scenarios_for_tests import load_folder
from tests.test_process_adapter import _gone

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "scenarios"
PROCESSES = Path(__file__).resolve().parent / "processes"
JS_DRIVER = ROOT / "examples" / "drivers" / "js" / "driver.mjs"
MULTI_CYCLE = LIBRARY / "driver" / "multi-cycle-turn.yaml"

SCENARIOS, PROBLEMS = load_folder(LIBRARY)
DRIVER_SCENARIOS = [s for s in SCENARIOS if s.layer == "driver"]
HISTORY_SCENARIOS = [s for s in SCENARIOS if s.layer == "history"]


@pytest.fixture(autouse=True)
def _collect_adapters() -> Iterator[None]:
    """Abandoned replay threads end and adapters are collected here, so that a leaked pipe or
    process shows in this module."""
    with collected():
        yield


@cache
def in_process(reference: str) -> tuple[ScenarioResult, ...]:
    """The driver library replayed in process by ``reference``, once per worker for the tests
    that compare a process with it."""
    return tuple(replay(s, reference) for s in DRIVER_SCENARIOS)


def wrapper(adapter: str, *options: str) -> str:
    """``exec:`` for the Python driver process wrapping a bundled driver."""
    argv = [sys.executable, str(PROCESSES / "driver_process.py"), adapter, *options]
    return "exec:" + shlex.join(argv)


def history_wrapper(adapter: str = "history-reference") -> str:
    return "exec:" + shlex.join([sys.executable, str(PROCESSES / "history_process.py"), adapter])


def js_driver(*options: str) -> str:
    """The JS driver's adapter reference; fails (never skips) without Node.js."""
    if shutil.which("node") is None:
        pytest.fail("`node` is not on PATH: the JavaScript driver needs Node.js 20 or later")
    return "exec:" + shlex.join(["node", str(JS_DRIVER), *options])


def describe(result: ScenarioResult) -> str:
    quirks = getattr(result.scenario, "quirks", ())
    where = f"{result.scenario.id} {list(quirks)}" if quirks else result.scenario.id
    lines = [f"{where} ({result.scenario.path}): {result.status}"]
    if result.error:
        lines.append(f"  error: {result.error}")
    if result.skip_reason:
        lines.append(f"  skipped: {result.skip_reason}")
    lines.extend(f"  [{v.rule}] {v.message}" for v in result.violations)
    return "\n".join(lines)


def outcome(result: ScenarioResult) -> tuple[str, tuple[str, ...]]:
    return result.status, tuple(sorted({v.rule for v in result.violations}))


def assert_same_as(scenarios: list[Scenario], adapter: str, reference: str) -> None:
    """Each scenario has the same status and broken rules through ``adapter`` as through
    ``reference``."""
    differ = []
    for scenario in scenarios:
        ours, theirs = replay(scenario, adapter), replay(scenario, reference)
        if outcome(ours) != outcome(theirs):
            differ.append(f"{describe(ours)}\n  in process: {describe(theirs)}")
    assert not differ, "\n".join(differ)


def test_library_is_loaded() -> None:
    assert PROBLEMS == [], "\n".join(map(str, PROBLEMS))
    assert len(DRIVER_SCENARIOS) > 40 and len(HISTORY_SCENARIOS) > 20


# -- (a) the bundled drivers over the protocol ---------------------------------------------------


WRAPPED = (
    "driver-anthropic-reference",
    "driver-anthropic-agent-reference",
    "driver-openai-chat-reference",
)


#: (reference, third of the library): make test gives each reference one third, so that every
#: scenario goes through a process once; the exhaustive tier gives it the other two
THIRDS = [
    pytest.param(
        reference,
        third,
        marks=() if third == k else pytest.mark.exhaustive,
        id=f"{reference}-{third + 1}/{len(WRAPPED)}",
    )
    for k, reference in enumerate(WRAPPED)
    for third in range(len(WRAPPED))
]


@pytest.mark.slow
@pytest.mark.parametrize(("reference", "third"), THIRDS)
def test_wrapped_reference_driver_replays_the_library_as_in_process(
    reference: str, third: int
) -> None:
    scenarios = DRIVER_SCENARIOS[third :: len(WRAPPED)]
    adapter = wrapper(reference)
    results = [replay(s, adapter) for s in scenarios]
    assert [r for r in results if r.status == "pass"], "nothing ran in this dialect"
    bad = [describe(r) for r in results if r.status not in ("pass", "skip")]
    assert not bad, "\n".join(bad)
    expected = in_process(reference)[third :: len(WRAPPED)]
    assert [r.status for r in results] == [r.status for r in expected]


def _some_quirk_cases(adapter: str, every: int, sample: int) -> list[Scenario]:
    """Every ``every``-th quirk case of the adapter's dialect; of those, every ``sample``-th
    one if ``sample`` is positive, the others if it is negative."""
    cases = cases_for(DRIVER_SCENARIOS, resolve_adapter(adapter), ALL)
    quirked: list[Scenario] = [c for c in cases if isinstance(c, DriverScenario) and c.quirks]
    some = quirked[::every]
    return [c for i, c in enumerate(some) if (i % abs(sample) == 0) == (sample > 0)]


@pytest.mark.slow
@pytest.mark.parametrize(
    "reference",
    ["driver-anthropic-agent-reference", "driver-openai-chat-reference"],
)
@pytest.mark.parametrize(
    "sample",
    [
        pytest.param(4, id="sample"),  # make test: every 100th case
        pytest.param(-4, marks=pytest.mark.exhaustive, id="rest"),  # the other 25th ones
    ],
)
def test_wrapped_reference_driver_quirk_cases(reference: str, sample: int) -> None:
    adapter = wrapper(reference)
    cases = _some_quirk_cases(adapter, every=25, sample=sample)
    assert len(cases) >= 4, [c.id for c in cases]
    assert_same_as(cases, adapter, reference)


@pytest.mark.slow
def test_bytes_reading_driver_is_sent_base64_slices() -> None:
    reference = "driver-anthropic-agent-bytes-reference"
    picked = ["multi-cycle-turn", "cancel-mid-arguments", "non-ascii-text-and-arguments"]
    scenarios: list[Scenario] = [s for s in DRIVER_SCENARIOS if s.id in picked]
    assert len(scenarios) == len(picked)
    assert_same_as(scenarios, wrapper(reference), reference)


def test_the_factory_tells_the_dialect_before_any_replay() -> None:
    """cases_for plans a driver's quirk cases from its dialect: an exec: factory asks one
    process's hello."""
    info = resolve_adapter(wrapper("driver-openai-chat-reference"))
    assert adapter_dialect(info) == "openai-chat"


def test_a_process_drives_several_turns_one_after_the_other() -> None:
    scenario = load_scenario(MULTI_CYCLE)
    assert isinstance(scenario, DriverScenario)
    chunks = [c.data for c in replay_chunks(scenario)]
    adapter = ProcessAdapter(shlex.split(wrapper("driver-anthropic-agent-reference")[5:]))
    try:
        for _ in range(2):
            outputs = list(adapter.drive(iter(chunks)))
            assert [o.id for o in outputs if isinstance(o, ToolCallOut)] == ["toolu_01", "toolu_02"]
            assert isinstance(outputs[-1], TurnEnd) and outputs[-1].stop_reason == "end_turn"
            assert any(isinstance(o, TextOut) for o in outputs)
    finally:
        adapter.close()


def replay_chunks(scenario: DriverScenario) -> tuple[WireChunk, ...]:
    """The chunks a driver of the anthropic-agent dialect reads for ``scenario``."""
    return DriverReplay(scenario, []).chunks(dialects()["anthropic-agent"])


def test_a_failing_driver_raises_as_in_process() -> None:
    """``done`` with an error is the driver raising; the replay reports it as such."""
    adapter = ProcessAdapter(shlex.split(wrapper("driver-anthropic-agent-reference")[5:]))
    try:
        with pytest.raises(DriverFailed, match=r"WireError|JSON|line"):
            list(adapter.drive(iter(["event: message_start\ndata: {not json\n\n"])))
    finally:
        adapter.close()


# -- (b) processes that break the protocol ---------------------------------------------------------

#: misbehaviour -> (status, what the message says)
MISBEHAVIOURS = {
    "answer-ok": ("error", ["answered during drive", """'{"ok": true}'"""]),
    "malformed-output": ("error", ["malformed output", "id should be a string", '"tool_call"']),
    "not-json": ("error", ["during drive something that is not JSON: 'reading...'"]),
    "unknown-op": ("error", ["unknown op 'yield'", """'{"op": "yield\""""]),
    "hang": ("error", ["did not return within 1s", "drive() was handling chunk 1"]),
    "read-after-end": ("fail", ["kept reading after the turn ended"]),
    "no-done": ("error", ["exited (code 0) during drive, before it said done"]),
    "emit-after-done": ("error", ["a line after done", '"late"']),
    "ghost-call": ("fail", ["'toolu_nobody_sent_this'", "the stream has no such call"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("misbehaviour", sorted(MISBEHAVIOURS))
def test_misbehaving_driver_process(
    misbehaviour: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, says = MISBEHAVIOURS[misbehaviour]
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("DRIVER_PROCESS_PID_FILE", str(pid_file))
    adapter = wrapper("driver-anthropic-agent-reference", f"--misbehave={misbehaviour}")
    # only the hang is meant to reach the limit; the process is started before the replay, so
    # that its start-up (Python importing the harness) is not in the limit
    limit = 1 if misbehaviour == "hang" else within(5)
    try:
        with started(adapter) as process:
            began = time.monotonic()
            result = replay(load_scenario(MULTI_CYCLE), process, timeout=limit)
            elapsed = time.monotonic() - began
        assert result.status == status, describe(result)
        message = result.error or "\n".join(v.message for v in result.violations)
        for needle in says:
            assert needle in message, f"{needle!r} not in:\n{message}"
        assert elapsed < limit + within(5), f"the replay took {elapsed:.1f}s"
        assert _gone(int(pid_file.read_text(encoding="utf-8"))), "the process is still there"
    finally:
        _kill_leftover(pid_file)
    assert replay(load_scenario(MULTI_CYCLE), "driver-anthropic-agent-reference").status == "pass"


def _kill_leftover(pid_file: Path) -> None:
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


def _inline(tmp_path: Path, hello: str) -> str:
    """A process that answers hello with ``hello`` (a JSON text) and refusals to anything else."""
    script = tmp_path / "hello.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    op = json.loads(line)['op']\n"
        "    if op == 'shutdown':\n"
        "        break\n"
        f"    answer = {hello} if op == 'hello' else {{'ok': False, 'error': 'no'}}\n"
        "    print(json.dumps(answer), flush=True)\n",
        encoding="utf-8",
    )
    return "exec:" + shlex.join([sys.executable, str(script)])


@pytest.mark.parametrize(
    ("hello", "says"),
    [
        ("{'ok': True, 'protocol': 3}", "answered hello with protocol 3"),
        ("{'ok': True, 'layers': ['driver']}", "answered hello with protocol None"),
        (
            "{'ok': True, 'protocol': 2, 'layers': ['driver']}",
            '"dialect": null; the driver layer needs',
        ),
        (
            "{'ok': True, 'protocol': 2, 'layers': ['driver'], 'dialect': 'anthropic', "
            "'reads': 'lines'}",
            '"reads": "lines"; expected "chunks" or "bytes"',
        ),
        ("{'ok': False, 'error': 'not today'}", "failed on 'hello': not today"),
    ],
)
def test_a_hello_the_harness_cannot_speak_to_is_an_error(
    hello: str, says: str, tmp_path: Path
) -> None:
    result = replay(load_scenario(MULTI_CYCLE), _inline(tmp_path, hello), timeout=5)
    assert result.status == "error", describe(result)
    assert result.error is not None and says in result.error, result.error


def test_a_protocol_1_process_refusing_protocol_2_is_greeted_in_protocol_1(tmp_path: Path) -> None:
    """As a process written for protocol 1 does: it refuses any other protocol."""
    script = tmp_path / "p1.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    if request['op'] == 'hello' and request['protocol'] != 1:\n"
        "        print(json.dumps({'ok': False, 'error': 'unsupported protocol 2'}), flush=True)\n"
        "    elif request['op'] == 'hello':\n"
        "        print(json.dumps({'ok': True, 'protocol': 1, 'name': 'old'}), flush=True)\n"
        "    else:\n"
        "        break\n",
        encoding="utf-8",
    )
    adapter = ProcessAdapter([sys.executable, str(script)])
    try:
        assert adapter.protocol == 1 and adapter.layers == ("session",) and adapter.name == "old"
        with pytest.raises(AdapterError, match="drive is the driver layer of protocol 2"):
            next(adapter.drive(iter([])))
    finally:
        adapter.close()


# -- (c) the history layer --------------------------------------------------------------------------


@pytest.mark.slow
def test_wrapped_reference_history_store_passes_the_history_library() -> None:
    results = [replay(s, history_wrapper()) for s in HISTORY_SCENARIOS]
    bad = [describe(r) for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_wrapped_history_mutant_fails_as_in_process() -> None:
    mutant = "history-mutant-subagent-into-parent"
    scenarios: list[Scenario] = [s for s in HISTORY_SCENARIOS if "sub" in s.id] or HISTORY_SCENARIOS
    results = [replay(s, history_wrapper(mutant)) for s in scenarios]
    assert any(r.status == "fail" for r in results)
    assert_same_as(scenarios, history_wrapper(mutant), mutant)


# -- the JavaScript driver --------------------------------------------------------------------------


@pytest.mark.slow
def test_js_driver_passes_the_driver_library() -> None:
    adapter = js_driver()
    results = [replay(s, adapter) for s in DRIVER_SCENARIOS]
    bad = [describe(r) for r in results if r.status not in ("pass", "skip")]
    assert not bad, "\n".join(bad)
    ran = [r.scenario.id for r in results if r.status == "pass"]
    reference = [
        r.scenario.id for r in in_process("driver-anthropic-agent-reference") if r.status == "pass"
    ]
    assert ran == reference


#: make test replays every JS_SAMPLE-th quirk case through the JS driver, the exhaustive tier
#: the others
JS_SAMPLE = 10


@pytest.mark.slow
@pytest.mark.parametrize(
    "sampled",
    [
        pytest.param(True, id=f"every-{JS_SAMPLE}th-case"),
        pytest.param(False, marks=pytest.mark.exhaustive, id="the-other-cases"),
    ],
)
def test_js_driver_passes_every_quirk_case_of_its_dialect(sampled: bool) -> None:
    adapter = js_driver()
    cases = cases_for(DRIVER_SCENARIOS, resolve_adapter(adapter), ALL)
    assert len(cases) > 300
    cases = [c for i, c in enumerate(cases) if (i % JS_SAMPLE == 0) == sampled]
    results = [replay(c, adapter) for c in cases]
    bad = [describe(r) for r in results if r.status not in ("pass", "skip")]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_js_driver_bug_ends_at_first_message_stop_is_caught() -> None:
    result = replay(load_scenario(MULTI_CYCLE), js_driver("--bug=ends-at-first-message-stop"))
    assert result.status == "fail", describe(result)
    assert "turn-lifetime" in {v.rule for v in result.violations}, describe(result)


# -- the JS driver's second mode: end to end over real HTTP, against harness serve ---------------

HTTP_SCENARIOS = ["multi-cycle-turn", "five-tool-cycles", "thinking-then-tool-call-cycles"]


def _over_http(
    scenario: DriverScenario, *options: str, faults: tuple[str, ...] = ()
) -> dict[str, object]:
    """What the JS driver emits reading the scenario from `harness serve` over HTTP."""
    import subprocess

    from harness.model.driver import coerce_output
    from harness.standin import serving

    if shutil.which("node") is None:
        pytest.fail("`node` is not on PATH: the JavaScript driver needs Node.js 20 or later")
    with serving(scenario, dialect="anthropic-agent", faults=faults) as stand:
        done = subprocess.run(
            ["node", str(JS_DRIVER), f"--url={stand.url}/v1/messages", *options],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    outputs = [
        coerce_output(json.loads(line), i) for i, line in enumerate(done.stdout.splitlines())
    ]
    return DriverObservation("anthropic-agent", tuple(outputs)).to_data()


@pytest.mark.slow
@pytest.mark.parametrize("name", HTTP_SCENARIOS)
def test_the_js_driver_over_http_emits_what_it_emits_over_the_protocol(name: str) -> None:
    """The same driver, two transports: a served scenario read over real HTTP (one event per
    HTTP chunk, and with an event split across two HTTP chunks) gives the outputs the protocol
    replay gave, and the bug flag shows over HTTP as it does there."""
    scenario = load_scenario(LIBRARY / "driver" / f"{name}.yaml")
    assert isinstance(scenario, DriverScenario)
    for options in ((), ("--bug=ends-at-first-message-stop",)):
        result = replay(scenario, js_driver(*options))
        assert result.observation is not None
        expected = result.observation.to_data()
        assert _over_http(scenario, *options) == expected
        assert _over_http(scenario, *options, faults=("split:2", "split:5")) == expected
    whole = replay(scenario, js_driver()).observation
    cut = replay(scenario, js_driver("--bug=ends-at-first-message-stop")).observation
    assert isinstance(whole, DriverObservation) and isinstance(cut, DriverObservation)
    assert len(cut.outputs) < len(whole.outputs)  # the bug is visible, not a no-op


def test_an_exec_adapter_declares_the_layers_its_hello_names() -> None:
    """`harness explore` and the plugin ask which layers an adapter implements; an exec:
    process answers with its hello (protocol 1: the session layer)."""
    from harness.adapters.registry import declared_layers

    assert declared_layers(resolve_adapter(history_wrapper())) == ("history",)
    assert declared_layers(resolve_adapter(wrapper("driver-openai-chat-reference"))) == ("driver",)
    session = "exec:node " + str(ROOT / "examples" / "js" / "session-consumer.mjs")
    assert declared_layers(resolve_adapter(session)) == ("session",)


@pytest.mark.slow
def test_exploring_an_exec_adapter_given_resolved_explores_the_layer_it_declares(
    tmp_path: Path,
) -> None:
    """The plugin hands explore() an AdapterInfo, not a name: a driver process is still explored
    as a driver (it was explored as a session consumer, finding nothing)."""
    from harness.explore import explore

    adapter = resolve_adapter(wrapper("driver-mutant-anthropic-ends-at-first-message-stop"))
    exploration = explore(adapter, max_examples=50, seed=0, out=tmp_path, timeout=within(5))
    assert exploration.layer == "driver" and exploration.found is not None
