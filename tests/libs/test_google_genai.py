"""What the Google Gen AI SDK's ``client.models.generate_content_stream`` hands its user: the
adapter replayed over driver scenarios, and the SDK read directly (no harness) where the matrix
cannot reach, with a body served by an offline ``httpx2`` transport."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.registry import resolve_adapter
from harness.replay import replay
from harness.scenario import load_scenario

genai = pytest.importorskip("google.genai", reason="google-genai is not installed (its extra)")
httpx2 = pytest.importorskip("httpx2", reason="httpx2 is not installed (extra 'google-genai')")

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"
ADAPTER = "harness.adapters.libs.google_genai:make_adapter"


@pytest.mark.parametrize("name", ["text-before-tool-call", "parallel-calls", "empty-arguments"])
def test_the_adapter_passes_every_case_of_a_plain_scenario(name: str) -> None:
    result = replay(load_scenario(DRIVER / f"{name}.yaml"), resolve_adapter(ADAPTER))
    assert result.status == "pass", result.violations


class Body(httpx2.SyncByteStream):  # type: ignore[misc, name-defined]
    """The body, one piece per read, remembering how far it was read and whether it was closed."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.reads = 0
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.pieces:
            self.reads += 1
            yield piece

    def close(self) -> None:
        self.closed = True


def sse(*responses: dict[str, Any]) -> list[bytes]:
    return [f"data: {json.dumps(r)}\r\n\r\n".encode() for r in responses]


def response(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


def stream(body: Body) -> Iterator[Any]:
    def answer(request: Any) -> Any:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=body, request=request)

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    client = genai.Client(api_key="offline", http_options={"httpx_client": http})
    chunks: Iterator[Any] = client.models.generate_content_stream(
        model="gemini-2.5-flash", contents="go"
    )
    return chunks


def test_a_stopped_stream_closes_its_response_once_the_iterator_goes() -> None:
    """The user breaks out after the first chunk: the response stays open while the user holds
    the iterator, and is closed (by httpx2's byte iterator) once the iterator is let go."""
    body = Body(sse(response({"text": "Hi"}), response({"text": "!"}, finish="STOP")))
    chunks = stream(body)
    for _ in chunks:
        break
    assert (body.reads, body.closed) == (1, False)
    del chunks
    gc.collect()
    assert body.closed


def test_function_calls_come_whole_with_their_id_or_none() -> None:
    body = Body(
        sse(
            response({"functionCall": {"name": "read", "args": {"p": "a"}, "id": "c1"}}),
            response({"functionCall": {"name": "list"}}, finish="STOP"),
        )
    )
    calls = [
        (p.function_call.id, p.function_call.name, p.function_call.args)
        for chunk in stream(body)
        for p in chunk.candidates[0].content.parts
    ]
    assert calls == [("c1", "read", {"p": "a"}), (None, "list", None)]


def test_a_body_cut_before_its_finish_reason_ends_quietly() -> None:
    """No finishReason ever came: the SDK's iterator simply ends, without an error, and the
    only sign of the cut is a last chunk without a finish_reason."""
    body = Body(sse(response({"text": "Deleting the"})))
    chunks = list(stream(body))
    assert [(c.text, c.candidates[0].finish_reason) for c in chunks] == [("Deleting the", None)]
    assert body.closed


def test_a_data_line_without_its_space_is_not_read() -> None:
    """SSE allows ``data:{...}``; the SDK strips only ``data: `` and parses the line as raw JSON,
    so a gateway that leaves the space out makes the stream raise (googleapis/python-genai#1364,
    open). Gemini itself writes the space, and the harness's Gemini codec never leaves it out."""
    body = Body([b"data:" + json.dumps(response({"text": "Hi"}, finish="STOP")).encode() + b"\n\n"])
    with pytest.raises(genai.errors.UnknownApiResponseError):
        list(stream(body))
