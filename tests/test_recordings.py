"""Which streamed responses a recording holds and their dialects (``harness.wire.recordings``).

The expected dialects come from tests/test_codecs.py's table (written by reading each recording)
and from the manifest's provider column, not from this module's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.wire import WireError
from harness.wire.recordings import recorded_responses, recorded_streams
from tests.test_codecs import RECORDINGS as CODEC_TABLE

ROOT = Path(__file__).parent.parent
REAL = ROOT / "cassettes" / "real-traffic"

#: manifest provider column -> dialect, for the rows test_codecs does not list
PROVIDERS = {
    "OpenAI Responses": "openai-responses",
    "Gemini `alt=sse`": "gemini-sse",
    "Gemini 3 `alt=sse`": "gemini-sse",
    "Gemini 3.1 (Vertex)": "gemini-sse",
    "Gemini `streamGenerateContent` (no `alt=sse`)": "gemini-json-array",
    "Gemini 3 (JSON array)": "gemini-json-array",
    "Gemini (JSON array)": "gemini-json-array",
}


def _manifest() -> dict[str, str]:
    rows = {}
    for row in (REAL / "MANIFEST.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in row.split("|")]
        if len(cells) < 4:
            continue
        named = [key for key in PROVIDERS if cells[2].split(",")[0].startswith(key)]
        if named:
            rows[cells[1].replace(" (R)", "")] = PROVIDERS[max(named, key=len)]
    return rows


@pytest.mark.parametrize("entry", CODEC_TABLE, ids=lambda r: f"{r.path}#{r.interaction}")
def test_the_dialect_of_every_listed_anthropic_and_chat_stream(entry) -> None:
    (found,) = [
        r for r in recorded_responses(REAL / entry.path) if r.interaction == entry.interaction
    ]
    assert (found.dialect, found.problem) == (entry.dialect, None)


def test_the_gemini_and_responses_recordings_by_the_manifest() -> None:
    rows = _manifest()
    assert len(rows) == 9
    for name, dialect in rows.items():
        streams = recorded_streams(REAL / name)
        assert streams, name
        assert {s.dialect for s in streams} == {dialect}, name


def test_empty_bodies_are_listed_with_why_and_left_out_of_the_streams() -> None:
    path = REAL / "openllmetry/test_music_composer_handoff_hierarchy.yaml"
    responses = recorded_responses(path)
    assert [r.problem for r in responses if r.problem] == ["the body is empty"] * 2
    assert [s.interaction for s in recorded_streams(path)] == [1, 2, 4]


def test_json_lines_get_back_their_sse_framing() -> None:
    path = REAL / "vercel-ai/groq-tool-call.chunks.txt"
    (stream,) = recorded_streams(path)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert stream.framing == "jsonl"
    assert stream.body == "".join(f"data: {line}\n\n" for line in lines)


def test_what_is_not_a_stream_says_why(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    cassette.write_text(
        "version: 1\ninteractions:\n- request: {method: POST, uri: 'https://x/v1/messages',"
        " body: null, headers: {}}\n  response:\n    status: {code: 200, message: OK}\n"
        "    headers: {Content-Type: [application/json]}\n"
        '    body: {string: \'{"type": "message"}\'}\n',
        encoding="utf-8",
    )
    (only,) = recorded_responses(cassette)
    assert only.problem is not None and "not a streamed response" in only.problem
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\n", encoding="utf-8")
    (raw,) = recorded_responses(junk)
    assert raw.problem == "neither server-sent events, a JSON array, nor JSON lines"
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"data: \xff\xfe\n\n")
    with pytest.raises(WireError) as info:
        recorded_responses(binary)
    assert info.value.line == 1 and "not UTF-8" in info.value.message
