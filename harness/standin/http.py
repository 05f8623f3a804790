"""The stand-in's HTTP server: HTTP/1.1 on loopback, chunked, one write per HTTP chunk.

It knows nothing of how what it serves was made. It records each request it receives, asks an
``Answer`` for the response, and sends it, with the faults applied to a streamed body.
"""

from __future__ import annotations

import collections
import contextlib
import json
import re
import socket
import socketserver
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias
from urllib.parse import urlsplit

from harness.standin.faults import Fault, _schedule

__all__ = ["Answer", "ReceivedRequest"]

#: how long closing the stand-in waits for connections still being served to end
_CLOSE_WAIT = 5.0
#: the largest request body read (a larger one is answered 413): Anthropic's own limit on a
#: Messages request, https://docs.anthropic.com/en/api/overview#request-size-limits
MAX_REQUEST_BYTES = 32 * 1024 * 1024
#: the request bodies kept for ``Stand.requests`` in all: past it the oldest requests are let go
KEEP_BYTES = 64 * 1024 * 1024
#: the requests kept for ``Stand.requests``: past it the oldest are let go
KEEP_REQUESTS = 10_000
#: connections waiting to be accepted: a pytest-xdist run opens many at once
BACKLOG = 1024
_CONTENT_LENGTH = re.compile(rb"[0-9]{1,20}")
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A request the stand-in answers with ``status`` and ``reason``, then closes."""

    status: int
    reason: str


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request the stand-in received: ``query`` is the raw query string, ``headers`` the
    header lines in order."""

    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """The first value of a header, whatever the case of its name."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]
    #: a stream, cut at event boundaries, that faults apply to
    streamed: bool
    #: this response's own faults (None: the server's, which apply to every streamed response)
    faults: tuple[Fault, ...] | None = None
    #: called just before the last chunk of the body is written (after any pause before it):
    #: a loop's stand-in notes there that the response has sent its last event
    on_last: Callable[[], None] | None = field(default=None, compare=False)

    @property
    def has_body(self) -> bool:
        return self.status >= 200 and self.status not in (204, 304)


#: what the server serves, as the server sees it: the response to each request. The server
#: calls it under its lock, one request at a time in the order they arrive, so it may keep
#: state between calls (which response comes next) without a lock of its own.
Answer: TypeAlias = Callable[[ReceivedRequest], _Response]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        answer: Answer,
        faults: tuple[Fault, ...],
        headers: tuple[tuple[str, str], ...] = (),
    ):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.answer = answer
        self.faults = faults
        self.headers = headers
        self.received: collections.deque[ReceivedRequest] = collections.deque()
        self.kept_bytes = 0
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.connections: set[socket.socket] = set()
        self.idle = threading.Condition(self.lock)
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer's own looks the host's name up in DNS, which can take seconds
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]

    def respond(self, request: ReceivedRequest) -> _Response:
        with self.lock:
            self.received.append(request)
            self.kept_bytes += len(request.body)
            while len(self.received) > 1 and (
                self.kept_bytes > KEEP_BYTES or len(self.received) > KEEP_REQUESTS
            ):
                self.kept_bytes -= len(self.received.popleft().body)
            return self.answer(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # one line, not socketserver's traceback: a client's bad request is not the stand-in's
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return  # the client went away
        print(
            f"harness serve: a request from {client_address[0]} failed: "
            f"{type(error).__name__}: {error}",
            file=sys.stderr,
        )

    def track(self, connection: socket.socket, open_: bool) -> None:
        with self.lock:
            if open_:
                self.connections.add(connection)
            else:
                self.connections.discard(connection)
                self.idle.notify_all()

    def stop(self) -> None:
        """Stop accepting, end every open connection and wait (a while) for their threads."""
        self.closing.set()
        self.shutdown()
        self.server_close()
        with self.lock:
            for connection in self.connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self.idle.wait_for(lambda: not self.connections, timeout=_CLOSE_WAIT)


def _too_large() -> str:
    return f"The request body is larger than the {MAX_REQUEST_BYTES:,} bytes the stand-in reads"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked transfer and keep-alive
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the stand-in is quiet; what it received is in ``Stand.requests``

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except OSError:  # the client went away, or the stand-in is closing
            self.close_connection = True

    def _answer(self) -> None:
        body = self._read_body()
        if isinstance(body, _Refusal):
            self.close_connection = True
            self.send_error(body.status, body.reason)
            return
        url = urlsplit(self.path)
        request = ReceivedRequest(
            self.command, url.path, url.query, tuple(self.headers.items()), body
        )
        self._send(self.server.respond(request))

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _answer

    def _read_body(self) -> bytes | _Refusal:
        """The request's body, at most ``MAX_REQUEST_BYTES``; a ``_Refusal`` for framing that
        is not HTTP's (a negative or absurd length), a body past the limit or one cut short."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts: list[bytes] = []
            size_read = 0
            while True:
                size_line = self.rfile.readline(1024).split(b";")[0].strip()
                if not _CHUNK_SIZE.fullmatch(size_line):
                    return _Refusal(400, "Bad chunk size in the request body")
                size = int(size_line, 16)
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass  # trailers
                    return b"".join(parts)
                size_read += size
                if size_read > MAX_REQUEST_BYTES:
                    return _Refusal(413, _too_large())
                part = self._read_exactly(size)
                if isinstance(part, _Refusal):
                    return part
                parts.append(part)
                self.rfile.readline(1024)
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            return b""
        if len(set(lengths)) != 1 or not _CONTENT_LENGTH.fullmatch(lengths[0].strip().encode()):
            return _Refusal(400, "Bad Content-Length")
        length = int(lengths[0])
        if length > MAX_REQUEST_BYTES:
            return _Refusal(413, _too_large())
        return self._read_exactly(length)

    def _read_exactly(self, size: int) -> bytes | _Refusal:
        data = self.rfile.read(size)
        if len(data) < size:
            return _Refusal(400, "The request body ends before its length")
        return data

    def _send(self, response: _Response) -> None:
        self.send_response_only(response.status)
        given = (*response.headers, *self.server.headers)
        names = {name.lower() for name, _ in given}
        for name, value in given:
            self.send_header(name, value)
        if "date" not in names:
            self.send_header("Date", self.date_time_string())
        if "server" not in names:
            self.send_header("Server", "harness-serve")
        if not response.has_body:
            self.end_headers()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()  # the headers go out now, before any stall
        own = self.server.faults if response.faults is None else response.faults
        pieces, complete = _schedule(response.chunks, own if response.streamed else ())
        last = max((i for i, p in enumerate(pieces) if isinstance(p, bytes) and p), default=-1)
        for i, piece in enumerate(pieces):
            if isinstance(piece, float):
                if self.server.closing.wait(piece):
                    self.close_connection = True
                    return
                continue
            if i == last and response.on_last is not None:
                response.on_last()
            if piece:  # an empty HTTP chunk would end the body
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))  # one write, one chunk
        if complete:
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.close_connection = True  # no terminating chunk: a truncated body
