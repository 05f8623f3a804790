"""Recorded bodies streamed over HTTP on loopback, for the recording tests.

Tests reach it through ``loopback_stream(body, content_type, headers=None) -> url`` (the fixture
in tests/conftest.py). A body is served by the provider stand-in, ``harness.serve``, one HTTP
chunk per event; only a compressed body (``Content-Encoding`` in ``headers``), which the
stand-in does not send, goes through the small server below, cut every ``CHUNK`` bytes. The
``content_type`` is that server's; the stand-in says what the body is (an event stream, JSON).
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness.standin import Stand, serving

#: bytes per chunk: small, so that events arrive cut anywhere
CHUNK = 37


class LoopbackStreams:
    """Starts one server per body; ``stop()`` stops them all (a replay must not reach them)."""

    def __init__(self) -> None:
        self._servers: list[ThreadingHTTPServer] = []
        self._stands: list[Stand] = []
        self._open = contextlib.ExitStack()
        self._raw: list[tuple[str, str, dict[str, str], bytes]] = []

    @property
    def requests(self) -> list[tuple[str, str, dict[str, str], bytes]]:
        """Every request received: (method, path with its query, headers, body)."""
        served = [
            (r.method, f"{r.path}?{r.query}" if r.query else r.path, dict(r.headers), r.body)
            for stand in self._stands
            for r in stand.requests
        ]
        return served + self._raw

    def __call__(
        self, body: bytes, content_type: str, headers: Mapping[str, str] | None = None
    ) -> str:
        if not any(name.lower() == "content-encoding" for name in headers or {}):
            folder = Path(self._open.enter_context(tempfile.TemporaryDirectory()))
            (folder / "body.txt").write_bytes(body)
            stand = self._open.enter_context(serving(folder / "body.txt", headers=headers))
            self._stands.append(stand)
            return stand.url
        streams = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                received = self.rfile.read(length) if length else b""
                streams._raw.append((self.command, self.path, dict(self.headers.items()), received))
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                for start in range(0, len(body), CHUNK):
                    piece = body[start : start + CHUNK]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.close_connection = True

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    def stop(self) -> None:
        self._open.close()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()
