"""What the stand-in serves, from its three sources: a driver scenario (its turn in a dialect,
as the case machinery feeds a driver), a vcrpy cassette (its responses, as recorded) or a raw
recorded body file. A ``_Program`` is the routes it answers and how the command line describes
them; ``_Program.answering`` is what the server asks of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from harness._errors import HarnessError, UsageError, WireError
from harness._files import read_bytes
from harness.codecs import Codec
from harness.replay.cases import fed_chunks, pick_case
from harness.scenario import DriverScenario, load_scenario
from harness.standin.http import Answer, _Response
from harness.wire import (
    Interaction,
    json_data,
    parse_json_array_stream,
    parse_jsonl,
    parse_sse,
    read_cassette,
)
from harness.wire.recordings import (
    Framing,
    event_pieces,
    framing_of,
    framing_of_text,
    recorded_responses,
)

SSE = "text/event-stream"

#: response headers a recording keeps that describe its own transfer, not the content
_UNSERVED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "content-encoding",
    }
)


@dataclass(frozen=True, slots=True)
class _Route:
    method: str
    path: str | None  # None: any path
    response: _Response

    def matches(self, method: str, path: str) -> bool:
        return method == self.method and self.path in (None, path)

    def __str__(self) -> str:
        return f"{self.method} {self.path or '(any path)'}"


@dataclass(frozen=True, slots=True)
class _Program:
    """Everything the stand-in answers, and how the command line describes it."""

    source: str
    summary: str
    routes: tuple[_Route, ...]
    #: one stream (a scenario's turn, a raw body) answers every request; a cassette's k-th
    #: response for a method and path answers request k for them only
    repeats: bool = False

    @property
    def longest(self) -> int:
        return max((len(r.response.chunks) for r in self.routes if r.response.streamed), default=0)

    def answer(self, method: str, path: str, seen: dict[tuple[str, str], int]) -> _Response:
        """Request k for a method and path gets the k-th route that matches (a scenario's one
        route answers them all); a request with no route, or past the recorded responses for
        its method and path, gets a 404 saying so. ``seen`` counts the requests so far."""
        matching = [r for r in self.routes if r.matches(method, path)]
        if not matching:
            return self._not_found(f"nothing is served for {method} {path}")
        k = seen.get((method, path), 0)
        seen[(method, path)] = k + 1
        if self.repeats:
            return matching[min(k, len(matching) - 1)].response
        if k >= len(matching):
            n = len(matching)
            return self._not_found(
                f"the recording has {n} {'response' if n == 1 else 'responses'} for {method} "
                f"{path}, and this is request {k + 1} for them: there is no response {k + 1} "
                "to serve"
            )
        return matching[k].response

    def _not_found(self, message: str) -> _Response:
        served = list(dict.fromkeys(str(r) for r in self.routes))
        body = {
            "error": {
                "type": "not_found",
                "message": message,
                "served": served,
                "source": self.source,
            }
        }
        text = json.dumps(body, ensure_ascii=False).encode()
        return _Response(404, (("Content-Type", "application/json"),), (text,), False)

    def answering(self) -> Answer:
        """What the server asks for each request, counting the requests of one serving."""
        seen: dict[tuple[str, str], int] = {}
        return lambda request: self.answer(request.method, request.path, seen)


def _program(
    source: str | Path | DriverScenario,
    dialect: str | None,
    quirks: Sequence[str],
    codecs: Mapping[str, Codec],
) -> _Program:
    if isinstance(source, DriverScenario):
        return _scenario_program(source, dialect, quirks, codecs)
    path = str(source)
    if Path(path).suffix.lower() in (".yaml", ".yml") and not _is_cassette(path):
        scenario = load_scenario(path)
        if not isinstance(scenario, DriverScenario):
            raise UsageError(
                f"{path} is a {scenario.layer} scenario; harness serve serves driver scenarios "
                "(a provider's stream), vcrpy cassettes and recorded bodies"
            )
        return _scenario_program(scenario, dialect, quirks, codecs)
    if dialect is not None or quirks:
        raise UsageError(
            f"{path} is a recording, served as recorded: --dialect and --quirk are for scenarios"
        )
    if Path(path).suffix.lower() in (".yaml", ".yml"):
        return _cassette_program(path)
    return _body_file_program(path)


def _is_cassette(path: str) -> bool:
    try:
        head = read_bytes(path, what="file")[: 1 << 20]
    except HarnessError:
        return False  # the scenario loader says why it cannot be read
    return re.search(rb"^interactions[ \t]*:", head, re.MULTILINE) is not None


def _scenario_program(
    scenario: DriverScenario,
    dialect: str | None,
    quirks: Sequence[str],
    codecs: Mapping[str, Codec],
) -> _Program:
    case, codec = pick_case(scenario, dialect, tuple(quirks), codecs)
    encoded = fed_chunks(case, codec)
    chunks = tuple(c.data.encode() for c in encoded)  # numbered as `harness run` numbers them
    media = getattr(codec, "content_type", SSE)
    headers: list[tuple[str, str]] = [("Content-Type", media)]
    if media == SSE:
        headers.append(("Cache-Control", "no-cache"))
    added = [q for q in case.quirks if q not in scenario.quirks]
    summary = ", ".join(
        [
            scenario.path,
            f"dialect {codec.name}",
            *([f"quirks {'+'.join(added)}"] if added else []),
            f"{len(chunks)} chunks",
        ]
    )
    response = _Response(200, tuple(headers), chunks, True)
    return _Program(scenario.path, summary, (_Route("POST", None, response),), repeats=True)


def _cassette_program(path: str) -> _Program:
    interactions = read_cassette(path)
    routes = tuple(
        _Route(i.request_method.upper(), urlsplit(i.request_uri).path or "/", _recorded(i))
        for i in interactions
    )
    streamed = [r for r in routes if r.response.streamed]
    if not streamed:
        why = "; ".join(
            f"interactions[{r.interaction}]: {r.problem}" for r in recorded_responses(path)
        )
        raise WireError(
            path,
            interactions[0].line if interactions else 1,
            "not a stream in it, nothing to stream (a stream is text/event-stream, a streamed "
            f"JSON array or JSON lines){': ' + why if why else ''}",
        )
    chunks = sum(len(r.response.chunks) for r in streamed)
    summary = f"{path}, {len(routes)} recorded {'response' if len(routes) == 1 else 'responses'}, {chunks} chunks streamed"
    return _Program(path, summary, routes)


def _recorded(interaction: Interaction) -> _Response:
    body, source = interaction.response_body, interaction.response_source
    media = ",".join(interaction.header("content-type"))
    framing = framing_of(media, body, interaction.request_uri)
    pieces = _frame(body, framing, source) if framing else ((body,) if body else ())
    headers = tuple(
        (name, value)
        for name, values in interaction.response_headers.items()
        if name.lower() not in _UNSERVED
        for value in values
    )
    chunks = tuple(p.encode() for p in pieces if p)
    return _Response(interaction.response_status, headers, chunks, framing is not None)


def _frame(body: str, framing: Framing, source: str) -> tuple[str, ...]:
    """The body cut at its event boundaries, after checking that it frames (a body cut short
    is a located ``WireError``). The pieces join up to the body exactly."""
    if framing == "sse":
        events = parse_sse(body, source=source)
        if not events:
            raise WireError(source, 1, "no server-sent event in it: not a recorded stream")
        for event in events:
            json_data(event)  # an event cut short is not JSON
    elif framing == "json-array":
        parse_json_array_stream(body, source)
    else:
        parse_jsonl(body, source)
    return tuple(event_pieces(body, framing))


#: what a raw body file is served as, by how it streams
_MEDIA: dict[Framing, str] = {
    "sse": SSE,
    "json-array": "application/json",
    "jsonl": "application/x-ndjson",
}


def _body_file_program(path: str) -> _Program:
    raw = read_bytes(path, what="file")
    parse_sse(raw, source=path)  # binary input is refused here, located, whatever the framing
    body = raw.decode("utf-8")
    if not body.strip("\ufeff \t\r\n"):
        raise WireError(path, 1, "the file is empty: there is nothing to stream")
    framing = framing_of_text(body) or "sse"  # what is not an event stream fails to frame as one
    chunks = tuple(p.encode() for p in _frame(body, framing, path))
    headers: tuple[tuple[str, str], ...] = (("Content-Type", _MEDIA[framing]),)
    response = _Response(200, headers, chunks, True)
    summary = f"{path}, recorded {framing} body, {len(chunks)} chunks"
    return _Program(path, summary, (_Route("POST", None, response),), repeats=True)
