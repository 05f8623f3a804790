"""The adapter templates docs/ADAPTERS.md shows (examples/templates/): each is an adapter the
harness accepts, sync and async alike, replayed over the library's scenarios of its layer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import (
    AsyncDriverAdapter,
    AsyncHistoryAdapter,
    AsyncSessionAdapter,
    DriverAdapter,
    HistoryAdapter,
    SessionAdapter,
    replay,
)
from harness.adapters.registry import resolve_adapter
from harness.codecs import dialects
from harness.library import library_path
from harness.replay.cases import cases_for, fed_chunks, pick_case
from tests.scenarios_for_tests import load_every, parse_driver

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "examples" / "templates"

#: template -> its layer and the protocol it meets
CASES = {
    "session_sync": ("session", SessionAdapter),
    "session_async": ("session", AsyncSessionAdapter),
    "history_sync": ("history", HistoryAdapter),
    "history_async": ("history", AsyncHistoryAdapter),
    "driver_sync": ("driver", DriverAdapter),
    "driver_async": ("driver", AsyncDriverAdapter),
}


@pytest.fixture(autouse=True)
def templates_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TEMPLATES))


def test_every_template_is_tested_and_named_in_the_doc():
    assert sorted(p.stem for p in TEMPLATES.glob("*.py")) == sorted(CASES)
    doc = (ROOT / "docs" / "ADAPTERS.md").read_text()
    for name in CASES:
        assert f"examples/templates/{name}.py" in doc


DOC = (ROOT / "docs" / "ADAPTERS.md").read_text()

#: scenario -> (cases failing, cases run, rules broken)
Failures = dict[str, tuple[int, int, set[str]]]


def _known_failures(layer: str) -> Failures:
    """What the doc says a layer's templates fail: its table of failing scenarios."""
    section = DOC.split(f"#### What the {layer} templates fail", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9.-]+)` \| (\d+) of (\d+) \| ([^|]+) \|", section, re.M)
    assert rows, f"no table of what the {layer} templates fail"
    return {
        scenario: (int(failing), int(total), set(re.findall(r"`([a-z-]+)`", rules)))
        for scenario, failing, total, rules in rows
    }


def _measured_failures(name: str) -> Failures:
    """The template replayed over its layer's whole library, every quirk case, as `harness run`
    does by default."""
    layer, protocol = CASES[name]
    info = resolve_adapter(f"{name}:make_adapter")
    assert isinstance(info.factory(), protocol)
    results = [replay(case, info) for case in cases_for(load_every(library_path() / layer), info)]
    errors = [f"{r.scenario.case_id}: {r.error}" for r in results if r.status == "error"]
    assert not errors  # what it returns has the shape the doc gives
    runs: dict[str, list[tuple[str, ...]]] = {}
    for r in results:
        if r.status != "skip":
            runs.setdefault(r.scenario.id, []).append(r.rules_broken if r.status == "fail" else ())
    return {
        scenario: (
            sum(1 for rules in run if rules),
            len(run),
            {rule for rules in run for rule in rules},
        )
        for scenario, run in runs.items()
        if any(run)
    }


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if CASES[name][0] == "driver" else [])
        for name in sorted(CASES)
    ],
)
def test_a_template_fails_exactly_the_cases_the_doc_lists(name):
    """The templates are minimal: the doc lists what each fails, so that whoever copies one
    knows the gaps they inherit. A template failing another case, or no longer failing a listed
    one, must change the list."""
    assert _measured_failures(name) == _known_failures(CASES[name][0])


# chunk 7 holds the finish_reason, chunk 8 is [DONE]: the read of chunk 8 is cancelled
CANCELLED_BEFORE_DONE = """\
id: cancelled-between-finish-and-done
title: cancelled after the finish_reason, before [DONE]
description: the turn ends at [DONE]; a read cancelled before it leaves the turn unended
source: tests
layer: driver
dialects: [openai-chat]
cancel_after_reads: 7
trace:
  - cycle:
      blocks:
        - text: "Reading it."
        - tool_use: {id: call_a, name: read_file, input: {path: a.txt}}
"""


@pytest.mark.parametrize(
    "adapter",
    ["driver_sync:make_adapter", "driver_async:make_adapter", "driver-openai-chat-reference"],
)
def test_a_driver_template_ends_the_turn_where_the_reference_does(adapter):
    """Not at the finish_reason: reporting the turn's end there, before a cancelled read of
    [DONE], breaks turn-lifetime."""
    scenario = parse_driver(CANCELLED_BEFORE_DONE)
    chunks = [c.data for c in fed_chunks(*pick_case(scenario, "openai-chat", (), dialects()))]
    assert '"finish_reason":"tool_calls"' in chunks[6] and chunks[7] == "data: [DONE]\n\n"
    result = replay(scenario, resolve_adapter(adapter))
    assert (result.status, result.violations) == ("pass", ())


def _table_column(heading: str) -> list[str]:
    """The first column's code names of the table under ``heading``'s section."""
    section = DOC.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [name for row in rows for name in re.findall(r"`([a-z_-]+)`", row.split("|")[1])]


def test_the_doc_names_every_dialect_stop_reason_contract_and_read_mode():
    from harness.codecs import dialects
    from harness.model.driver import STOP_REASONS
    from harness.model.driver_run import CONTRACTS
    from harness.replay.driver import READS

    assert _table_column("### What a chunk is") == list(dialects())
    assert sorted(_table_column("### When a call is complete")) == sorted(dialects())
    assert "`end_turn`, `tool_use`, `max_tokens` or `stop_sequence`" in DOC
    assert list(STOP_REASONS) == ["end_turn", "tool_use", "max_tokens", "stop_sequence"]
    assert f'emits_calls = "{CONTRACTS[0]}"' in DOC and f'"{CONTRACTS[1]}"' in DOC
    assert f'reads = "{READS[0]}"' in DOC and f'"{READS[1]}"' in DOC


def test_the_doc_shows_chunks_as_a_driver_reads_them():
    from harness.codecs import dialects
    from harness.replay.cases import fed_chunks, pick_case
    from harness.scenario import DriverScenario, load_scenario

    scenario = load_scenario(library_path() / "driver" / "text-before-tool-call.yaml")
    assert isinstance(scenario, DriverScenario)

    def chunks(dialect: str) -> list[str]:
        case, codec = pick_case(scenario, dialect, (), dialects())
        return [c.data for c in fed_chunks(case, codec)]

    # what the page's table shows of each dialect's chunks is what a driver reads
    assert "`'data: [DONE]\\n\\n'`" in DOC
    assert "`'[{...'`, then `'\\n,\\r\\n{...'`, ..., `'\\n]'`" in DOC
    assert "after `response.completed`" in DOC
    assert chunks("openai-chat")[-1] == "data: [DONE]\n\n"
    assert chunks("anthropic")[0].startswith("event: message_start\ndata: {")
    assert chunks("anthropic")[-1].startswith("event: message_stop\n")
    array = chunks("gemini-json-array")
    assert array[0].startswith("[{") and array[1].startswith("\n,\r\n{") and array[-1] == "\n]"
    assert chunks("ag-ui")[0].startswith('data: {"type":"RUN_STARTED"')
    assert "response.completed" in chunks("openai-responses")[-1]


def test_the_doc_gives_every_session_event_and_observation_field():
    from dataclasses import fields

    from harness.model.observation import AttachedCall, Message, Notification, ToolStream
    from harness.model.session import EVENT_TYPES
    from harness.replay.driver import StreamCancelled

    kinds = set(_table_column("## The session layer"))
    assert kinds == set(EVENT_TYPES) - {"checkpoint"}  # a checkpoint is never fed
    for cls in (Notification, AttachedCall, Message, ToolStream):
        for field in fields(cls):
            assert f'"{field.name}"' in DOC, (cls.__name__, field.name)
    assert "harness.replay.driver.StreamCancelled" in DOC
    assert issubclass(StreamCancelled, BaseException) and not issubclass(StreamCancelled, Exception)
