"""An adapter process that misbehaves as it is told, for the fuzz tests of ``exec:``.

    python tests/processes/hostile_process.py PLAN_JSON

PLAN_JSON is a list of actions, one per line the harness sends (the last one repeats): how it
answers that line. It imports nothing of the harness, so that each start is quick.

    ["hello", {"layers": ["session"]}]   answer hello (protocol 2), these fields added
    ["ok"]                               {"ok": true, "notifications": [], "transcript": ...}
    ["raw", "TEXT"]                      TEXT and a newline, as it is (bad JSON, wrong types)
    ["huge", N]                          N bytes on stdout without a newline, then silence
    ["endless"]                          stdout without a newline, forever
    ["lines"]                            valid JSON lines, forever
    ["stderr", N]                        N bytes on stderr (N < 0: forever), then answer ok
    ["silence"]                          read nothing more, say nothing
    ["exit", CODE]                       exit at once
    ["grandchild"]                       start a child that keeps stdout and stderr open, exit
    ["escape"]                           the same, the child in a session of its own (setsid)
    ["drive", [OUTPUT, ...]]             a driver's turn: read to the end, emit these, done
    ["flood"]                            a driver's turn that emits text, forever
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

OUT = sys.stdout.buffer


def write(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def answer(message: dict[str, object]) -> None:
    write(json.dumps(message).encode() + b"\n")


def forever(stream: object, block: bytes) -> None:
    while True:
        stream.write(block)  # type: ignore[attr-defined]


def act(action: list[object], request: dict[str, object]) -> None:
    kind = action[0]
    if kind == "hello":
        answer({"ok": True, "protocol": 2, **action[1]})  # type: ignore[dict-item]
    elif kind == "ok":
        answer({"ok": True, "notifications": [], "transcript": {"sessions": {}, "updates": []}})
    elif kind == "raw":
        write(str(action[1]).encode("utf-8", "surrogatepass") + b"\n")
    elif kind == "huge":
        write(b"x" * int(action[1]))  # type: ignore[call-overload]
        time.sleep(60)
    elif kind == "endless":
        forever(OUT, b"y" * 65536)
    elif kind == "lines":
        forever(OUT, b'{"ok": true}\n' * 4096)
    elif kind == "stderr":
        size = int(action[1])  # type: ignore[call-overload]
        if size < 0:
            forever(sys.stderr.buffer, b"e" * 65536)
        sys.stderr.buffer.write(b"e" * size)
        sys.stderr.flush()
        answer({"ok": True, "notifications": [], "transcript": {"sessions": {}, "updates": []}})
    elif kind == "silence":
        time.sleep(60)
    elif kind == "exit":
        os._exit(int(action[1]))  # type: ignore[call-overload]
    elif kind == "grandchild":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        os._exit(0)
    elif kind == "escape":
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
        )
        os._exit(0)
    elif kind == "flood":
        forever(OUT, b'{"op": "emit", "output": {"type": "text", "text": "x"}}\n' * 1024)
    elif kind == "drive":
        while True:
            answer({"op": "read"})
            if "end" in json.loads(sys.stdin.readline() or '{"end": true}'):
                break
        for output in action[1]:  # type: ignore[attr-defined]
            answer({"op": "emit", "output": output})
        answer({"op": "close"})
        answer({"op": "done"})


def main() -> None:
    plan = json.loads(sys.argv[1])
    for index, line in enumerate(sys.stdin):
        request = json.loads(line)
        if request.get("op") == "shutdown":
            return
        act(plan[min(index, len(plan) - 1)], request)


if __name__ == "__main__":
    main()
