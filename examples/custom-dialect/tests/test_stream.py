"""Unit tests of our reader and of the codec the harness uses to speak our wire format."""

from harness import parse_scenario

from switchyard import Finished, Text, ToolCall, TurnReader
from switchyard_testing import SwitchyardCodec

TURN = parse_scenario(
    """
id: unit
title: t
description: d
source: tests
layer: driver
trace:
  - cycle: {blocks: [{text: "Let me look."}, {tool_use: {id: c1, name: ls, input: {path: .}}}]}
  - cycle: {blocks: [{text: done}]}
""",
    "unit.yaml",
).turn


def test_a_line_cut_across_chunks_is_read_whole():
    body = '{"op": "start", "message": "m"}\n{"op": "open", "part": 0, "kind": "text"}\n'
    body += (
        '{"op": "text", "part": 0, "text": "hi"}\n{"op": "stop", "reason": "done"}\n{"op": "end"}\n'
    )
    chunks = [body[i : i + 7] for i in range(0, len(body), 7)]
    assert list(TurnReader().read(chunks)) == [Text("hi"), Finished("done")]


def test_the_turn_goes_on_after_a_tool_calls_stop():
    chunks = [c.data for c in SwitchyardCodec().encode(TURN)]
    assert list(TurnReader().read(chunks)) == [
        Text("Let me look."),
        ToolCall("c1", "ls", '{"path": "."}', True),
        Text("done"),
        Finished("done"),
    ]


def test_the_codec_reads_back_what_it_writes():
    codec = SwitchyardCodec()
    for quirks in ((), ("heartbeats",), ("batched_lines",)):
        body = "".join(c.data for c in codec.encode(TURN, quirks))
        decoded = codec.decode(body, source="body")
        assert [e for e in decoded if e.kind != "ping"] == [e for e in TURN if e.kind != "ping"]
