"""The stand-in serving a loop scenario: response k answers request k, each encoded in the
dialect when it is asked for, and every request kept with when it came.

The dialect is the one asked for, or else the one the program's first request speaks, by its
path: ``.../messages`` (Anthropic), ``.../chat/completions`` (OpenAI Chat Completions),
``.../responses`` (OpenAI Responses). Each response's final events (from the one that says why
the message stopped to the last) are held back ``settle`` seconds each, and a request that
arrives before the response served just before it has sent its last event is marked ``early``:
its program acted on a turn that had not ended. A request past the responses, or to a path of
another dialect, gets an error answer in the dialect's shape (HTTP 400 or 404, a JSON error
body saying why), and is kept to be judged. Requests other than POSTs get a 404 and are not
judged.

::

    with serving_loop(scenario) as stand:
        run_my_program(env=stand.env())
        facts = stand.facts()       # what the loop rules judge
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from harness._errors import UsageError
from harness.codecs import Codec, dialects
from harness.codecs.anthropic import SIGNATURE
from harness.codecs.openai_responses import reasoning_item_id
from harness.model import driver as dv
from harness.model.loop import LoopRequest, ProgramOutcome, StreamedTurn, streamed_turn
from harness.replay.cases import fed_chunks, pick_case
from harness.rules.loop import LoopFacts
from harness.scenario import DriverScenario, LoopResponse, LoopScenario
from harness.scenario.types import fields_of
from harness.standin.faults import Cut, Fault, Stall
from harness.standin.http import ReceivedRequest, _Response, _Server

__all__ = [
    "DEFAULT_SETTLE",
    "LoopStand",
    "carried",
    "dialect_of_path",
    "served_chunks",
    "serving_loop",
]

#: how long each of a response's final events is held back, in seconds: long enough for a
#: program that sends its next request early to be seen doing it
DEFAULT_SETTLE = 0.2

SSE = "text/event-stream"

#: the endpoint each loop dialect is asked at, as its path ends
_ENDPOINTS = (
    ("/chat/completions", "openai-chat"),
    ("/responses", "openai-responses"),
    ("/messages", "anthropic"),
)
_GEMINI = (":streamGenerateContent", ":generateContent")


def dialect_of_path(path: str) -> str | None:
    """The dialect a request path asks in (``gemini`` for a Gemini model's path, which loops are
    not served in), or None."""
    stripped = path.rstrip("/")
    for end, dialect in _ENDPOINTS:
        if stripped.endswith(end):
            return dialect
    if any(stripped.endswith(g) or g + "?" in stripped for g in _GEMINI):
        return "gemini"
    return None


def _endpoint(dialect: str) -> str:
    return next(f"POST /v1{end}" for end, d in _ENDPOINTS if d == dialect)


class _LoopProgram:
    """What the server asks for each request: the next response, or an error answer."""

    def __init__(
        self,
        scenario: LoopScenario,
        dialect: str | None,
        settle: float,
        codecs: Mapping[str, Codec],
    ) -> None:
        self.scenario = scenario
        self.dialect = dialect
        self.settle = settle
        self.codecs = codecs
        self.requests: list[LoopRequest] = []
        self.others: list[ReceivedRequest] = []  # not POSTs: answered 404, not judged
        self.turns: dict[int, StreamedTurn] = {}
        self.ended: dict[int, threading.Event] = {}
        #: why the program cannot be served this scenario: it speaks a dialect the scenario
        #: does not run in, or one loops are not served in
        self.unserved: str | None = None

    # called under the server's lock, one request at a time
    def answer(self, request: ReceivedRequest) -> _Response:
        if request.method != "POST":
            self.others.append(request)
            why = f"{request.method} {request.path} is not served: a loop answers model requests"
            return self._error(404, why, self.dialect)
        number = len(self.requests) + 1
        k = len(self.turns)
        after = k - 1 if k > 0 else None
        early = after is not None and not self.ended[after].is_set()
        asked = dialect_of_path(request.path)

        def refuse(status: int, why: str, *, extra: bool = False) -> _Response:
            self.requests.append(
                LoopRequest(
                    number,
                    request.method,
                    request.path,
                    request.body,
                    None,
                    early,
                    why,
                    extra,
                    after,
                )
            )
            return self._error(status, why, self.dialect or asked)

        if self.dialect is None:
            unservable = self._unservable(asked, request.path)
            if unservable is not None:
                if self.unserved is None and not self.requests:
                    self.unserved = unservable
                return refuse(404, unservable)
            assert asked is not None  # else it is unservable
            self.dialect = asked
        if asked != self.dialect:
            return refuse(
                404,
                f"POST {request.path} is not a request of the {self.dialect} dialect this run "
                f"serves ({_endpoint(self.dialect)})",
            )
        if k >= len(self.scenario.responses):
            n = len(self.scenario.responses)
            return refuse(
                400,
                f"the scenario has {n} response{'s' if n > 1 else ''}, all served; this request "
                f"is one more than the loop should send",
                extra=True,
            )
        self.requests.append(
            LoopRequest(number, request.method, request.path, request.body, k, early, after=after)
        )
        return self._serve(k, self.dialect)

    def _unservable(self, asked: str | None, path: str) -> str | None:
        """Why a program whose first request is to ``path`` cannot be served the scenario."""
        if asked is None:
            return (
                f"POST {path} is no model request of a dialect loops are served in "
                f"({', '.join(_ENDPOINTS_SAID)})"
            )
        if asked not in ("anthropic", "openai-chat", "openai-responses"):
            return f"the program speaks {asked}, which loops are not served in"
        if asked not in self.scenario.dialects:
            runs = ", ".join(self.scenario.dialects) or "no dialect"
            return f"the program speaks {asked} (POST {path}), and the scenario runs in {runs}"
        return carried(self.scenario, asked, self.codecs)

    def _serve(self, k: int, dialect: str) -> _Response:
        response = self.scenario.responses[k]
        codec = self.codecs[dialect]
        quirks = _quirks(response, dialect, codec)
        chunks = served_chunks(response, self.scenario, dialect, self.codecs)
        cut = response.body_cut is not None
        told = chunks[-1].origin if cut and chunks else None
        self.turns[k] = streamed_turn(
            response.turn, told=told, signatures=_signatures(response.turn, dialect, quirks)
        )
        ended = self.ended[k] = threading.Event()
        # the chunks stop at a cut already; the cut itself says how the body ends (a dropped
        # connection, or a terminating chunk after a stream that never ended)
        faults: list[Fault] = [f for f in response.transport if isinstance(f, (Stall, Cut))]
        faults += [Stall(n, self.settle) for n in _final_chunks(chunks, response.turn)]
        media = getattr(codec, "content_type", SSE)
        headers: list[tuple[str, str]] = [("Content-Type", media)]
        if media == SSE:
            headers.append(("Cache-Control", "no-cache"))
        return _Response(
            200,
            tuple(headers),
            tuple(c.data.encode() for c in chunks),
            True,
            faults=tuple(faults),
            on_last=ended.set,
        )

    def _error(self, status: int, message: str, dialect: str | None) -> _Response:
        if dialect == "anthropic":
            body: dict[str, Any] = {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": message},
            }
        else:
            body = {
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "harness_loop",
                }
            }
        text = json.dumps(body, ensure_ascii=False).encode()
        return _Response(status, (("Content-Type", "application/json"),), (text,), False)


_ENDPOINTS_SAID = tuple(f"...{end}" for end, _ in _ENDPOINTS)


def _quirks(response: LoopResponse, dialect: str, codec: Codec) -> list[str]:
    """The response's quirks this dialect knows, and Anthropic's thinking signatures, which the
    Messages API sends with every thinking block."""
    quirks = [q for q in response.quirks if q in codec.quirks]
    thinking = any(isinstance(e, dv.BlockStart) and e.block == "thinking" for e in response.turn)
    if dialect == "anthropic" and thinking and "signature_delta" not in quirks:
        quirks.append("signature_delta")
    return quirks


def carried(scenario: LoopScenario, dialect: str, codecs: Mapping[str, Codec]) -> str | None:
    """Why ``dialect`` cannot serve every response of the scenario (a body cut at a chunk its
    stream does not reach, or that loses nothing of the turn), or None."""
    for n, response in enumerate(scenario.responses, 1):
        try:
            served_chunks(response, scenario, dialect, codecs)
        except UsageError as exc:
            return f"response {n} cannot be served in {dialect}: {exc}"
    return None


def served_chunks(
    response: LoopResponse, scenario: LoopScenario, dialect: str, codecs: Mapping[str, Codec]
) -> tuple[dv.WireChunk, ...]:
    """The chunks ``response`` is served as in ``dialect``, cut where its transport cuts it (a
    ``UsageError`` says why the dialect cannot carry it)."""
    codec = codecs[dialect]
    as_driver = DriverScenario(
        **fields_of(scenario),
        turn=response.turn,
        dialects=(dialect,),
        quirks=tuple(_quirks(response, dialect, codec)),
        transport=response.transport,
    )
    case, codec = pick_case(as_driver, dialect, (), {dialect: codec})
    return fed_chunks(case, codec)


def _final_chunks(chunks: tuple[dv.WireChunk, ...], turn: tuple[dv.TurnEvent, ...]) -> range:
    """The numbers (from 1) of the chunks that end the response: from the first that tells why
    the message stopped (or, on a body cut short or a failed stream, the last) to the end."""
    stop = next((i for i, e in enumerate(turn) if isinstance(e, dv.CycleDelta)), None)
    first = len(chunks)
    if stop is not None:
        first = next((n for n, c in enumerate(chunks, 1) if c.origin >= stop), len(chunks))
    return range(max(first, 1), len(chunks) + 1)


def _signatures(turn: tuple[dv.TurnEvent, ...], dialect: str, quirks: list[str]) -> list[str]:
    """What the dialect carries for each thinking block: Anthropic's signature, a Responses
    reasoning item's id; nothing in Chat Completions."""
    message_id = next((e.message_id for e in turn if isinstance(e, dv.CycleStart)), "")
    blocks = [e.index for e in turn if isinstance(e, dv.BlockStart) and e.block == "thinking"]
    if dialect == "anthropic" and "signature_delta" in quirks:
        return [SIGNATURE] * len(blocks)
    if dialect == "openai-responses":
        return [reasoning_item_id(message_id, index) for index in blocks]
    return [""] * len(blocks)


