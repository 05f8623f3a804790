"""Haystack's ``OpenAIChatGenerator`` under its adapter: the callback's text comes out at the
read that carried it and the reply's calls at the end; a clean stream passes, and the bugs its
explanations name show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.model.driver import TextOut, ToolCallOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario
from tests.libs.chat_body import body, call

pytest.importorskip("haystack", reason="haystack-ai is not installed (extra 'haystack')")
pytest.importorskip("openai", reason="the openai SDK is not installed (extra 'haystack')")

ADAPTER = "harness.adapters.libs.haystack_openai:make_adapter"
DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"


def events(data: bytes) -> Iterator[bytes]:
    """The body one SSE event per read."""
    for event in data.split(b"\n\n")[:-1]:
        yield event + b"\n\n"


def drive(data: bytes) -> list[tuple[Any, int]]:
    """What the adapter yields, each with the reads made when it came out."""
    from harness.adapters.libs.haystack_openai import make_adapter

    reads = 0

    def counted() -> Iterator[bytes]:
        nonlocal reads
        for chunk in events(data):
            reads += 1
            yield chunk

    return [(output, reads) for output in make_adapter().drive(counted())]


def test_text_comes_out_at_its_read_and_the_calls_with_the_reply() -> None:
    data = body({"content": "Reading."}, call(0, "call_1", "read", '{"f": 1}'))
    assert drive(data) == [
        (TextOut("Reading."), 2),
        (ToolCallOut("call_1", "read", '{"f": 1}', True), 4),
        (TurnEnd("tool_use"), 4),
    ]


@pytest.mark.parametrize("name", ["text-before-tool-call", "parallel-calls"])
def test_a_clean_stream_passes(name: str) -> None:
    result = replay(load_scenario(DRIVER / f"{name}.yaml"), ADAPTER)
    assert result.status == "pass", result.violations


def test_a_name_on_every_delta_is_joined() -> None:
    result = replay(load_scenario(DRIVER / "name-every-chunk.yaml"), ADAPTER)
    assert {v.rule for v in result.violations} == {"strict-assembly"}


def test_a_call_delta_without_an_index_makes_run_raise() -> None:
    with pytest.raises(ValueError, match="`index` must also be set"):
        drive(body(call(None, "call_1", "read", '{"f": 1}')))
