"""A loopback HTTP server that streams one recorded body with chunked transfer encoding.

Tests reach it only through ``loopback_stream(body, content_type, headers=None) -> url``
(the fixture in tests/conftest.py), so a fuller server can take its place.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: bytes per chunk: small, so that events arrive cut anywhere
CHUNK = 37


class LoopbackStreams:
    """Starts one server per body; ``stop()`` stops them all (a replay must not reach them)."""

    def __init__(self) -> None:
        self._servers: list[ThreadingHTTPServer] = []
        #: every request any server received: (method, path, headers, body)
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []

    def __call__(
        self, body: bytes, content_type: str, headers: Mapping[str, str] | None = None
    ) -> str:
        streams = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                received = self.rfile.read(length) if length else b""
                streams.requests.append(
                    (self.command, self.path, dict(self.headers.items()), received)
                )
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
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()
