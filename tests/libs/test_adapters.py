"""The library adapters run the libraries' own streaming code chunk by chunk: a per-call library
emits a call before the read that is cancelled, the cancellation ends it, and it closes the
stream it was reading."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from harness.replay import replay
from harness.scenario import load_scenario

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"

#: adapter, the library it needs, whether it acts per call (else on the whole message)
ADAPTERS = [
    ("anthropic_sdk:make_adapter", "anthropic", True),
    ("openai_chat:make_adapter", "openai", True),
    ("openai_chat:make_final_adapter", "openai", False),
    ("openai_responses:make_adapter", "openai", True),
    ("langchain_core:make_adapter", "langchain_core", False),
    ("pydantic_ai:make_adapter", "pydantic_ai", True),
    ("litellm:make_adapter", "litellm", False),
]


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
@pytest.mark.parametrize(
    ("adapter", "per_call"),
    [
        pytest.param(
            f"harness.adapters.libs.{name}",
            per_call,
            id=name,
            marks=pytest.mark.skipif(not installed(module), reason=f"{module} is not installed"),
        )
        for name, module, per_call in ADAPTERS
    ],
)
def test_a_cancelled_library_stream_ends_and_closes(adapter: str, per_call: bool) -> None:
    scenarios = ["cancel-mid-arguments"]
    if per_call:  # the call completed before the cancelled read must have come out
        scenarios.append("cancel-after-complete-call")
    for name in scenarios:
        result = replay(load_scenario(DRIVER / f"{name}.yaml"), adapter)
        assert result.status == "pass", (name, result.violations)
