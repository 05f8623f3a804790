"""Recorded streams as snapshot tests of a driver (``harness.pytest_recordings``).

Every stream of every real recording goes through its dialect's reference driver and the
bytes-reading reference, whose outputs must be the same; what they emit is kept as a snapshot in
tests/__snapshots__/test_recording_snapshots/. Then the workflow a user runs, end to end, in a
project of its own: a driver, a folder of cassettes, ``--snapshot-update``."""

from __future__ import annotations

import functools
from pathlib import Path
from textwrap import dedent

import pytest

from harness.adapters.registry import resolve_adapter
from harness.pytest_recordings import driver_outcome
from harness.wire.recordings import RecordedResponse
from tests.projects_for_tests import outside_xdist
from tests.test_convert import REAL, REFERENCE_FINDINGS, STREAMS

FINDINGS = {
    **REFERENCE_FINDINGS,
}


def _label(stream: RecordedResponse) -> str:
    name = Path(stream.path).relative_to(REAL).as_posix()
    return name if stream.interaction is None else f"{name}#{stream.interaction}"


@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(
            s,
            # no "/" in a snapshot's file name: the folder is written with "__"
            id=_label(s).replace("/", "__"),
            marks=FINDINGS.get((Path(s.path).relative_to(REAL).as_posix(), s.interaction), ()),
        )
        for s in STREAMS
    ],
)
def test_the_references_on_every_real_stream(stream: RecordedResponse, harness_snapshot) -> None:
    events = driver_outcome(
        stream, resolve_adapter(f"driver-{stream.dialect}-reference"), label=_label(stream)
    )
    assert events is not None and events == harness_snapshot
    framed = driver_outcome(
        stream, resolve_adapter(f"driver-{stream.dialect}-bytes-reference"), label=_label(stream)
    )
    assert framed == events  # the same output, however the body is cut
    assert events["status"] == "pass", events.get("broken")


# -- the user's workflow ------------------------------------------------------------------------

DRIVER = '''\
import json

from harness import TextOut, ToolCallOut, TurnEnd

DROP_LAST_CALL = False


class Driver:
    """An OpenAI Chat Completions driver: text as it comes, the calls with the message."""

    layers = ("driver",)
    dialect = "openai-chat"
    emits_calls = "per-message"

    def drive(self, chunks):
        calls, reason = {}, None
        for chunk in chunks:
            for line in chunk.splitlines():
                if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                    continue
                for choice in json.loads(line[5:]).get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        yield TextOut(delta["content"])
                    for part in delta.get("tool_calls") or []:
                        call = calls.setdefault(part["index"], {"id": "", "name": "", "args": ""})
                        call["id"] = call["id"] or part.get("id") or ""
                        function = part.get("function") or {}
                        call["name"] += function.get("name") or ""
                        call["args"] += function.get("arguments") or ""
                    reason = choice.get("finish_reason") or reason
        done = [calls[i] for i in sorted(calls)]
        if DROP_LAST_CALL:
            done = done[:-1]
        for call in done:
            try:
                valid = isinstance(json.loads(call["args"] or "{}"), dict)
            except ValueError:
                valid = False
            yield ToolCallOut(call["id"], call["name"], call["args"], valid)
        yield TurnEnd("tool_use" if reason == "tool_calls" else "end_turn")
'''

CASSETTE = "test_chat_completion_multiple_tools_streaming_with_content.yaml"


def _glob(text: str) -> str:
    """``text`` as an fnmatch pattern that matches only itself (a ``[`` opens a class)."""
    return text.replace("[", "[[]")


@pytest.fixture
def driver_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(mydriver=DRIVER)
    pytester.syspathinsert()
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # the driver is rewritten between runs
    outside_xdist(monkeypatch)
    folder = pytester.mkdir("cassettes")
    source = REAL / "opentelemetry-python-contrib" / CASSETTE
    (folder / CASSETTE).write_bytes(source.read_bytes())
    pytester.makepyprojecttoml(
        dedent(
            """\
            [tool.pytest.ini_options]
            harness_adapter = "mydriver:Driver"
            harness_library = "false"
            harness_recordings = ["cassettes"]
            asyncio_default_fixture_loop_scope = "function"
            """
        )
    )
    for run in ("runpytest", "runpytest_subprocess"):
        monkeypatch.setattr(
            pytester,
            run,
            # langsmith's plugin (langchain-core brings it) is a second of imports in each run
            functools.partial(
                getattr(pytester, run), "-p", "no:cacheprovider", "-p", "no:langsmith_plugin"
            ),
        )
    return pytester


