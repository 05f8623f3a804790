"""The program under test: started in its own process group, given a time limit, always stopped.

Whatever it prints (standard output and error together) is read as it comes, and its last
``KEEP_OUTPUT`` bytes are kept for the report. When it overruns its limit, its whole process
group gets SIGTERM, then SIGKILL a moment later; when it ends on its own, whatever it left
running in its group is killed too, so nothing it started outlives the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence

from harness._errors import UsageError
from harness.model.loop import ProgramOutcome

#: the end of the program's output kept for the report
KEEP_OUTPUT = 16 * 1024
#: how long a program given SIGTERM has to end before SIGKILL
_GRACE = 2.0


def run_program(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout: float,
    cwd: str | None = None,
) -> ProgramOutcome:
    """Run ``command`` to its end, or stop it (and its process group) after ``timeout``
    seconds. A command that cannot be started is a ``UsageError``."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            list(command),
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as one
        )
    except OSError as exc:
        raise UsageError(f"cannot run {' '.join(command)!r}: {exc.strerror or exc}") from None
    output = bytearray()
    reader = threading.Thread(target=_read_all, args=(process, output), daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(_GRACE)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait()
    finally:
        _signal_group(process.pid, signal.SIGKILL)  # what it left behind in its group
    reader.join(1.0)
    if process.stdout is not None:
        with contextlib.suppress(OSError):
            process.stdout.close()
    seconds = timeout if timed_out else time.monotonic() - started
    text = bytes(output[-KEEP_OUTPUT:]).decode("utf-8", "replace")
    return ProgramOutcome(None if timed_out else process.returncode, timed_out, seconds, text)


def _read_all(process: subprocess.Popen[bytes], output: bytearray) -> None:
    stream = process.stdout
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        while piece := os.read(stream.fileno(), 65536):
            output += piece
            if len(output) > 2 * KEEP_OUTPUT:
                del output[:-KEEP_OUTPUT]


def _signal_group(pid: int, sig: signal.Signals) -> None:
    """Signal the process group the program leads (its id is the program's pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
