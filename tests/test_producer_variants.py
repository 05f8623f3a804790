"""The session dialects' producer variants: the shapes other producers of a UI protocol send
for the same thing (AG-UI's chunk events, an AI SDK call whose input is not streamed, ...),
which a consumer must read alike. Each is a case of its own, ``SCENARIO[VARIANT]``, for a
consumer of the protocol; the references read them all, and a mutant that misreads one is
caught only there."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

import pytest

from harness.adapters.registry import AdapterInfo, resolve_adapter
from harness.cli import main
from harness.codecs.session.base import fed_events, producer_variants
from harness.codecs.session.registry import session_codec
from harness.replay import replay
from harness.replay.cases import cases_for as all_cases_for
from harness.replay.dialects import dialect_case, producer_case
from harness.report import reproduce_command
from harness.results.causes import group_causes
from harness.scenario import Scenario, SessionScenario, load_scenario
from harness.scenario.cases import ALL, Selection
from harness.scenario.variations import VARIATIONS, check_variations
from tests.scenarios_for_tests import LIBRARY, load_folder

SCENARIOS, _ = load_folder(LIBRARY)
SESSION = [s for s in SCENARIOS if s.layer == "session"]
TOOL_FIRST = "scenarios/session/tool-first-turn.yaml"

REFERENCE = {"ag-ui": "session-ag-ui-reference", "ai-sdk-ui": "session-ai-sdk-ui-reference"}

#: each mutant of a producer variant's family -> the variant that shows its bug
MUTANTS = {
    "session-mutant-ag-ui-chunks-ignored": "chunk-events",
    "session-mutant-ag-ui-role-copied": "no-role",
    "session-mutant-ai-sdk-ui-part-made-at-input-start": "input-not-streamed",
    "session-mutant-ai-sdk-ui-metadata-ends-message": "message-metadata",
}


def cases_for(
    scenarios: Sequence[Scenario], info: AdapterInfo, variations: Selection = ALL
) -> list[SessionScenario]:
    """The session cases ``replay.cases.cases_for`` makes of session scenarios."""
    cases = all_cases_for(scenarios, info, variations=variations)
    sessions = [c for c in cases if isinstance(c, SessionScenario)]
    assert len(sessions) == len(cases)
    return sessions


def written(path: str = TOOL_FIRST) -> SessionScenario:
    scenario = load_scenario(path)
    assert isinstance(scenario, SessionScenario)
    return scenario


def fed(dialect: str, variant: str, path: str = TOOL_FIRST) -> list[dict[str, Any]]:
    codec = session_codec(dialect)
    case = dialect_case(written(path), codec)
    assert not isinstance(case, str)
    return [e for events in fed_events(codec, case.trace, variant) for e in events]


# -- what each dialect declares ------------------------------------------------------------------


@pytest.mark.parametrize("dialect", sorted(REFERENCE))
def test_each_variant_says_what_producers_send_and_where_that_is_written(dialect):
    variants = producer_variants(session_codec(dialect))
    assert len(variants) >= 3
    for name, sentence in variants.items():
        assert name not in VARIATIONS, f"{name} would be read as a variation"
        # a source: a package's file or function, a document, or a public repository
        assert re.search(r"\d+\.\d+\.\d+|docs|\w+/\w+|\.ts|\.py", sentence), (name, sentence)


@pytest.mark.parametrize("dialect", sorted(REFERENCE))
def test_each_variant_changes_what_some_library_scenario_feeds(dialect):
    codec = session_codec(dialect)
    info = resolve_adapter(REFERENCE[dialect])
    made = {c.producer for c in cases_for(SESSION, info) if c.producer}
    assert made == set(producer_variants(codec))


def test_chunk_events_send_no_start_content_or_end_of_messages_and_calls():
    events = fed("ag-ui", "chunk-events")
    kinds = {e["type"] for e in events}
    assert {"TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK"} <= kinds
    assert not kinds & {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
    }
    # every chunk names its message or call, so that no chunk depends on the one before it
    assert all(e.get("messageId") or e.get("toolCallId") for e in events if "CHUNK" in e["type"])


def test_steps_open_and_close_within_each_run_of_the_parent():
    open_steps: list[str] = []
    for event in fed("ag-ui", "steps"):
        if event["type"] == "STEP_STARTED":
            assert not open_steps
            open_steps.append(event["stepName"])
        elif event["type"] == "STEP_FINISHED":
            assert open_steps == [event["stepName"]]
            open_steps.clear()
        elif event["type"] == "RUN_FINISHED":
            assert not open_steps, "verifyEvents refuses RUN_FINISHED while a step is open"


def test_no_role_drops_only_the_assistants_role():
    starts = [e for e in fed("ag-ui", "no-role") if e["type"] == "TEXT_MESSAGE_START"]
    assert any("role" not in e for e in starts)
    assert all(e.get("role") in (None, "user") for e in starts)


def test_a_call_whose_input_is_not_streamed_arrives_as_tool_input_available_alone():
    path = "scenarios/session/executing-after-completion.yaml"
    base = [e["chunk"]["type"] for e in fed("ai-sdk-ui", "", path) if "chunk" in e]
    alone = [
        e["chunk"]["type"] for e in fed("ai-sdk-ui", "input-not-streamed", path) if "chunk" in e
    ]
    assert "tool-input-start" in base
    assert alone.count("tool-input-available") == base.count("tool-input-available")
    assert alone.count("tool-input-start") < base.count("tool-input-start")


def test_message_metadata_follows_every_chunk_but_start_and_finish():
    chunks = [e["chunk"] for e in fed("ai-sdk-ui", "message-metadata") if "chunk" in e]
    for chunk, following in itertools.pairwise(chunks):
        if chunk["type"] in ("start", "finish"):
            assert "messageMetadata" in chunk
        elif chunk["type"] != "message-metadata":
            assert following["type"] == "message-metadata", chunk


def test_an_unknown_variant_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="chunk-events"):
        producer_case(written(), session_codec("ag-ui"), "chunked")
    with pytest.raises(ValueError, match=r"producer variants: .*chunk-events"):
        check_variations(["chunked"])


# -- cases, selection, names ---------------------------------------------------------------------


def test_a_consumer_of_a_protocol_runs_each_scenario_under_its_variants_by_default():
    case_ids = [c.case_id for c in cases_for([written()], resolve_adapter(REFERENCE["ag-ui"]))]
    assert "tool-first-turn" in case_ids
    assert {"tool-first-turn[chunk-events]", "tool-first-turn[steps]"} <= set(case_ids)


def test_a_consumer_of_canonical_events_gets_no_variant_of_a_protocol():
    cases = cases_for([written()], resolve_adapter("session-reference"))
    assert cases and not any(c.producer for c in cases)


def test_none_runs_the_scenario_as_written_only():
    cases = cases_for([written()], resolve_adapter(REFERENCE["ag-ui"]), variations="none")
    assert [c.case_id for c in cases] == ["tool-first-turn"]


def test_a_variant_is_selected_by_name_alone_or_on_top_of_a_variation():
    info = resolve_adapter(REFERENCE["ag-ui"])
    alone = cases_for([written()], info, variations=("chunk-events",))
    assert [c.case_id for c in alone] == ["tool-first-turn[chunk-events]"]
    paired = cases_for([written()], info, variations=("split-deltas", "chunk-events"))
    assert [c.case_id for c in paired] == ["tool-first-turn[split-deltas+chunk-events]"]
    assert replay(paired[0], info).status == "pass"
    # a variant of another dialect has no case here
    assert cases_for([written()], info, variations=("message-metadata",)) == []
    with pytest.raises(ValueError, match="one producer variant at a time"):
        cases_for([written()], info, variations=("chunk-events", "steps"))


def test_a_case_under_a_variant_is_reproduced_and_counted_as_a_variations_case(capsys):
    mutant = "session-mutant-ag-ui-chunks-ignored"
    (case,) = cases_for([written()], resolve_adapter(mutant), variations=("chunk-events",))
    result = replay(case, mutant)
    assert result.status == "fail"
    command = reproduce_command(result)
    assert command.endswith("--variations=chunk-events")
    # its causes are the scenario's, keyed by the scenario's events, as a variation's are
    causes = group_causes([result])
    assert causes and all(c.key.startswith("tool-first-turn:") for c in causes)
    code = main(["run", TOOL_FIRST, "--adapter", mutant, "--variations", "chunk-events"])
    out = capsys.readouterr().out
    assert code == 1 and "under chunk-events" in out
    assert "--adapter session-mutant-ag-ui-chunks-ignored --variations=chunk-events" in out


def test_the_command_line_refuses_an_unknown_variant(capsys):
    with pytest.raises(SystemExit):
        main(["run", TOOL_FIRST, "--adapter", "session-reference", "--variations", "chunked"])
    assert "chunk-events" in capsys.readouterr().err


# -- references and mutants ----------------------------------------------------------------------


@pytest.mark.parametrize("dialect", sorted(REFERENCE))
def test_the_reference_passes_every_case_of_every_variant(dialect):
    info = resolve_adapter(REFERENCE[dialect])
    cases = [c for c in cases_for(SESSION, info) if c.producer]
    assert cases
    failed = {
        c.case_id: r.error or sorted(r.rules_broken)
        for c in cases
        if (r := replay(c, info)).status != "pass"
    }
    assert not failed


@pytest.mark.parametrize(("mutant", "variant"), sorted(MUTANTS.items()))
def test_a_variants_mutant_passes_without_it_and_is_caught_with_it(mutant, variant):
    info = resolve_adapter(mutant)
    cases = cases_for(SESSION, info)
    others = [c for c in cases if c.producer != variant]
    mine = [c for c in cases if c.producer == variant]
    assert mine
    assert all(replay(c, info).status in ("pass", "skip") for c in others)
    assert any(replay(c, info).status == "fail" for c in mine)


class RejectsUnknownEvents:
    """An AG-UI consumer whose reducer refuses an event type it has no case for, as an
    exhaustive switch with a throwing default does."""

    layers = ("session",)
    session_dialect = "ag-ui"
    KNOWN = frozenset(
        [
            "RUN_STARTED",
            "RUN_FINISHED",
            "RUN_ERROR",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "SUBAGENT_STARTED",
            "SUBAGENT_FINISHED",
            "MESSAGES_SNAPSHOT",
            "CUSTOM",
        ]
    )

    def __init__(self) -> None:
        from harness.adapters.session.ag_ui_reference import ReferenceAGUIConsumer

        self.inner = ReferenceAGUIConsumer()

    def feed(self, event: dict[str, Any]) -> None:
        if event["type"] not in self.KNOWN:
            raise ValueError(f"unknown AG-UI event {event['type']}")
        self.inner.feed(event)

    def view(self) -> dict[str, Any]:
        return self.inner.view()


@pytest.mark.parametrize("variant", ["steps", "raw-events"])
def test_a_consumer_that_refuses_events_it_does_not_know_meets_them_only_in_a_variant(variant):
    info = AdapterInfo("rejects-unknown", "session", "external", RejectsUnknownEvents, "")
    cases = cases_for([written()], info)
    results = {c.case_id: replay(c, info) for c in cases if c.producer in ("", variant)}
    assert results["tool-first-turn"].status == "pass"
    shown = results[f"tool-first-turn[{variant}]"]
    assert shown.status == "error" and "unknown AG-UI event" in (shown.error or "")
