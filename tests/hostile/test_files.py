"""Odd files given to every reader: a FIFO, a device, a folder, a missing file, a file past the
size limit. Each is refused, located (exit 2 on the command line), before anything hangs or
fills memory; a large valid file is read."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import HarnessError
from harness._files import DEFAULT_MAX_FILE_BYTES, LIMIT_VARIABLE, max_file_bytes, read_bytes
from harness.codecs import dialects
from harness.scenario import load_scenario
from harness.standin.programs import _program
from harness.wire import read_cassette
from harness.wire.recordings import recorded_responses
from tests.hostile.for_tests import FUZZ, ROOT, outcome, run_cli, write

CASSETTE = ROOT / "cassettes/real-traffic/llm/test_tool_use_basic.yaml"
SCENARIO = ROOT / "scenarios/session/tool-first-turn.yaml"
HISTORY = '[{"role": "user", "content": "hi"}]\n'

READERS: dict[str, Callable[[Path], object]] = {
    "scenario": lambda p: load_scenario(p),
    "cassette": lambda p: read_cassette(p),
    "recording": lambda p: recorded_responses(p),
    "history": lambda p: run_cli("files", "check-history", str(p)),
    "convert": lambda p: run_cli("files", "convert", str(p), "--out", "-"),
    "validate": lambda p: run_cli("files", "validate", str(p)),
    "serve": lambda p: _program(str(p), None, (), dialects()),
}


def odd_file(folder: Path, kind: str, suffix: str) -> Path:
    path = folder / f"odd-{kind}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero-link":
        path.symlink_to("/dev/zero")
    elif kind == "null":
        path.symlink_to("/dev/null")
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(folder / "nothing-here")
    return path


def refused(kind: str, reader: str, path: Path) -> None:
    result = outcome("files", lambda: READERS[reader](path))
    if isinstance(result, tuple):  # the command line
        code, _, err = result
        assert code == 2 and str(path) in err, (code, err)
    else:
        assert isinstance(result, HarnessError), result


@FUZZ
@given(
    kind=st.sampled_from(["fifo", "zero-link", "null", "folder", "dangling", "missing"]),
    reader=st.sampled_from(sorted(READERS)),
    suffix=st.sampled_from([".yaml", ".txt", ".json"]),
)
def test_what_is_not_a_regular_file_is_refused_without_reading(
    tmp_path_factory: pytest.TempPathFactory, kind: str, reader: str, suffix: str
) -> None:
    folder = tmp_path_factory.mktemp("odd")
    path = odd_file(folder, kind, suffix)
    started = time.perf_counter()
    refused(kind, reader, path)
    assert time.perf_counter() - started < 10  # a FIFO never blocks the read


@FUZZ
@given(
    reader=st.sampled_from(sorted(READERS)),
    size=st.integers(min_value=1025, max_value=64 * 1024),
)
def test_a_file_past_the_size_limit_is_refused_at_its_first_line(
    tmp_path_factory: pytest.TempPathFactory, reader: str, size: int
) -> None:
    folder = tmp_path_factory.mktemp("big")
    body = {
        "scenario": SCENARIO.read_bytes(),
        "cassette": CASSETTE.read_bytes(),
        "history": HISTORY.encode(),
    }.get(reader, b"data: {}\n\n")
    path = write(folder / f"big{'.yaml' if reader != 'history' else '.json'}", body)
    with path.open("ab") as file:
        file.write(b"\n" + b"#" * size)
    os.environ[LIMIT_VARIABLE] = "1K"
    try:
        result = outcome("files", lambda: READERS[reader](path))
    finally:
        del os.environ[LIMIT_VARIABLE]
    text = str(result if not isinstance(result, tuple) else result[2])
    assert "larger" in text and LIMIT_VARIABLE in text, text


def test_the_limit_is_documented_configurable_and_at_least_100_mb(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert max_file_bytes() == DEFAULT_MAX_FILE_BYTES >= 100 * 1000 * 1000
    for given_, expected in (("2G", 2 << 30), ("500m", 500 << 20), ("4096", 4096)):
        monkeypatch.setenv(LIMIT_VARIABLE, given_)
        assert max_file_bytes() == expected
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    with pytest.raises(HarnessError, match=LIMIT_VARIABLE):
        max_file_bytes()


@pytest.mark.slow
def test_a_valid_50_mb_history_is_read(tmp_path: Path) -> None:
    message = '{"role": "user", "content": "' + "x" * 1000 + '"},\n'
    count = 50 * 1000 * 1000 // len(message) + 1
    path = write(
        tmp_path / "heavy.json", "[" + message * count + '{"role": "user", "content": "y"}]'
    )
    assert path.stat().st_size >= 50 * 1000 * 1000
    assert len(read_bytes(path)) == path.stat().st_size
    code, out, err = run_cli("files-heavy", "check-history", str(path))
    assert code == 0, err
    assert f"{count + 1} messages" in out
