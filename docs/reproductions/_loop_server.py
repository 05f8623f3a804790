"""A model endpoint on loopback for the scripts that run a framework's agent loop (the folders
named after a loop of the matrix, e.g. ``pydantic-ai-run-stream``), with the standard library
alone: ``serving(bodies)`` answers the k-th POST with ``bodies[k]``, a streamed (SSE) body, as
the harness's loop stand-in serves a loop scenario's responses, and keeps every request::

    with serving(BODIES) as server:
        run_the_agent(base_url=server.openai_base_url)   # or server.url for Anthropic
    server.requests        # each request's JSON body, in order

A body is written as its events are on the wire, each ended by a blank line; each event goes
out as its own HTTP chunk, and the body ends properly (its terminating chunk is sent), also
when the stream in it never reached its end event: that is how a gateway or proxy that lost its
upstream ends a body. A request past the bodies gets HTTP 400 with a JSON error that says so (a
loop that asks once more than the scenario answers fails there, and the script sees it in
``server.requests``)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Served", "events", "serving"]


def events(body: str) -> list[str]:
    """The events of a body as written (surrounding newlines aside), each with its blank line."""
    return [event + "\n\n" for event in body.strip("\n").split("\n\n")]


class Served:
    """A running endpoint: where it listens, and the requests it got."""

    def __init__(self, url: str) -> None:
        #: e.g. http://127.0.0.1:54321: what the Anthropic SDK takes as its base URL
        self.url = url
        #: what the OpenAI SDK takes as its base URL
        self.openai_base_url = f"{url}/v1"
        #: each request's JSON body, in the order they came
        self.requests: list[Any] = []
        #: each request's path, in the same order
        self.paths: list[str] = []


@contextlib.contextmanager
def serving(bodies: Sequence[str]) -> Iterator[Served]:
    """Answer the k-th POST with ``bodies[k]`` on 127.0.0.1 (a free port) until the block ends."""
    lock = threading.Lock()
    answered = [events(body) for body in bodies]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                k = len(served.requests)
                served.requests.append(json.loads(data) if data else None)
                served.paths.append(self.path)
            if k >= len(answered):
                why = f"request {k + 1}: only {len(answered)} responses are served"
                error = json.dumps({"error": {"type": "invalid_request_error", "message": why}})
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(error)))
                self.end_headers()
                self.wfile.write(error.encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in answered[k]:
                piece = event.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")  # the body ends properly, whatever its stream said

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the script prints what it saw

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served = Served(f"http://127.0.0.1:{server.server_address[1]}")
    # loopback is never reached through a proxy the environment names
    for key in ("NO_PROXY", "no_proxy"):
        os.environ[key] = ",".join(filter(None, [os.environ.get(key), "127.0.0.1", "localhost"]))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
