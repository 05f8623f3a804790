"""Bad recordings, through every command that reads one: exit 2 and a message naming the file
and the line, never a traceback, and nothing served, converted or replayed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cli import main

SSE_START = (
    "event: message_start\n"
    'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    '"content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n'
)


def cassette(body: str, content_type: str) -> str:
    return (
        "version: 1\ninteractions:\n- request:\n    method: POST\n"
        "    uri: https://api.anthropic.com/v1/messages\n    body: '{}'\n    headers: {}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        f"    headers:\n      Content-Type: [{content_type}]\n"
        f"    body:\n      string: {json.dumps(body)}\n"
    )


def bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    return "\n".join([*lines, "version: 1", "interactions: []", ""])


#: name -> (file content, what the message must say, the line it must name)
BAD: dict[str, tuple[str | bytes, str, str]] = {
    "truncated": (
        cassette(
            # cut inside an event that its blank line still ends (an event the body ends before
            # its blank line is discarded, as the SSE rules say: no error)
            SSE_START + 'event: content_block_start\ndata: {"type":"content_block_st\n\n',
            "text/event-stream",
        ),
        "not valid JSON",
        "response body:4",
    ),
    "not-streamed": (
        cassette('{"id": "msg_1", "type": "message", "content": []}', "application/json"),
        "not a stream",
        "yaml:3",
    ),
    "unknown-content-type": (
        cassette("<html><body>502 Bad Gateway</body></html>", "text/html"),
        "'text/html'",
        "yaml:3",
    ),
    "binary-junk": (bytes(range(256)) * 4, "not UTF-8", "yaml:2"),
    "yaml-bomb": (bomb(), "aliases expanded", "yaml:7"),  # a6: the first past the limit
}

COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "convert": lambda path: ["convert", path, "-o", "-"],
    "serve": lambda path: ["serve", path, "--port", "0"],
    "bench": lambda path: ["bench", "--wire", path, "--rounds", "1"],
    "run": lambda path: [
        "run",
        str(Path(path).with_name("scenario.yaml")),
        "--adapter",
        "driver-anthropic-reference",
    ],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_recording_is_exit_2_located_and_no_traceback(
    name: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, says, line = BAD[name]
    path = tmp_path / f"{name}.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    (tmp_path / "scenario.yaml").write_text(
        "id: recorded\ntitle: t\ndescription: d\nsource: s\nlayer: driver\n"
        f"wire:\n  dialect: anthropic\n  cassette: {path.name}\n",
        encoding="utf-8",
    )
    assert main(COMMANDS[command](str(path))) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert str(path) in err and says in err and line in err, err
    assert re.search(r":\d+: ", err), err  # a file:line the editor can jump to