@pytest.mark.slow
def test_a_driver_authors_regression_workflow(driver_project: pytest.Pytester) -> None:
    item = f"recording[{CASSETTE}#0]"
    first = driver_project.runpytest_subprocess()
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(
        [f"*{_glob(item)}: no snapshot yet*run pytest with --snapshot-update to write it*"]
    )
    driver_project.runpytest_subprocess("--snapshot-update").assert_outcomes(passed=1)
    snapshot = driver_project.path / "__snapshots__" / "harness" / f"{item}.yaml"
    text = snapshot.read_text()
    assert text.startswith(f"recording: {CASSETTE}#0\ndialect: openai-chat\nstatus: pass\n")
    assert "name: get_current_weather" in text and "id: call_3J9foSw3CUb48lrqIXoTky6U" in text
    assert 'arguments: \'{"location": "San Francisco, CA"}\'' in text
    driver_project.runpytest_subprocess().assert_outcomes(passed=1)

    # the driver loses its last tool call: the diff names it, and the rules say so too
    driver = driver_project.path / "mydriver.py"
    driver.write_text(DRIVER.replace("DROP_LAST_CALL = False", "DROP_LAST_CALL = True"))
    changed = driver_project.runpytest_subprocess()
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            f"*{_glob(item)}: the driver's output changed*--snapshot-update to accept it*",
            "--- snapshot",
            "+++ now",
            "-status: pass",
            "+status: fail",
            "-    id: call_3J9foSw3CUb48lrqIXoTky6U",
            '-    arguments: \'{"location": "San Francisco, CA"}\'',
        ]
    )
    # accepting the new output records it, but never the rule it breaks: the item still fails
    accepted = driver_project.runpytest_subprocess("--snapshot-update")
    accepted.assert_outcomes(failed=1)
    accepted.stdout.fnmatch_lines(["*1 snapshot updated*"])
    kept = snapshot.read_text()
    assert kept.count("- tool_call:") == 1 and "status: fail" in kept
    assert "was never emitted" in kept  # the rule that saw it
    again = driver_project.runpytest_subprocess()
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(
        [
            f"*{_glob(item)}: the driver breaks the rules on this recording*",
            "*[[]emit-once-early] event *was never emitted*",
        ]
    )
    assert "the driver's output changed" not in again.stdout.str()
    driver.write_text(DRIVER)  # fixed again
    driver_project.runpytest_subprocess("--snapshot-update").assert_outcomes(passed=1)

    # a recording replaced by another leaves its snapshot unused, as syrupy reports it
    (driver_project.path / "cassettes" / CASSETTE).unlink()
    (driver_project.path / "cassettes" / "basic.yaml").write_bytes(
        (REAL / "llm" / "test_tool_use_basic.yaml").read_bytes()
    )
    gone = driver_project.runpytest_subprocess()
    gone.assert_outcomes(failed=2)
    gone.stdout.fnmatch_lines(["*1 snapshot unused*"])
    update = driver_project.runpytest_subprocess("--snapshot-update")
    update.assert_outcomes(passed=2)
    update.stdout.fnmatch_lines(["*2 snapshots generated*1 unused snapshot deleted*"])
    assert not snapshot.exists()


def test_the_command_line_option_and_streams_in_another_dialect(
    driver_project: pytest.Pytester,
) -> None:
    other = driver_project.mkdir("more")
    (other / "anthropic.txt").write_bytes(
        (REAL / "anthropic-sdk-python" / "tool_use_response.txt").read_bytes()
    )
    (other / "chat.yaml").write_bytes((REAL / "llm" / "test_tool_use_basic.yaml").read_bytes())
    # an anthropic stream is no item for an openai-chat driver; the cassette's two streams are
    result = driver_project.runpytest("--harness-recordings=more", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            _glob("more/chat.yaml::recording[chat.yaml#0]"),
            _glob("more/chat.yaml::recording[chat.yaml#1]"),
        ]
    )
    assert "anthropic" not in result.stdout.str()
    # a recording that cannot be read is an item failing with where and why
    (other / "broken.yaml").write_text("version: 1\ninteractions: [\n")
    broken = driver_project.runpytest("--harness-recordings=more", "-k", "broken")
    broken.assert_outcomes(failed=1)
    broken.stdout.fnmatch_lines(["*harness: *broken.yaml:3: not valid YAML*"])
    bad = driver_project.runpytest("--harness-recordings=nowhere")
    bad.stderr.fnmatch_lines(["*harness_recordings: nowhere is not a folder*"])
