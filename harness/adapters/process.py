"""Out-of-process adapters: a consumer in any language, spoken to in JSON lines (protocol 1).

The harness starts the command and writes one JSON object per line to its standard input; the
process answers each with one JSON object per line on its standard output (anything it writes to
standard error is kept for error messages):

    -> {"op": "hello", "protocol": 1}
    <- {"ok": true, "protocol": 1, "layers": ["session"], "name": "my-consumer"}
    -> {"op": "feed", "event": {"type": "tool_select", "session_id": "main", ...}}
    <- {"ok": true}
    -> {"op": "notifications"}
    <- {"ok": true, "notifications": [{"session_id", "tool_call_id", "tool_name", "status"}]}
    -> {"op": "transcript"}
    <- {"ok": true, "transcript": {"sessions": {...}, "updates": [...]}}
    -> {"op": "shutdown"}
       (the process exits)

An answer ``{"ok": false, "error": "..."}`` reports a failure of the consumer. Events are
``event_to_json`` of the canonical events; observations have the field names of
``harness.model.observation``. A process that exits, writes something that is not a JSON
object, or stops answering gives an ``error`` result.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

from harness._errors import AdapterError
from harness.model.session import SessionEvent, event_to_json

PROTOCOL = 1


class ProcessAdapter:
    """A session-layer adapter that forwards everything to a child process."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept open until close()
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as exc:
            self.stderr.close()
            raise AdapterError(f"cannot start {shlex.join(self.command)}: {exc.strerror}") from None
        self._hello: dict[str, Any] | None = None

    # The handshake happens on first use, not in __init__: by then the replayer holds this
    # object, so a process that hangs or fails at hello is still killed and closed.
    def hello(self) -> dict[str, Any]:
        if self._hello is None:
            answer = self.request({"op": "hello", "protocol": PROTOCOL})
            if answer.get("protocol") != PROTOCOL:
                raise AdapterError(
                    f"{shlex.join(self.command)} speaks protocol {answer.get('protocol')!r}; "
                    f"the harness speaks {PROTOCOL}"
                )
            self._hello = answer
        return self._hello

    @property
    def layers(self) -> tuple[str, ...]:
        return tuple(self.hello().get("layers") or ("session",))

    @property
    def name(self) -> str:
        return str(self.hello().get("name") or shlex.join(self.command))

    def feed(self, event: SessionEvent) -> None:
        self.request({"op": "feed", "event": event_to_json(event)})

    def notifications(self) -> Any:
        return self.request({"op": "notifications"}).get("notifications")

    def transcript(self) -> Any:
        return self.request({"op": "transcript"}).get("transcript")

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise AdapterError(self._exited(f"before it could be sent {message['op']!r}")) from None
        line = self.process.stdout.readline()
        if not line:
            raise AdapterError(self._exited(f"instead of answering {message['op']!r}"))
        try:
            answer = json.loads(line)
        except ValueError:
            raise AdapterError(
                f"the adapter process answered {message['op']!r} with something that is not "
                f"JSON: {line.rstrip()[:200]!r}"
            ) from None
        if not isinstance(answer, dict):
            raise AdapterError(
                f"the adapter process answered {message['op']!r} with {line.rstrip()[:200]!r}; "
                "each answer is a JSON object"
            )
        if answer.get("ok") is not True:
            raise AdapterError(
                f"the adapter process failed on {message['op']!r}: "
                f"{answer.get('error', 'no error message')}"
            )
        return answer

    def _exited(self, when: str) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        tail = self.stderr.read()[-800:].decode("utf-8", "replace").strip()
        said = f"; it wrote to stderr:\n{tail}" if tail else ""
        return f"the adapter process exited (code {code}) {when}{said}"

    def kill(self) -> None:
        """Stop a process that stopped answering."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        """Ask the process to stop, make sure it does, and close every pipe."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(json.dumps({"op": "shutdown"}) + "\n")
                self.process.stdin.flush()
                self.process.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.kill()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        self.stderr.close()


def process_factory(command: str) -> Any:
    argv = shlex.split(command)
    if not argv:
        from harness._errors import UsageError

        raise UsageError("exec: needs a command, e.g. exec:node consumer.mjs")

    def make() -> ProcessAdapter:
        return ProcessAdapter(argv)

    return make