class LoopStand:
    """A running loop stand-in (what ``serving_loop`` yields)."""

    def __init__(self, server: _Server, program: _LoopProgram) -> None:
        self._server = server
        self._program = program
        host, port = str(server.server_address[0]), int(server.server_address[1])
        #: the base URL of the stand-in, e.g. ``http://127.0.0.1:54321``
        self.url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        #: what the OpenAI SDKs take as ``base_url`` (``OPENAI_BASE_URL``)
        self.openai_base_url = f"{self.url}/v1"
        #: what the Anthropic SDKs take as ``base_url`` (``ANTHROPIC_BASE_URL``)
        self.anthropic_base_url = self.url
        #: what the Gemini SDKs take as their base URL (loops are not served in Gemini's dialect:
        #: its requests get an error that says so)
        self.gemini_base_url = self.url
        self.scenario = program.scenario

    @property
    def dialect(self) -> str | None:
        """The dialect served: the one asked for, or the one the first request spoke."""
        with self._server.lock:
            return self._program.dialect

    @property
    def unserved(self) -> str | None:
        """Why the program could not be served the scenario (it speaks another dialect), if so."""
        with self._server.lock:
            return self._program.unserved

    @property
    def requests(self) -> tuple[LoopRequest, ...]:
        """The model requests received so far, in order."""
        with self._server.lock:
            return tuple(self._program.requests)

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The variables that point a program's SDKs at the stand-in: ``OPENAI_BASE_URL`` (with
        ``/v1``), ``ANTHROPIC_BASE_URL``, ``GOOGLE_GEMINI_BASE_URL``, ``HARNESS_LOOP_URL``, and
        dummy API keys where ``base`` has none; loopback kept off any proxy."""
        env = dict(base or {})
        env["OPENAI_BASE_URL"] = self.openai_base_url
        env["ANTHROPIC_BASE_URL"] = self.anthropic_base_url
        env["GOOGLE_GEMINI_BASE_URL"] = self.gemini_base_url
        env["HARNESS_LOOP_URL"] = self.url
        for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
            if not env.get(key):
                env[key] = "harness-loop-dummy-key"
        hosts = ["127.0.0.1", "localhost", "::1"]
        for key in ("NO_PROXY", "no_proxy"):
            given = [h for h in env.get(key, "").split(",") if h]
            env[key] = ",".join(dict.fromkeys([*given, *hosts]))
        return env

    def facts(self, outcome: ProgramOutcome | None = None) -> LoopFacts:
        """What the loop rules judge: the turns served, the requests, and how the program
        ended (``outcome``; None where there is no program: the pytest fixture)."""
        with self._server.lock:
            program = self._program
            turns = tuple(program.turns.get(k) for k in range(len(program.scenario.responses)))
            return LoopFacts(
                program.dialect or "",
                turns,
                program.scenario.agents,
                tuple(program.requests),
                outcome,
                program.settle,
            )

    def wait_streams(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every response served has sent its last
        event, so that the facts are taken once the streams are done."""
        deadline = time.monotonic() + timeout
        with self._server.lock:
            events = list(self._program.ended.values())
        for event in events:
            event.wait(max(0.0, deadline - time.monotonic()))


