"""Large valid inputs: work that a large input makes long is done once, not again per case, per
round or per read. Each test counts the work (calls, collections), not seconds: the seconds are
``benchmarks/large_inputs.py``'s, measured against a baseline in the same run."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from harness.wire import read_cassette
from harness.wire import recordings as recordings_module
from harness.wire.recordings import recorded_cassette
from tests.hostile.for_tests import write

URI = "https://api.openai.com/v1/chat/completions"


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
