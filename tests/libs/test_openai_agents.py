"""What the OpenAI Agents SDK's Chat Completions model (``OpenAIChatCompletionsModel``, its
``ChatCmplStreamHandler``) hands its user through the adapter: a body served in one read by the
offline transport, and the bundled scenarios replayed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from harness.adapters.libs.openai_agents import AgentsChatCompletionsStream
from harness.adapters.registry import resolve_adapter
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario
from tests.libs.chat_body import body, call

pytest.importorskip("agents", reason="openai-agents is not installed (extra 'openai-agents')")

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"
ADAPTER = "harness.adapters.libs.openai_agents:make_adapter"
BUFFERED = "harness.adapters.libs.openai_agents:make_buffered_adapter"


def drive(data: bytes, *, buffered: bool = False) -> list[DriverOutput]:
    async def one_read() -> AsyncIterator[bytes]:
        yield data

    async def run() -> list[DriverOutput]:
        adapter = AgentsChatCompletionsStream(buffered=buffered)
        return [output async for output in adapter.drive(one_read())]

    return asyncio.run(run())


@pytest.mark.parametrize("adapter", [ADAPTER, BUFFERED])
@pytest.mark.parametrize("name", ["text-before-tool-call", "parallel-calls", "cut-mid-arguments"])
def test_a_scenario_as_written_passes(adapter: str, name: str) -> None:
    result = replay(load_scenario(DRIVER / f"{name}.yaml"), resolve_adapter(adapter))
    assert result.status == "pass", result.violations


def test_text_then_each_call_at_the_end_of_the_message() -> None:
    data = body(
        {"content": "Looking."},
        call(0, "call_1", "read", '{"f": '),
        call(0, None, None, "1}"),
        call(1, "call_2", "read", '{"f": 2}'),
    )
    assert drive(data) == [
        TextOut("Looking."),
        ToolCallOut("call_1", "read", '{"f": 1}', True),
        ToolCallOut("call_2", "read", '{"f": 2}', True),
        TurnEnd(),  # response.completed carries no finish_reason
    ]


@pytest.mark.parametrize("buffered", [False, True], ids=["streamed", "buffered"])
def test_parallel_calls_sent_at_one_index_are_merged_into_one(buffered: bool) -> None:
    """Groq and index-rewriting gateways send each parallel call at index 0 with its own id: the
    handler (and the buffer) key calls by index, so the user gets one call with the last id and
    both calls' arguments back to back."""
    data = body(
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    merged = ToolCallOut("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}', False)
    assert drive(data, buffered=buffered) == [merged, TurnEnd()]


def test_a_call_without_an_index_passes_unbuffered_and_crashes_the_buffer() -> None:
    """Gemini's OpenAI-compatible endpoint and Ollama send call deltas without an index: the
    handler keeps a single call whole, the buffer rebuilds it with index=None and pydantic
    rejects that."""
    import pydantic

    data = body(call(None, "call_1", "read", '{"f": 1}'))
    assert drive(data) == [ToolCallOut("call_1", "read", '{"f": 1}', True), TurnEnd()]
    with pytest.raises(pydantic.ValidationError):
        drive(data, buffered=True)
