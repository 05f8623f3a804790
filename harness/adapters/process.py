"""Out-of-process adapters: a consumer in any language, spoken to in JSON lines.

The harness starts the command and writes one JSON object per line to its standard input; the
process answers on its standard output (anything it writes to standard error is kept for error
messages). docs/PROTOCOL.md is the full description; in short:

    -> {"op": "hello", "protocol": 2, "protocols": [1, 2]}
    <- {"ok": true, "protocol": 2, "layers": ["driver"], "name": "my-driver",
        "dialect": "anthropic", "emits_calls": "per-call", "reads": "chunks"}

Protocol 1, the session layer (a process answering ``"protocol": 1``, or refusing the hello of
protocol 2, is spoken to in protocol 1 exactly as before):

    -> {"op": "feed", "event": {"type": "tool_select", "session_id": "main", ...}}
    <- {"ok": true}
    -> {"op": "notifications"}
    <- {"ok": true, "notifications": [{"session_id", "tool_call_id", "tool_name", "status"}]}
    -> {"op": "transcript"}
    <- {"ok": true, "transcript": {"sessions": {...}, "updates": [...]}}
    -> {"op": "shutdown"}
       (the process exits)

Protocol 2 adds the history layer (``feed``, then ``history`` / ``request`` / ``rebuild`` with a
``session_id``, each answered ``{"ok": true, "messages": [...]}``) and the driver layer, where
after ``{"op": "drive"}`` the process speaks first until it says ``done``:

    <- {"op": "read"}                     -> {"chunk": "..."} | {"bytes": "<base64>"}
                                             | {"end": true} | {"cancelled": true}
    <- {"op": "emit", "output": {...}}    (coerce_output's dict form; no answer)
    <- {"op": "close"}                    (the driver released the stream; no answer)
    <- {"op": "done"} | {"op": "done", "cancelled": true} | {"op": "done", "error": "..."}

An answer ``{"ok": false, "error": "..."}`` reports a failure of the consumer. Events are
``event_to_json`` of the canonical events; observations have the field names of
``harness.model.observation``. A process that exits, writes something that is not a JSON
object, says something out of place or stops answering gives an ``error`` result; so does one
that writes more than ``Limits`` allow (a line, all of stdout, all of stderr).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness._errors import AdapterError, UsageError
from harness.model.driver import DriverOutput, MalformedOutput, coerce_output
from harness.model.driver_run import CONTRACTS
from harness.model.session import SessionEvent, event_to_json

#: the protocols the harness speaks, newest last
PROTOCOLS = (1, 2)
PROTOCOL = PROTOCOLS[-1]
#: ``emits_calls`` and ``reads`` a protocol-2 hello may give (the first is the default)
EMITS_CALLS = CONTRACTS
#: hello's ``reads`` -> the in-process adapters' ``reads``
READS = {"chunks": "events", "bytes": "bytes"}
#: how long a probe of the factory (which dialect?) waits for the hello
PROBE_SECONDS = 10.0
#: the layers a hello may name
LAYERS = ("session", "history", "driver")
#: how often a read with nothing to read checks whether the process is still there: a
#: grandchild that inherited stdout keeps the pipe open after the process itself exited
_EXIT_POLL = 0.2
#: how much of stderr an error message ends with
_STDERR_TAIL = 800

_MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class Limits:
    """What one adapter process may write before it is stopped as misbehaving
    (docs/PROTOCOL.md, *Limits*): bytes in one line on stdout, in all of stdout, in all of
    stderr, and the outputs a driver emits in one turn (each one is kept)."""

    line: int = 64 * _MiB
    stdout: int = 1024 * _MiB
    stderr: int = 64 * _MiB
    outputs: int = 100_000

    def __post_init__(self) -> None:
        for name in ("line", "stdout", "stderr", "outputs"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1")


#: a JSON escape of half a surrogate pair: only a line holding one is searched for a lone half
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a string that is not Unicode text (JSON joins the
    halves of a pair; a half left alone stays, and no writer can encode it)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_lone_surrogate(item) for item in value)
    return False


#: the environment variable that marks an adapter process and everything it starts
_MARK_VARIABLE = "HARNESS_ADAPTER_PROCESS"


def _marked(mark: str) -> list[int]:
    """The processes whose environment carries ``MARK=mark`` (read from /proc, where there is
    one: elsewhere the process group is all ``kill`` can reach)."""
    needle = f"{_MARK_VARIABLE}={mark}".encode()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as environ:
                    if needle in environ.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:  # gone meanwhile, or not ours to read
                continue
    return found


def _size(n: int) -> str:
    return f"{n // _MiB} MiB" if n >= _MiB and n % _MiB == 0 else f"{n:,} bytes"


def _quote(line: bytes | str, limit: int = 200) -> str:
    """A line as an error message shows it: short, escaped."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


