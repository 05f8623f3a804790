"""Byte flips, truncations and insertions of the bundled scenarios, cassettes, recorded bodies and
a history: every reader gives a located error or a value, and a scenario that loads replays to a
verdict through the reference adapter of its layer; never a traceback."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.adapters.loop import LOOPS
from harness.loop.run import run_loop
from harness.replay import replay
from harness.scenario import DriverScenario, LoopScenario, load_scenario
from harness.wire import read_cassette
from harness.wire.recordings import recorded_responses
from tests.hostile.for_tests import FUZZ, ROOT, outcome, run_cli, write

REFERENCE = {"session": "session-reference", "history": "history-reference"}
HISTORY = json.dumps(
    {
        "model": "m",
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "checking"},
                    {"type": "tool_use", "id": "t1", "name": "get", "input": {"city": "Oslo"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}],
            },
        ],
    },
    indent=1,
)


@cache
def originals(kind: str) -> tuple[Path, ...]:
    if kind == "scenario":
        return tuple(sorted((ROOT / "scenarios").rglob("*.yaml")))
    found = sorted((ROOT / "cassettes").rglob("*"))
    if kind == "cassette":
        return tuple(p for p in found if p.suffix == ".yaml" and p.stat().st_size < 200_000)
    return tuple(p for p in found if p.suffix in (".txt", ".bin"))


PIECES = [b"\x00", b"\xff", b"\xc3", b"{", b"[", b"]", b"}", b":", b'"', b"\n", b"  ", b"- "]
PIECES += [b"&a ", b"*a", b"!!binary ", b"!!set ", b"9" * 5000, b"\r", b"\t", b"data: ", b"---\n"]
# an edit: where (a fraction of the length), how (flip a byte, cut there, insert, drop a line)
EDITS = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=1),
        st.sampled_from(["flip", "cut", "insert", "delete-line"]),
        st.sampled_from(PIECES),
    ),
    min_size=1,
    max_size=4,
)


def mutated(
    factory: pytest.TempPathFactory,
    kind: str,
    index: int,
    edits: list[tuple[float, str, bytes]],
    under: str = "",
) -> Path:
    """The ``index``-th original of ``kind`` (wrapping round) with ``edits``, written to a new
    folder (at ``under/`` its own name there)."""
    found = originals(kind)
    original = found[index % len(found)]
    folder = factory.mktemp("mutated")
    return write(folder / under / original.name, mutate(original.read_bytes(), edits))


def mutate(data: bytes, edits: list[tuple[float, str, bytes]]) -> bytes:
    for where, how, piece in edits:
        at = int(where * len(data))
        if how == "flip" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([data[at] ^ piece[0] | 1]) + data[at + 1 :]
        elif how == "cut":
            data = data[:at]
        elif how == "insert":
            data = data[:at] + piece + data[at:]
        else:
            end = data.find(b"\n", at)
            data = data[:at] + (data[end:] if end >= 0 else b"")
    return data


def verdict(path: Path) -> object:
    """Load the mutated scenario; if it loads, replay it through its reference adapter."""
    scenario = load_scenario(path)
    if isinstance(scenario, LoopScenario):
        # served to the reference loop of its first dialect, as harness loop serves it
        dialect = scenario.dialects[0] if scenario.dialects else "openai-chat"
        program = LOOPS.get(f"loop-{dialect}-reference", LOOPS["loop-openai-chat-reference"])
        looped = run_loop(scenario, program.command(), timeout=20)
        assert looped.status in ("pass", "fail", "error", "skip"), looped.status
        return looped
    if isinstance(scenario, DriverScenario):
        dialect = (scenario.dialects or ("openai-chat",))[0]
        adapter = f"driver-{dialect}-reference"
    else:
        adapter = REFERENCE[scenario.layer]
    result = replay(scenario, adapter, timeout=5)
    assert result.status in ("pass", "fail", "error", "skip"), result.status
    return result


@FUZZ
@given(index=st.integers(min_value=0), edits=EDITS)
def test_mutated_scenarios(
    tmp_path_factory: pytest.TempPathFactory, index: int, edits: list[tuple[float, str, bytes]]
) -> None:
    layer = originals("scenario")[index % len(originals("scenario"))].parent.name
    # as deep as the original, so that its recordings (../../cassettes) stay in reach
    path = mutated(tmp_path_factory, "scenario", index, edits, f"scenarios/{layer}")
    (path.parents[2] / "cassettes").symlink_to(ROOT / "cassettes")
    outcome("mutated scenarios", lambda: verdict(path))


@FUZZ
@given(index=st.integers(min_value=0), edits=EDITS)
def test_mutated_cassettes(
    tmp_path_factory: pytest.TempPathFactory, index: int, edits: list[tuple[float, str, bytes]]
) -> None:
    path = mutated(tmp_path_factory, "cassette", index, edits)
    outcome("mutated cassettes", lambda: read_cassette(path))
    outcome("mutated cassettes", lambda: recorded_responses(path))


@FUZZ
@given(index=st.integers(min_value=0), edits=EDITS)
def test_mutated_recorded_bodies(
    tmp_path_factory: pytest.TempPathFactory, index: int, edits: list[tuple[float, str, bytes]]
) -> None:
    path = mutated(tmp_path_factory, "body", index, edits)
    code, _, err = run_cli("mutated recordings", "convert", str(path), "--out", "-")
    assert code in (0, 2), err


@FUZZ
@given(edits=EDITS, repair=st.booleans())
def test_mutated_histories(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[float, str, bytes]], repair: bool
) -> None:
    path = write(tmp_path_factory.mktemp("mutated") / "h.json", mutate(HISTORY.encode(), edits))
    run_cli("mutated histories", "check-history", str(path), *(["--repair"] if repair else []))


def test_every_original_is_read() -> None:
    for path in originals("scenario"):
        load_scenario(path)
    for path in originals("cassette"):
        read_cassette(path)  # raises on a problem
