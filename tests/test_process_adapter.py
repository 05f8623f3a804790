"""Out-of-process adapters (``exec:COMMAND``, protocol 1).

The JavaScript example consumer (examples/js/session-consumer.mjs) passes the whole session
library and shows exactly what the reference consumer shows; its ``--bug=keyed-by-tool-id``
variant is caught; a process that crashes, writes garbage, hangs, refuses or answers with a
malformed observation gives an ``error`` result, in time, and the run goes on.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.model.observation import Observation
from harness.replay import replay
from harness.replay.result import ScenarioResult
from harness.scenario import Scenario, SessionScenario
from tests.budgets import within
from tests.processes_for_tests import collected, started
from tests.scenarios_for_tests import load_folder, load_session

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "scenarios"
CONSUMER = ROOT / "examples" / "js" / "session-consumer.mjs"
SMALL = LIBRARY / "session" / "backward-attachment-basic.yaml"

ALL_SCENARIOS, PROBLEMS = load_folder(LIBRARY)
#: the consumer implements the session layer; the other layers' scenarios are skipped for it
SCENARIOS = [s for s in ALL_SCENARIOS if s.layer == "session"]


@pytest.fixture(autouse=True)
def _collect_adapters():
    """Let abandoned replay threads end and adapters be collected here, so a leaked pipe or
    process would show as a ResourceWarning (an error) in this module, not in a later test."""
    with collected():
        yield


def node_adapter(*options: str) -> str:
    """The adapter reference for the JS consumer; fails (never skips) without Node.js."""
    if shutil.which("node") is None:
        pytest.fail(
            "`node` is not on PATH: the JavaScript example consumer needs Node.js 20 or later "
            "(CI machines have it; install it to run these tests)",
            pytrace=False,
        )
    return "exec:" + shlex.join(["node", str(CONSUMER), *options])


def describe(result: ScenarioResult) -> str:
    lines = [f"{result.scenario.id} ({result.scenario.path}): {result.status}"]
    if result.error:
        lines.append(f"  error: {result.error}")
    for v in result.violations:
        lines.append(f"  [{v.rule}] line {result.line_of(v)}: {v.message}")
    return "\n".join(lines)


def test_library_is_loaded():
    assert PROBLEMS == [], "\n".join(map(str, PROBLEMS))
    ids = {s.id for s in SCENARIOS}
    assert {
        "backward-attachment-basic",
        "same-id-parent-and-subsession",
        "subsession-reuses-parent-tool-id",
        "resume-history-unmatched-blocks",
        "streamed-tool-result-parts",
        "parallel-tools-across-subsession-8000",
    } <= ids
    assert CONSUMER.is_file()


# -- (a) the JS consumer passes the whole library ----------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_js_consumer_passes_library_scenario(scenario: Scenario):
    result = replay(scenario, node_adapter())
    assert result.status == "pass", describe(result)
    assert result.observation is not None
    # Passing the rules is the requirement; showing the reference's exact final observation
    # (messages, attachments, streams, notifications and message-updated notices) is the check
    # that the JS port did not pass by luck.
    reference = replay(scenario, "session-reference")
    assert reference.status == "pass" and isinstance(reference.observation, Observation)
    assert isinstance(result.observation, Observation)
    assert result.observation.to_data() == reference.observation.to_data()
    assert result.observation.transcript.updates == reference.observation.transcript.updates


# -- (b) the bug variant is caught -------------------------------------------------------------


@pytest.mark.slow
def test_js_keyed_by_tool_id_bug_is_caught():
    adapter = node_adapter("--bug=keyed-by-tool-id")
    results = [replay(s, adapter) for s in SCENARIOS]
    errors = [describe(r) for r in results if r.status == "error"]
    assert errors == [], "the bug variant should fail rules, not crash:\n" + "\n".join(errors)
    failed = {r.scenario.id: r.rules_broken for r in results if r.status == "fail"}
    assert failed, "no library scenario catches --bug=keyed-by-tool-id"
    assert "same-id-parent-and-subsession" in failed
    assert "session-keyed-tracking" in {rule for rules in failed.values() for rule in rules}
    # the same scenarios and rules catch the Python mutant with the same bug
    mutant = {
        s.id: r.rules_broken
        for s in SCENARIOS
        if (r := replay(s, "session-mutant-keyed-by-tool-id")).status != "pass"
    }
    assert failed == mutant


# -- the JS consumer speaks protocol 1 ---------------------------------------------------------


def _event(
    kind: str, session: str, parent: str | None = None, **fields: object
) -> dict[str, object]:
    return {"type": kind, "session_id": session, "parent_session_id": parent, **fields}


@pytest.mark.parametrize(
    ("options", "left"),
    [
        (
            (),
            [
                {
                    "session_id": "main",
                    "tool_call_id": "toolu_1",
                    "tool_name": "read",
                    "status": "preparing",
                }
            ],
        ),
        (("--bug=keyed-by-tool-id",), []),
    ],
    ids=["correct", "keyed-by-tool-id"],
)
def test_js_consumer_answers_every_line(options: tuple[str, ...], left: list[dict[str, str]]):
    adapter = node_adapter(*options)
    call = {"id": "toolu_1", "name": "read", "arguments": "{}", "input": {}}
    requests = [
        json.dumps({"op": "hello", "protocol": 1}),
        json.dumps({"op": "frobnicate"}),
        "not json",
        json.dumps({"op": "feed", "event": _event("tool_select", "main", calls=[call])}),
        json.dumps({"op": "feed", "event": _event("tool_select", "sub", "main", calls=[call])}),
        json.dumps(
            {
                "op": "feed",
                "event": _event(
                    "tool_completed",
                    "sub",
                    "main",
                    calls=[call],
                    results=[{"tool_call_id": "toolu_1", "content": "x", "is_error": False}],
                ),
            }
        ),
        json.dumps({"op": "notifications"}),
        json.dumps({"op": "shutdown"}),
    ]
    done = subprocess.run(
        shlex.split(adapter[len("exec:") :]),
        input="\n".join(requests) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests), done.stdout
    name = "js-session-consumer" if not options else "js-session-consumer (bug: keyed-by-tool-id)"
    assert answers[0] == {"ok": True, "protocol": 1, "layers": ["session"], "name": name}
    assert answers[1] == {"ok": False, "error": 'unknown op "frobnicate"'}
    assert answers[2]["ok"] is False and "not JSON" in answers[2]["error"]
    assert answers[3:6] == [{"ok": True}] * 3
    # the sub-session's completion of its own toolu_1 leaves the parent's toolu_1 alone
    assert answers[6] == {"ok": True, "notifications": left}
    assert answers[7] == {"ok": True}


# -- (c) misbehaving processes -----------------------------------------------------------------

#: A protocol-1 process that answers hello correctly; ON_FEED and ON_TRANSCRIPT are filled in.
MISBEHAVING = """\
import json, os, sys, time

