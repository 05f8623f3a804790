"""A protocol-2 driver process wrapping a bundled in-process driver, for the conformance tests.

    python tests/processes/driver_process.py ADAPTER [--misbehave=KIND]

ADAPTER is a bundled driver's name (``driver-anthropic-reference``, ...). ``--misbehave`` makes
it break the protocol in one way (see MISBEHAVIOURS), so the tests can check the harness's
message for each.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from harness.adapters.registry import BUNDLED
from harness.model.driver import ErrorReport, Refusal, TextOut, ToolCallOut, TurnEnd

MISBEHAVIOURS = (
    "answer-ok",  # answers drive with {"ok": true}, as if it were a request
    "malformed-output",  # emits a tool call without its id
    "not-json",  # writes a line that is not JSON during the turn
    "unknown-op",  # sends {"op": "yield"}
    "hang",  # stops talking after the first read
    "read-after-end",  # reads to the end of the stream, then once more
    "no-done",  # exits after the turn without saying done
    "emit-after-done",  # emits once more after done
    "ghost-call",  # emits a tool call whose id no chunk carried
)


class Cancelled(BaseException):
    """The harness cancelled the turn at this read."""


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    message: dict[str, Any] = json.loads(line)
    return message


class Chunks:
    """The in-process driver's ``chunks``: each read is a conversation with the harness."""

    def __init__(self, misbehave: str | None) -> None:
        self.misbehave = misbehave
        self.ended = False
        self.reads = 0

    def __iter__(self) -> Chunks:
        return self

    def __next__(self) -> str | bytes:
        if self.misbehave == "hang" and self.reads >= 1:
            time.sleep(3600)  # stops talking after the first read
        send({"op": "read"})
        answer = receive()
        self.reads += 1
        if "chunk" in answer:
            return str(answer["chunk"])
        if "bytes" in answer:
            return base64.b64decode(answer["bytes"])
        if answer.get("cancelled"):
            raise Cancelled
        if answer.get("end"):
            self.ended = True
            raise StopIteration
        raise RuntimeError(f"unexpected answer to read: {answer}")

    def close(self) -> None:
        send({"op": "close"})


def output_json(item: Any) -> dict[str, Any]:
    if isinstance(item, TextOut):
        return {"type": "text", "text": item.text}
    if isinstance(item, ToolCallOut):
        return {
            "type": "tool_call",
            "id": item.id,
            "name": item.name,
            "arguments": item.arguments,
            "valid": item.valid,
        }
    if isinstance(item, TurnEnd):
        return {"type": "turn_end", "stop_reason": item.stop_reason}
    if isinstance(item, Refusal):
        return {"type": "refusal", "reason": item.reason}
    if isinstance(item, ErrorReport):
        return {"type": "error", "message": item.message}
    return dict(item)


def drive(driver: Any, misbehave: str | None) -> None:
    chunks = Chunks(misbehave)
    if misbehave == "answer-ok":
        send({"ok": True})
        return
    if misbehave == "not-json":
        sys.stdout.write("reading...\n")
        sys.stdout.flush()
        return
    if misbehave == "unknown-op":
        send({"op": "yield", "output": {"type": "text", "text": "hi"}})
        return
    outputs: Iterator[Any] = driver.drive(chunks)
    try:
        for item in outputs:
            output = output_json(item)
            if misbehave == "malformed-output" and output["type"] == "tool_call":
                del output["id"]
            if misbehave == "ghost-call" and output["type"] == "tool_call":
                output["id"] = "toolu_nobody_sent_this"
            send({"op": "emit", "output": output})
    except Cancelled:
        send({"op": "done", "cancelled": True})
        return
    except Exception as exc:
        send({"op": "done", "error": f"{type(exc).__name__}: {exc}"})
        return
    if misbehave == "read-after-end":
        while not chunks.ended:
            next(chunks, None)
        next(chunks, None)  # once more, past the end
    if misbehave == "no-done":
        sys.exit(0)
    if misbehave == "emit-after-done":  # both lines in one write, as a buffered writer sends them
        late = {"op": "emit", "output": {"type": "text", "text": "late"}}
        sys.stdout.write(json.dumps({"op": "done"}) + "\n" + json.dumps(late) + "\n")
        sys.stdout.flush()
        return
    send({"op": "done"})


def main(argv: list[str]) -> int:
    pid_file = os.environ.get("DRIVER_PROCESS_PID_FILE")
    if pid_file:  # for the tests: is the process gone after the replay?
        with open(pid_file, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    name = argv[0]
    misbehave = None
    for arg in argv[1:]:
        if arg.startswith("--misbehave="):
            misbehave = arg.split("=", 1)[1]
            if misbehave not in MISBEHAVIOURS:
                print(f"unknown misbehaviour {misbehave}", file=sys.stderr)
                return 2
    cls: Any = BUNDLED[name].factory
    reads = "bytes" if getattr(cls, "reads", "events") == "bytes" else "chunks"
    driver: Any = None
    while True:
        request = receive()
        op = request.get("op")
        if op == "hello":
            send(
                {
                    "ok": True,
                    "protocol": 2,
                    "layers": ["driver"],
                    "name": f"{name} over protocol 2",
                    "dialect": cls.dialect,
                    "emits_calls": getattr(cls, "emits_calls", "per-call"),
                    "reads": reads,
                }
            )
        elif op == "drive":
            driver = cls()  # a fresh driver per turn
            drive(driver, misbehave)
        elif op == "shutdown":
            return 0
        else:
            send({"ok": False, "error": f"unknown op {op!r}"})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