class _StderrTail:
    """Drains a process's stderr in a thread, so that nothing it writes there blocks it or
    fills a disk: keeps the last bytes for error messages, and stops the process (through
    ``stop``) once it wrote more than ``limit``."""

    def __init__(self, pipe: Any, limit: int, stop: Any) -> None:
        self.tail = b""
        self.total = 0
        self.exceeded = False
        self._pipe, self._limit, self._stop = pipe, limit, stop
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="harness-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        fd = self._pipe.fileno()
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.total += len(data)
                self.tail = (self.tail + data)[-_STDERR_TAIL:]
                over = self.total > self._limit and not self.exceeded
                self.exceeded = self.exceeded or over
            if over:
                self._stop()

    def renew(self) -> None:
        """Count afresh for another case of the same process: what it wrote before is not the
        new case's, neither in the tail an error quotes nor against the limit."""
        with self._lock:
            self.tail = b""
            self.total = 0

    def text(self, wait: float = 1.0) -> str:
        """The tail, once the process's stderr is closed (or ``wait`` passed)."""
        self._thread.join(wait)
        return self.tail.decode("utf-8", "replace").strip()

    def close(self) -> None:
        self._thread.join(1.0)
        with contextlib.suppress(OSError, ValueError):
            self._pipe.close()


class DriverFailed(RuntimeError):
    """The process's driver failed (``{"op": "done", "error": ...}``), as an in-process driver
    raising."""