@contextlib.contextmanager
def serving_loop(
    scenario: LoopScenario,
    *,
    dialect: str | None = None,
    settle: float = DEFAULT_SETTLE,
    host: str = "127.0.0.1",
    port: int = 0,
    codecs: Mapping[str, Codec] | None = None,
) -> Iterator[LoopStand]:
    """Serve ``scenario``'s responses, one per request, on ``host:port`` until the block ends.

    ``dialect``: serve in this dialect only (a request of another gets an error answer); None:
    in the one the first request speaks. A dialect the scenario cannot run in is a
    ``UsageError``.
    """
    known = dialects() if codecs is None else codecs
    if dialect is not None and dialect not in scenario.dialects:
        raise UsageError(
            f"{scenario.path}: {scenario.id} runs in {', '.join(scenario.dialects)}, not {dialect}"
        )
    if dialect is not None:
        why = carried(scenario, dialect, known)
        if why is not None:
            raise UsageError(f"{scenario.path}: {scenario.id}: {why}")
    if not 0 <= settle <= 2:
        raise UsageError(f"the settle time must be between 0 and 2 seconds, got {settle}")
    program = _LoopProgram(scenario, dialect, settle, known)
    try:
        server = _Server((host, port), program.answer, ())
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.1},
        name="harness-loop",
        daemon=True,
    )
    thread.start()
    try:
        yield LoopStand(server, program)
    finally:
        server.stop()
        thread.join()
