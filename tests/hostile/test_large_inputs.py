"""Large valid inputs: work that a large input makes long is done once, not again per case, per
round or per read. Each test counts the work (calls, collections), not seconds: the seconds are
``benchmarks/large_inputs.py``'s, measured against a baseline in the same run."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.wire import read_cassette
from harness.wire import recordings as recordings_module
from harness.wire.recordings import recorded_cassette
from harness.wirereplay import SdkReplay, recorded_stream
from tests.hostile.for_tests import ROOT, write

URI = "https://api.openai.com/v1/chat/completions"
TOOLS = ROOT / "cassettes" / "real-traffic" / "llm-anthropic" / "test_tools.yaml"


def _cassette(interactions: int) -> str:
    event = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "hi"}}],
    }
    body = json.dumps(f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n")
    one = (
        f"- request:\n    method: POST\n    uri: '{URI}'\n    body: null\n    headers: {{}}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        f"    headers: {{Content-Type: [text/event-stream]}}\n    body: {{string: {body}}}\n"
    )
    return "interactions:\n" + one * interactions + "version: 1\n"


def test_reading_a_cassette_runs_no_garbage_collection(tmp_path: Path) -> None:
    """Its values are many new objects and no garbage: each collection walked them all again
    (a cassette of 20,000 interactions took twice as long)."""
    path = write(tmp_path / "c.yaml", _cassette(2_000))
    collections: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        assert len(read_cassette(path)) == 2_000
    finally:
        gc.callbacks.remove(count)
    # at most the one pass over the youngest generation (what was built) once collection is on
    # again; it ran dozens of times, over all three generations
    assert collections in ([], [0]), collections
    assert gc.isenabled()


def test_a_cassette_read_again_unchanged_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``harness bench --wire`` read it for the stream and again for its scenario; a run reads
    it again for every ``wire:`` scenario that names it."""
    path = write(tmp_path / "c.yaml", _cassette(3))
    reads: list[object] = []
    real = recordings_module.read_cassette

    def counted(*args: Any) -> Any:
        reads.append(args)
        return real(*args)

    monkeypatch.setattr(recordings_module, "read_cassette", counted)
    first = recorded_cassette(path, 2)
    assert recorded_cassette(path, 2) == first and len(reads) == 1
    recorded_cassette(path)  # another interaction (all of them): read
    assert len(reads) == 2
    write(path, _cassette(4))  # changed: read again
    assert len(recorded_cassette(path)) == 4 and len(reads) == 3
    monkeypatch.setenv("HARNESS_MAX_CASSETTE_BYTES", "1")  # another limit: read again
    with pytest.raises(Exception, match="HARNESS_MAX_CASSETTE_BYTES"):
        recorded_cassette(path)
    assert len(reads) == 4


def test_vcrpy_reads_a_cassette_once_for_every_replay_and_is_served_the_one_interaction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every round of ``harness bench --wire`` had vcrpy read the whole cassette again (seconds
    for 20,000 interactions), counted as the SDK's time."""
    from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]

    loads: list[str] = []
    served: list[int] = []
    real = FilesystemPersister.load_cassette

    def counted(path: str, serializer: Any) -> Any:
        loads.append(os.fspath(path))
        return real(path, serializer)

    monkeypatch.setattr(FilesystemPersister, "load_cassette", staticmethod(counted))
    replay = SdkReplay(recorded_stream(TOOLS, 1))
    outcomes = {replay.run() for _ in range(3)}
    assert len(outcomes) == 1 and len(loads) == 1
    served.append(len(replay.persister.load_cassette(str(TOOLS), None)[0]))
    assert served == [1]
    (outcome,) = outcomes
    assert not outcome.tool_calls and "pelican" in outcome.text  # interaction 1, not 0
