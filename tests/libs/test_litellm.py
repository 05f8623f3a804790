"""What ``litellm.stream_chunk_builder`` hands its user, reproduced directly against the library
(no harness): the chunks ``litellm.completion(stream=True)`` yields, built into one response."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.libs.chat_body import body, call

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import
litellm = pytest.importorskip("litellm", reason="litellm is not installed (extra 'litellm')")


# litellm warns from its own type definitions at first use
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]


def built(data: bytes) -> list[tuple[str, str, str]]:
    """The built message's tool calls: (id, name, arguments)."""
    from litellm.types.utils import ModelResponseStream

    chunks = [
        ModelResponseStream(**json.loads(line[len("data: ") :]))
        for line in data.decode().split("\n\n")
        if line.startswith("data: {")
    ]
    response: Any = litellm.stream_chunk_builder(chunks)
    calls = response.choices[0].message.tool_calls or ()
    return [(c.id, c.function.name, c.function.arguments) for c in calls]


def test_parallel_calls_sent_at_one_index_are_merged_into_one() -> None:
    """Groq, Ollama and some Gemini relays send each parallel call at index 0 with its own id:
    the builder returns one call with the last id and the calls' arguments back to back
    (BerriAI/litellm #7621), so the first call is lost and the second cannot be parsed."""
    data = body(
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    assert built(data) == [("call_2", "write_file", '{"path": "a.rs"}{"path": "b.rs"}')]


def test_call_deltas_without_an_index_are_merged_into_one() -> None:
    """Gemini's compatibility endpoint and Ollama send call deltas without an index: two parallel
    calls come back as one, with the second id and both argument objects back to back."""
    data = body(
        call(None, "function-call-1", "get_weather", '{"city": "Lisbon"}'),
        call(None, "function-call-2", "get_weather", '{"city": "Porto"}'),
        finish="stop",
    )
    assert built(data) == [
        ("function-call-2", "get_weather", '{"city": "Lisbon"}{"city": "Porto"}')
    ]


def test_an_id_that_changes_mid_call_replaces_the_first() -> None:
    """GLM through Mistral's API starts a call with one id and sends its fragments with another:
    the built call carries the later id, not the one it started with."""
    data = body(call(0, "chatcmpl-tool-1", "read", ""), call(0, "toolcall0", None, '{"f": 1}'))
    assert built(data) == [("toolcall0", "read", '{"f": 1}')]


def test_the_adapter_reports_what_litellm_makes_of_a_cut_body() -> None:
    """The body reaches litellm through its openai client, and the adapter adds no check of
    its own: a body cut mid-arguments ends with the finish_reason litellm's stream wrapper
    makes up ('stop'), which the turn's end reports."""
    from pathlib import Path

    from harness.adapters.registry import resolve_adapter
    from harness.replay import replay
    from harness.scenario import load_scenario

    scenarios = Path(__file__).resolve().parents[2] / "scenarios" / "driver"
    adapter = resolve_adapter("harness.adapters.libs.litellm:make_adapter")
    result = replay(load_scenario(scenarios / "cut-mid-arguments.yaml"), adapter)
    assert result.status == "fail"
    assert {v.rule for v in result.root_causes} == {"error-surfaced"}
