"""The stand-in as a provider: ``serving`` one program (a driver scenario, a cassette or a raw
recorded body) on loopback until the block ends, and the ``Stand`` it yields.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from harness._errors import UsageError
from harness.codecs import Codec
from harness.codecs.registry import with_codecs
from harness.scenario import DriverScenario
from harness.standin.faults import Fault, _checked
from harness.standin.http import ReceivedRequest, _Server
from harness.standin.programs import _Program, _program

__all__ = ["Stand", "serving"]


class Stand:
    """A running stand-in (what ``serving`` yields)."""

    def __init__(self, server: _Server, program: _Program) -> None:
        self._server = server
        host, port = str(server.server_address[0]), int(server.server_address[1])
        self.host, self.port = host, port
        #: the base URL to point a client at, e.g. ``http://127.0.0.1:54321``
        self.url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        #: what is served: the source, the dialect and how many chunks
        self.summary = program.summary

    @property
    def requests(self) -> tuple[ReceivedRequest, ...]:
        """The requests received so far, in order: the latest ones, at most
        ``KEEP_REQUESTS`` whose bodies come to at most ``KEEP_BYTES`` (past that the oldest are
        let go, so that a long run's memory stays bounded; the latest is always kept)."""
        with self._server.lock:
            return tuple(self._server.received)


@contextlib.contextmanager
def serving(
    source: str | Path | DriverScenario,
    *,
    dialect: str | None = None,
    quirks: Iterable[str] = (),
    faults: Iterable[str | Fault] = (),
    host: str = "127.0.0.1",
    port: int = 0,
    codecs: Iterable[Codec] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Iterator[Stand]:
    """Serve ``source`` (a driver scenario, its file, a vcrpy cassette or a raw recorded body)
    on ``host:port`` (0: a free port) until the block ends.

    A scenario answers every POST, whatever the path, with its turn in ``dialect`` (default:
    its first dialect that can carry it) under its quirks and ``quirks``; a raw recorded body
    answers every POST too. A cassette answers request k for a method and path with the k-th
    recorded interaction for them, and anything else (another path, or a request past the
    recorded ones) with a 404 saying what is served. ``headers`` are added to
    every response (e.g. the cookies or organisation headers a provider sends). Bad input is a located
    ``ScenarioError`` or ``WireError``, or a ``UsageError``.
    """
    program = _program(source, dialect, tuple(quirks), with_codecs(codecs))
    chosen = _checked(faults, program.longest)
    try:
        server = _Server((host, port), program.answering(), chosen, tuple((headers or {}).items()))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.1},
        name="harness-serve",
        daemon=True,
    )
    thread.start()
    try:
        yield Stand(server, program)
    finally:
        server.stop()
        thread.join()