with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))


def answer(value):
    sys.stdout.write((value if isinstance(value, str) else json.dumps(value)) + "\\n")
    sys.stdout.flush()


feeds = 0
for line in sys.stdin:
    op = json.loads(line).get("op")
    if op == "hello":
        answer({"ok": True, "protocol": 1, "layers": ["session"], "name": "misbehaving"})
    elif op == "feed":
        feeds += 1
ON_FEED
    elif op == "notifications":
        answer({"ok": True, "notifications": []})
    elif op == "transcript":
ON_TRANSCRIPT
    elif op == "shutdown":
        break
"""

OK = 'answer({"ok": True})'
EMPTY_TRANSCRIPT = 'answer({"ok": True, "transcript": {"sessions": {}}})'


@dataclass(frozen=True)
class Misbehaviour:
    id: str
    on_feed: str
    on_transcript: str = EMPTY_TRANSCRIPT
    #: only a hang is meant to reach it
    timeout: float = within(10)
    #: all of these must appear in the error
    says: tuple[str, ...] = ()


def _third_fed_event(scenario: SessionScenario) -> str:
    index = [i for i, e in enumerate(scenario.trace) if e.kind != "checkpoint"][2]
    event = scenario.trace[index]
    return f"on event {index} ({event.kind}, line {event.line})"


SMALL_SCENARIO = load_session(SMALL)

MISBEHAVIOURS = [
    Misbehaviour(
        "crashes-on-third-feed",
        'if feeds == 3:\n    sys.stderr.write("boom\\n")\n    sys.stderr.flush()\n    sys.exit(3)\n'
        + OK,
        says=(
            "exited (code 3)",
            "boom",
            "instead of answering 'feed'",
            _third_fed_event(SMALL_SCENARIO),
        ),
    ),
    Misbehaviour(
        "writes-garbage",
        'answer("not json")',
        says=("not JSON: 'not json", "answered 'feed'"),
    ),
    Misbehaviour(
        "stops-answering",
        "time.sleep(60)",
        timeout=1,
        says=("did not return within 1s", "feed() was handling event 0"),
    ),
    Misbehaviour(
        "refuses",
        'answer({"ok": False, "error": "consumer exploded"})',
        says=("failed on 'feed'", "consumer exploded"),
    ),
    Misbehaviour(
        "malformed-transcript",
        OK,
        on_transcript=(
            'answer({"ok": True, "transcript": '
            '{"sessions": {"main": {"messages": [{"role": "bot", "text": "x"}]}}}})'
        ),
        says=("malformed observation", "transcript.sessions['main'].messages[0].role is 'bot'"),
    ),
]


def _gone(pid: int, seconds: float = within(3)) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _state(pid: int) -> str:
    """'S (sleeping)', 'Z (zombie)', ... from /proc where there is one."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _kill_leftover(pid_file: Path) -> None:
    """Stop our own child if a failed replay left it running, so a failure here stays here."""
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text(encoding="utf-8"))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    _gone(pid)