class ProcessAdapter:
    """An adapter that forwards everything to a child process: the session layer (protocol 1),
    and the history and driver layers (protocol 2)."""

    def __init__(self, command: Sequence[str], limits: Limits | None = None) -> None:
        self.command = list(command)
        self.limits = limits or Limits()
        try:
            # unbuffered: select() must see everything the process sent that we have not read;
            # a session of its own, so that kill() reaches whatever it started too
            # every process it starts inherits the mark, even one that leaves the process group
            # (setsid) and its parent: ``kill`` finds them by it
            self._mark = f"{os.getpid()}-{id(self):x}-{time.monotonic_ns()}"
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
                env={**os.environ, _MARK_VARIABLE: self._mark},
            )
        except OSError as exc:
            raise AdapterError(f"cannot start {shlex.join(self.command)}: {exc.strerror}") from None
        self._stderr = _StderrTail(self.process.stderr, self.limits.stderr, self.kill)
        self._hello: dict[str, Any] | None = None
        # our own line buffer over the unbuffered pipe, so that we know what the process has
        # sent and we have not yet read; ``_scanned`` of it holds no newline
        self._buffer = bytearray()
        self._scanned = 0
        self._read_total = 0
        self._eof = False
        #: no turn under way: the last drive ended with done (or none began)
        self._between_turns = True
        #: where ``close`` hands a process still fit for another case (``ProcessFactory.reusing``)
        self._keeper: Callable[[ProcessAdapter], bool] | None = None

    def _renew(self) -> None:
        """Ready for another case: what the last one wrote to stderr, and its stdout count,
        are not this one's."""
        self._stderr.renew()
        self._read_total = 0

    # -- the conversation ----------------------------------------------------------------

    # The handshake happens on first use, not in __init__: by then the replayer holds this
    # object, so a process that hangs or fails at hello is still killed and closed.
    def hello(self, timeout: float | None = None) -> dict[str, Any]:
        if self._hello is None:
            offer = {"op": "hello", "protocol": PROTOCOL, "protocols": list(PROTOCOLS)}
            answer = self._ask(offer, timeout=timeout, refusal_ok=True)
            if answer.get("ok") is not True:
                error = answer.get("error", "no error message")
                if "protocol" not in str(error).lower():
                    raise AdapterError(f"the adapter process failed on 'hello': {error}")
                # a protocol-1 process refuses a protocol it does not know: greet it as before
                answer = self._ask({"op": "hello", "protocol": 1}, timeout=timeout)
            said = answer.get("protocol")
            if type(said) is not int or said not in PROTOCOLS:
                raise AdapterError(
                    f"{shlex.join(self.command)} answered hello with protocol {said!r}; "
                    f"the harness speaks {' or '.join(map(str, PROTOCOLS))}"
                )
            self._check_hello(answer)
            self._hello = answer
        return self._hello

    def _check_hello(self, answer: dict[str, Any]) -> None:
        """Every field of a hello has its type and one of its values, or the error names the
        field and quotes what the process said."""

        def wrong(field: str, expected: str) -> AdapterError:
            said = json.dumps(answer.get(field))  # escaped: ASCII, no control characters
            said = said if len(said) <= 200 else said[:200] + "..."
            return AdapterError(
                f'{shlex.join(self.command)} said in its hello "{field}": {said}; {expected}'
            )

        layers = answer.get("layers", ["session"])
        if (
            not isinstance(layers, list)
            or not layers
            or not all(isinstance(x, str) and x in LAYERS for x in layers)
        ):
            raise wrong("layers", f"it is a list of layer names, each one of {', '.join(LAYERS)}")
        for field in ("name", "dialect", "session_dialect"):
            if field in answer and not isinstance(answer[field], str):
                raise wrong(field, "it is a string")
        if "driver" in layers and not isinstance(answer.get("dialect"), str):
            raise wrong(
                "dialect",
                'the driver layer needs the name of the dialect it reads ("anthropic", '
                '"openai-chat", ...)',
            )
        if answer.get("emits_calls", EMITS_CALLS[0]) not in EMITS_CALLS:
            raise wrong("emits_calls", 'expected "per-call" or "per-message"')
        reads = answer.get("reads", "chunks")
        if not isinstance(reads, str) or reads not in READS:
            raise wrong("reads", 'expected "chunks" or "bytes"')

    @property
    def protocol(self) -> int:
        return int(self.hello()["protocol"])

    @property
    def layers(self) -> tuple[str, ...]:
        return tuple(self.hello().get("layers") or ("session",))

    @property
    def name(self) -> str:
        return str(self.hello().get("name") or shlex.join(self.command))

    @property
    def dialect(self) -> str | None:
        value = self.hello().get("dialect")
        return value if isinstance(value, str) else None

    @property
    def session_dialect(self) -> str | None:
        """The UI protocol a session consumer reads (docs/PROTOCOL.md, session dialects)."""
        value = self.hello().get("session_dialect")
        return value if isinstance(value, str) else None

    @property
    def emits_calls(self) -> str:
        return str(self.hello().get("emits_calls", EMITS_CALLS[0]))

    @property
    def reads(self) -> str:
        return READS[str(self.hello().get("reads", "chunks"))]

    # -- session layer (protocol 1) and the feed of the history layer --------------------

    def feed(self, event: SessionEvent | dict[str, Any]) -> None:
        """A canonical event, or (a session dialect's consumer) one of its protocol's events."""
        data = event if isinstance(event, dict) else event_to_json(event)
        self._ask({"op": "feed", "event": data})

    def view(self) -> Any:
        """What a session dialect's consumer shows, in its protocol's terms."""
        if self.session_dialect is None:
            raise AdapterError("view is asked only of a process that names a session_dialect")
        answer = self._ask({"op": "view"})
        if "view" not in answer:
            raise AdapterError(
                f"the adapter process answered 'view' without a view: {_quote(json.dumps(answer))}"
            )
        return answer["view"]

    def notifications(self) -> Any:
        return self._ask({"op": "notifications"}).get("notifications")

    def transcript(self) -> Any:
        return self._ask({"op": "transcript"}).get("transcript")

    # -- history layer ---------------------------------------------------------------------

    def history(self, session_id: str) -> Any:
        return self._messages("history", session_id)

    def request(self, session_id: str) -> Any:
        return self._messages("request", session_id)

    def rebuild(self, session_id: str) -> Any:
        return self._messages("rebuild", session_id)

    def _messages(self, op: str, session_id: str) -> Any:
        self._require(op, "history")
        answer = self._ask({"op": op, "session_id": session_id})
        if "messages" not in answer:
            raise AdapterError(
                f"the adapter process answered {op!r} without messages: {_quote(json.dumps(answer))}"
            )
        return answer["messages"]

    # -- driver layer ----------------------------------------------------------------------

    def drive(self, chunks: Iterator[str | bytes]) -> Iterator[DriverOutput]:
        """One turn: answer the process's reads from ``chunks`` and yield what it emits."""
        self._require("drive", "driver")
        self._after_done()  # nothing may come between turns
        self._between_turns = False
        self._send({"op": "drive"})
        cancelled: BaseException | None = None
        emitted = 0
        while True:
            line, message = self._turn_message()
            op = message.get("op")
            if op == "read":
                try:
                    chunk = next(chunks)
                except StopIteration:
                    self._send({"end": True})
                except (GeneratorExit, KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:  # the cancellation the replayer injects
                    cancelled = exc
                    self._send({"cancelled": True})
                else:
                    if isinstance(chunk, bytes):
                        self._send({"bytes": base64.b64encode(chunk).decode("ascii")})
                    else:
                        self._send({"chunk": chunk})
            elif op == "emit":
                try:
                    output = coerce_output(message.get("output"), emitted)
                except MalformedOutput as exc:
                    raise AdapterError(
                        f"the adapter process emitted a malformed output ({exc}): {_quote(line)}"
                    ) from None
                emitted += 1
                if emitted > self.limits.outputs:
                    self.kill()
                    raise AdapterError(
                        f"the adapter process {shlex.join(self.command)} emitted more than "
                        f"{self.limits.outputs:,} outputs in one turn, so it was stopped "
                        f"(docs/PROTOCOL.md, Limits): {_quote(line)}"
                    )
                yield output
            elif op == "close":
                close = getattr(chunks, "close", None)
                if callable(close):
                    close()
            elif op == "done":
                self._after_done()
                self._between_turns = True
                error = message.get("error")
                if error is not None:
                    raise DriverFailed(str(error))
                if message.get("cancelled") is True:
                    if cancelled is None:
                        raise AdapterError(
                            "the adapter process said it stopped because of a cancellation, "
                            f"but none was sent to it: {_quote(line)}"
                        )
                    raise cancelled
                return
            else:
                raise AdapterError(
                    f"the adapter process sent an unknown op {op!r} during drive "
                    f"(expected read, emit, close or done): {_quote(line)}"
                )

    def _turn_message(self) -> tuple[bytes, dict[str, Any]]:
        line = self._read_line()
        if line is None:
            raise AdapterError(self._exited("during drive, before it said done"))
        message = self._parse(line, "wrote during drive")
        if "ok" in message:
            raise AdapterError(
                "the adapter process answered during drive, where only it speaks first "
                f"(read, emit, close, done): {_quote(line)}"
            )
        return line, message

    def _after_done(self) -> None:
        """A line already sent after ``done`` is out of place (an emit after the turn ended)."""
        line = self._read_line(timeout=0)
        if line is not None:
            raise AdapterError(
                f"the adapter process sent a line after done, when the turn was over: {_quote(line)}"
            )

    def _require(self, op: str, layer: str) -> None:
        if layer not in self.layers or self.protocol < 2:
            raise AdapterError(
                f"{op} is the {layer} layer of protocol 2; the adapter process speaks protocol "
                f"{self.protocol} with the layers {', '.join(self.layers)}"
            )

    # -- lines -----------------------------------------------------------------------------

    def _ask(
        self, message: dict[str, Any], *, timeout: float | None = None, refusal_ok: bool = False
    ) -> dict[str, Any]:
        op = message["op"]
        self._send(message)
        line = self._read_line(timeout)
        if line is None:
            if not self._eof:
                raise AdapterError(f"the adapter process did not answer {op!r} within {timeout:g}s")
            raise AdapterError(self._exited(f"instead of answering {op!r}"))
        answer = self._parse(line, f"answered {op!r} with")
        if "op" in answer and "ok" not in answer:
            raise AdapterError(
                f"the adapter process sent {answer['op']!r} where it should answer {op!r}: "
                f"{_quote(line)}"
            )
        if answer.get("ok") is not True and not refusal_ok:
            raise AdapterError(
                f"the adapter process failed on {op!r}: {answer.get('error', 'no error message')}"
            )
        return answer

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        data = memoryview(json.dumps(message).encode("utf-8") + b"\n")
        try:
            while data:  # an unbuffered write may take part of it
                data = data[self.process.stdin.write(data) or 0 :]
        except (OSError, ValueError):
            what = message.get("op") or next(iter(message), "")
            raise AdapterError(self._exited(f"before it could be sent {what!r}")) from None

    def _read_line(self, timeout: float | None = None) -> bytes | None:
        """The next line; None at end of file, or when ``timeout`` passes without one."""
        stdout = self.process.stdout
        assert stdout is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            if self._eof:
                return None
            try:
                wait = _EXIT_POLL
                if deadline is not None:
                    wait = min(wait, max(0.0, deadline - time.monotonic()))
                if select.select([stdout], [], [], wait)[0]:
                    data = stdout.read(65536)
                elif self.process.poll() is not None:
                    # it exited; whoever else holds the pipe is not the adapter (what it wrote
                    # just before exiting is read first)
                    ready = select.select([stdout], [], [], 0)[0]
                    data = stdout.read(65536) if ready else b""
                elif deadline is not None and time.monotonic() >= deadline:
                    return None
                else:
                    continue
            except (OSError, ValueError):  # closed under us: a hung process was killed
                data = b""
            if not data:
                self._eof = True
                if self._buffer:  # a last line without its newline
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    self._scanned = 0
                    return line
                return None
            self._buffer += data
            self._read_total += len(data)
            self._check_limits()

    def _check_limits(self) -> None:
        """Stop a process whose line or whole output is longer than ``limits`` allow."""
        limits = self.limits
        if self._read_total > limits.stdout:
            exceeded = f"more than {_size(limits.stdout)} in all on stdout"
        elif len(self._buffer) > limits.line and self._buffer.find(b"\n", 0, limits.line) < 0:
            exceeded = f"a line of more than {_size(limits.line)} on stdout"
        else:
            return
        excerpt = _quote(bytes(self._buffer[:80]), 60)
        self._buffer.clear()
        self._scanned = 0
        self.kill()
        raise AdapterError(
            f"the adapter process {shlex.join(self.command)} wrote {exceeded}, so it was "
            f"stopped (docs/PROTOCOL.md, Limits); it began: {excerpt}"
        )

    def _parse(self, line: bytes, when: str) -> dict[str, Any]:
        """``when`` completes "the adapter process ... something that is not JSON"."""
        try:
            message = json.loads(line)
        except ValueError:
            raise AdapterError(
                f"the adapter process {when} something that is not JSON: {_quote(line)}"
            ) from None
        if not isinstance(message, dict):
            raise AdapterError(
                f"the adapter process {when} {_quote(line)}; each line is a JSON object"
            )
        if _ESCAPED_SURROGATE.search(line) and _lone_surrogate(message):
            raise AdapterError(
                f"the adapter process {when} text holding half of a surrogate pair (a "
                f"\\uD800-\\uDFFF escape without its other half), which is no character: "
                f"{_quote(line)}"
            )
        return message

    def _exited(self, when: str) -> str:
        try:
            code = self.process.wait(timeout=2)
            self.kill()  # what it started may hold stderr open, and the tail would wait for it
        except subprocess.TimeoutExpired:
            code = None
        if self._stderr.exceeded:
            return (
                f"the adapter process {shlex.join(self.command)} wrote more than "
                f"{_size(self.limits.stderr)} on stderr, so it was stopped "
                f"(docs/PROTOCOL.md, Limits) {when}; its stderr ended:\n"
                f"{_quote(self._stderr.text(), 200)}"
            )
        tail = self._stderr.text()
        said = f"; it wrote to stderr:\n{tail}" if tail else ""
        return f"the adapter process exited (code {code}) {when}{said}"

    def kill(self) -> None:
        """Stop the process that stopped answering, and whatever it started: its process
        group, and every process still carrying its mark (one that called setsid included)."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self._pipe_held():  # someone it started left the group and holds stdout open
            for pid in _marked(self._mark):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def _pipe_held(self) -> bool:
        """Whether stdout is still open at the other end once the process is dead: what is left
        of it is read, and only its end (EOF) says nobody holds it (looking costs nothing where
        nothing escaped, and reading every process's environment is dear)."""
        stdout = self.process.stdout
        if stdout is None or stdout.closed:
            return False
        try:
            while select.select([stdout], [], [], 0)[0]:
                if not os.read(stdout.fileno(), 1 << 16):
                    return False
        except (OSError, ValueError):
            return False
        return True

    def _fit_for_another_turn(self) -> bool:
        """A driver process between turns, alive, within its limits, having said nothing out
        of place: another case may drive it as a fresh one (a line waiting here is out of place,
        and the process is not kept)."""
        return (
            self._hello is not None
            and self.protocol >= 2
            and set(self.layers) == {"driver"}
            and self._between_turns
            and self.process.poll() is None
            and not self._stderr.exceeded
            and not self._eof
            and self._read_line(timeout=0) is None
            and not self._buffer  # nor half a line
        )

    def discard(self) -> None:
        """Close the process, whoever would have kept it."""
        self._keeper = None
        self.close()

    def close(self) -> None:
        """Ask the process to stop, make sure it does (and whatever it started), and close
        every pipe; unless its factory keeps it for the next case (``ProcessFactory.reusing``)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            with contextlib.suppress(AdapterError, OSError, ValueError):
                if self._fit_for_another_turn() and keeper(self):
                    self._keeper = keeper
                    return
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(json.dumps({"op": "shutdown"}).encode() + b"\n")
                self.process.stdin.flush()
                self.process.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()  # a grandchild may still hold the pipes
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        self._stderr.close()


class ProcessFactory:
    """Makes a ``ProcessAdapter`` per scenario. What the process declares in its hello
    (``layers``, ``dialect``, ``reads``) is asked of one process started for the purpose,
    once, so that the harness can plan a driver's cases before replaying them (``emits_calls``
    is read from each process, as from any adapter instance)."""

    def __init__(self, argv: Sequence[str], limits: Limits | None = None) -> None:
        self.argv = list(argv)
        self.limits = limits or Limits()
        self._declared: dict[str, Any] | None = None
        self._failure: str | None = None
        self._reuse = False
        self._idle: ProcessAdapter | None = None

    def __call__(self) -> ProcessAdapter:
        idle, self._idle = self._idle, None
        if idle is not None:
            if idle.process.poll() is None:
                idle._renew()
                return idle
            idle.discard()
        adapter = ProcessAdapter(self.argv, self.limits)
        if self._reuse:
            adapter._keeper = self._keep
        return adapter

    def _keep(self, adapter: ProcessAdapter) -> bool:
        if not self._reuse or self._idle is not None:
            return False
        self._idle = adapter
        return True

    @contextlib.contextmanager
    def reusing(self) -> Iterator[None]:
        """Within it, a driver process whose turn ended with ``done`` serves the next case too
        (protocol 2 lets a process drive several turns, one after the other): its start, which
        for a Node.js library is most of a case's time, is paid once, not per case (a driver
        that reported an error with its done is kept: it ended its turn). A process that hung,
        was cancelled without saying done, broke a limit or said anything out of place is
        closed as ever, and the next case starts a fresh one; the one kept last is closed on
        leaving. For replays one after the other (``harness matrix`` runs each library's cases
        so), not side by side."""
        self._reuse = True
        try:
            yield
        finally:
            self._reuse = False
            idle, self._idle = self._idle, None
            if idle is not None:
                idle.discard()

    def check(self, timeout: float = PROBE_SECONDS) -> None:
        """Raise ``UsageError`` when the process cannot even say hello: every scenario would
        fail the same way, so a command line says it once, before anything runs."""
        self._probe(timeout)
        if self._failure is not None:
            command = shlex.join(self.argv)
            said = self._failure if command in self._failure else f"{command}: {self._failure}"
            raise UsageError(f"the exec: adapter cannot be used: {said}")

    def declared(self, timeout: float = PROBE_SECONDS) -> dict[str, Any]:
        """What the process says of itself in its hello, asked once (waiting ``timeout``
        seconds at most); ``AdapterError`` when it cannot say it."""
        declared = self._probe(timeout)
        if self._failure is not None:
            raise AdapterError(self._failure)
        return declared

    def _probe(self, timeout: float = PROBE_SECONDS) -> dict[str, Any]:
        if self._declared is None:
            self._declared = {}
            try:
                adapter = self()
            except AdapterError as exc:
                self._failure = str(exc)
                return self._declared
            try:
                self._declared = adapter.hello(timeout=timeout)
            except AdapterError as exc:
                self._failure = str(exc)  # a replay says it scenario by scenario
            finally:
                adapter.close()
        return self._declared

    @property
    def layers(self) -> tuple[str, ...]:
        """The layers the process says it implements (the session layer if it says none, as
        a protocol-1 process does)."""
        return tuple(self._probe().get("layers", ["session"]))  # checked by hello()

    @property
    def dialect(self) -> str | None:
        value = self._probe().get("dialect")
        return value if isinstance(value, str) else None

    @property
    def session_dialect(self) -> str | None:
        value = self._probe().get("session_dialect")
        return value if isinstance(value, str) else None

    @property
    def reads(self) -> str | None:
        value = self._probe().get("reads", "chunks")
        return READS.get(value) if isinstance(value, str) else None


def process_factory(command: str) -> ProcessFactory:
    """The factory of ``exec:COMMAND``; a command line that cannot be split, or whose program
    is not there, is a usage error now rather than one error per scenario later."""
    spec = repr(f"exec:{command}")
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # an unbalanced quote
        raise UsageError(f"{spec}: cannot split the command line ({exc})") from None
    if not argv:
        raise UsageError("exec: needs a command, e.g. exec:node consumer.mjs")
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise UsageError(f"{spec}: {program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise UsageError(f"{spec}: no program {program!r} on the PATH")
    return ProcessFactory(argv)
