"""The library adapters run the libraries' own streaming code chunk by chunk: a per-call library
emits a call before the read that is cancelled, the cancellation ends it, and it closes the
stream it was reading."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.adapters.libs import LIBRARIES, Library
from harness.adapters.registry import resolve_adapter
from harness.model.driver_run import declared_contract
from harness.replay import replay
from harness.scenario import DriverScenario, load_scenario

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
@pytest.mark.parametrize(
    "library",
    [
        pytest.param(
            library,
            id=library.name,
            marks=pytest.mark.skipif(
                not library.installed(), reason=f"{library.name} is not installed"
            ),
        )
        for library in LIBRARIES
        if library.layer == "driver"  # a UI consumer's stop is judged by its session rules
    ],
)
def test_a_cancelled_library_stream_ends_and_closes(library: Library) -> None:
    adapter = resolve_adapter(library.adapter)
    scenarios = ["cancel-before-any-tool-call", "cancel-mid-arguments"]
    if declared_contract(adapter.factory()) == "per-call":
        # the call completed before the cancelled read must have come out
        scenarios.append("cancel-after-complete-call")
    ran = []
    for name in scenarios:
        result = replay(load_scenario(DRIVER / f"{name}.yaml"), adapter)
        if result.status == "skip":
            continue  # a dialect that sends calls whole has too few chunks to cancel inside one
        assert result.status == "pass", (name, result.violations)
        ran.append(name)
    assert ran, f"no cancellation scenario runs in {library.name}'s dialect"


_NAMED = {library.name: library for library in LIBRARIES}


@pytest.mark.parametrize(
    ("name", "scenario", "quirk"),
    [
        # the SDK hands over None for arguments a call header sent as null, nothing after it
        ("openai-chat", "empty-arguments", "null_fields"),
        ("openai-chat-final", "empty-arguments", "null_fields"),
        # without output_item.done events the calls come only in the response's terminal event
        ("openai-responses", "parallel-calls", "no_done_events"),
    ],
)
def test_the_glue_reports_what_the_library_hands_over(name: str, scenario: str, quirk: str) -> None:
    """Shapes where the library hands its user the right calls, which the glue once turned into
    a crash of its own or a lost call."""
    library = _NAMED[name]
    if not library.installed():
        pytest.skip(f"{name} is not installed")
    written = load_scenario(DRIVER / f"{scenario}.yaml")
    assert isinstance(written, DriverScenario)
    case = dataclasses.replace(written, quirks=(quirk,))
    result = replay(case, resolve_adapter(library.adapter))
    assert result.status == "pass", result.violations