def _write_misbehaving(tmp_path: Path, name: str, on_feed: str, on_transcript: str) -> Path:
    script = tmp_path / f"{name}.py"
    source = MISBEHAVING.replace("ON_FEED", textwrap.indent(on_feed, " " * 8)).replace(
        "ON_TRANSCRIPT", textwrap.indent(on_transcript, " " * 8)
    )
    script.write_text(source, encoding="utf-8")
    return script


@pytest.mark.slow
@pytest.mark.parametrize("bad", MISBEHAVIOURS, ids=[m.id for m in MISBEHAVIOURS])
def test_misbehaving_process_is_an_error_and_the_run_goes_on(bad: Misbehaviour, tmp_path: Path):
    script = _write_misbehaving(tmp_path, bad.id, bad.on_feed, bad.on_transcript)
    # started before the replay: its start-up is not in the limit, which a hang gets short
    _assert_stopped_with_an_error(script, tmp_path / "pid", bad.timeout, bad.says, start_first=True)


def _exec(script: Path, pid_file: Path) -> str:
    """The adapter spec that runs ``script``, which writes its process id to ``pid_file``."""
    return "exec:" + shlex.join([sys.executable, str(script), str(pid_file)])


def _assert_stopped_with_an_error(
    script: Path, pid_file: Path, timeout: float, says: Sequence[str], start_first: bool = False
) -> None:
    """Replayed through ``script`` (its process ``started`` before the replay if
    ``start_first``), SMALL_SCENARIO is an error that says each of ``says``, in time (within
    the limit and a few seconds), and the process is gone; the run goes on: the next replay is
    unaffected."""
    try:
        with contextlib.ExitStack() as stack:
            command = _exec(script, pid_file)
            adapter = stack.enter_context(started(command)) if start_first else command
            began = time.monotonic()
            result = replay(SMALL_SCENARIO, adapter, timeout=timeout)
            elapsed = time.monotonic() - began

        assert result.status == "error", describe(result)
        assert result.error is not None
        for needle in says:
            assert needle in result.error, f"{needle!r} not in the error:\n{result.error}"
        assert elapsed < timeout + within(4), f"the replay took {elapsed:.1f}s"
        pid = int(pid_file.read_text(encoding="utf-8"))
        assert _gone(pid), (
            f"the adapter process {pid} is still there ({_state(pid)}) after the replay"
        )
    finally:
        _kill_leftover(pid_file)
    after = replay(SMALL_SCENARIO, "session-reference")
    assert after.status == "pass", describe(after)


# -- what the adapter process leaves behind -----------------------------------------------------


@pytest.mark.parametrize("case", ["passes", "crashes-on-third-feed"])
def test_process_adapter_leaves_no_open_pipes(case: str, tmp_path: Path):
    if case == "passes":
        adapter, status = node_adapter(), "pass"
    else:
        crash = next(m for m in MISBEHAVIOURS if m.id == case)
        script = _write_misbehaving(tmp_path, case, crash.on_feed, crash.on_transcript)
        adapter = _exec(script, tmp_path / "pid")
        status = "error"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        result = replay(SMALL_SCENARIO, adapter)
        gc.collect()
    assert result.status == status, describe(result)
    leaks = sorted({str(w.message) for w in caught if issubclass(w.category, ResourceWarning)})
    assert leaks == [], "the adapter process's pipes were left open:\n" + "\n".join(leaks)


HELLO_FAILURES = {
    # hello answered with a refusal; the child then waits for more input
    "refuses-hello": (
        "import json, os, sys\n"
        'open(sys.argv[1], "w").write(str(os.getpid()))\n'
        "sys.stdin.readline()\n"
        'print(json.dumps({"ok": False, "error": "no hello for you"}), flush=True)\n'
        "sys.stdin.read()\n",
        "no hello for you",
    ),
    # hello never answered
    "hangs-at-hello": (
        "import os, sys, time\n"
        'open(sys.argv[1], "w").write(str(os.getpid()))\n'
        "sys.stdin.readline()\n"
        "time.sleep(60)\n",
        "did not answer 'hello' within 1s",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HELLO_FAILURES))
def test_process_that_fails_hello_is_stopped(case: str, tmp_path: Path):
    source, says = HELLO_FAILURES[case]
    script = tmp_path / f"{case}.py"
    script.write_text(source, encoding="utf-8")
    # the hang at hello is meant to reach the limit (the start-up is in it: the replay asks for
    # the hello within its limit, once, and a process that never answers fails either way)
    limit = 1 if case == "hangs-at-hello" else within(10)
    _assert_stopped_with_an_error(script, tmp_path / "pid", limit, [says])
