"""What Strands Agents' model call, as its event loop runs it (``stream_messages``), hands its
user over OpenAI Chat Completions and Anthropic Messages: the adapters fed a fixed body."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.libs import LIBRARIES
from harness.adapters.libs.strands_agents import make_anthropic_adapter, make_openai_adapter
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario
from tests.libs.chat_body import body, call
from tests.libs.test_anthropic_sdk import START, end, fragment, sse, stop, tool_start

pytest.importorskip("strands", reason="strands-agents is not installed (extra 'strands')")

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"
STRANDS = [library for library in LIBRARIES if library.extra == "strands"]


@pytest.fixture(autouse=True)
def _quiet_strands() -> Iterator[None]:
    """Strands logs a warning for each input it cannot parse; the tests look at the result."""
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def driven(adapter: Any, data: bytes) -> list[DriverOutput]:
    async def chunks() -> AsyncIterator[bytes]:
        yield data

    async def run() -> list[DriverOutput]:
        return [output async for output in adapter.drive(chunks())]

    return asyncio.run(run())


@pytest.mark.parametrize("library", STRANDS, ids=lambda library: library.name)
def test_text_then_a_tool_call_passes(library: Any) -> None:
    result = replay(load_scenario(DRIVER / "text-before-tool-call.yaml"), library.adapter)
    assert result.status == "pass", result.violations


def test_max_tokens_drops_the_calls_and_ends_for_max_tokens() -> None:
    """The event loop replaces a max_tokens message's tool uses with text and raises
    MaxTokensReachedException: no tool runs, and the adapter reports the max_tokens end."""
    data = body(
        {"content": "Writing it."},
        call(0, "call_w", "write_file", '{"path": "a.sql", "content": "CREATE'),
        finish="length",
    )
    assert driven(make_openai_adapter(), data) == [TextOut("Writing it."), TurnEnd("max_tokens")]


def test_openai_input_that_does_not_parse_becomes_empty() -> None:
    data = body(call(0, "call_tk", "get_ticket", '{"ticket_id": 42'))
    assert driven(make_openai_adapter(), data) == [
        ToolCallOut("call_tk", "get_ticket", "{}", True),
        TurnEnd("tool_use"),
    ]


def test_openai_calls_at_one_index_become_one() -> None:
    data = body(
        call(0, "call_1", "write_file", json.dumps({"path": "a.rs"})),
        call(0, "call_2", "write_file", json.dumps({"path": "b.rs"})),
    )
    assert driven(make_openai_adapter(), data) == [
        ToolCallOut("call_1", "write_file", "{}", True),
        TurnEnd("tool_use"),
    ]


def test_anthropic_tool_use_is_handed_over_at_the_end() -> None:
    data = sse(
        START,
        tool_start(0, "toolu_1", "git_branch"),
        fragment(0, '{"name": '),
        fragment(0, '"fix/login"}'),
        stop(0),
        *end("tool_use"),
    )
    assert driven(make_anthropic_adapter(), data) == [
        ToolCallOut("toolu_1", "git_branch", '{"name": "fix/login"}', True),
        TurnEnd("tool_use"),
    ]


def test_anthropic_stream_cut_mid_input_ends_as_end_turn() -> None:
    data = sse(START, tool_start(0, "toolu_1", "write_file"), fragment(0, '{"path": "no'))
    assert driven(make_anthropic_adapter(), data) == [TurnEnd("end_turn")]
