"""The variations of session and history scenarios (``harness.scenario.variations``): what each
reworks, that a correct consumer passes every case, that a bug only a variation shows is caught,
that a variation's cause is the plain case's where it is the same bug, and how a case is chosen
and reproduced alone."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from functools import cache

import pytest

from harness._errors import UsageError
from harness.adapters.registry import BUNDLED, resolve_adapter
from harness.cli import main as harness_main
from harness.model import session as ev
from harness.model.projection import history_from_events
from harness.replay import cases_to_run, replay
from harness.report import reproduce_commands
from harness.results.causes import case_causes, group_causes
from harness.scenario import SessionScenario
from harness.scenario.variations import (
    VARIATIONS,
    select_session_cases,
    session_cases,
    why_not,
)
from tests.projects_for_tests import outside_xdist
from tests.scenarios_for_tests import LIBRARY, load_every, parse_session

SESSION_REFERENCES = [
    a.name for a in BUNDLED.values() if a.kind == "reference" and a.layer in ("session", "history")
]

TWO_SUBAGENTS = """\
id: two-subagents
title: t
description: d
source: tests
layer: session
trace:
  - user_message: {id: u1, text: "Ask both agents."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "Asking both agents now.", chunks: 3}
  - tool_select: {calls: [{id: toolu_a, name: read_file}, {id: toolu_b, name: grep}]}
  - tool_executing: {calls: [{id: toolu_a, name: read_file, input: {path: a}}]}
  - tool_executing: {calls: [{id: toolu_b, name: grep, input: {pattern: x}}]}
  - tool_completed: {calls: [{id: toolu_a, name: read_file, input: {path: a}, result: "a"}]}
  - tool_completed: {calls: [{id: toolu_b, name: grep, input: {pattern: x}, result: "x"}]}
  - subsession_start: {session: one, parent: main}
  - message: {session: one, id: one-m1, text: "First agent here.", chunks: 2}
  - subsession_end: {session: one}
  - subsession_start: {session: two, parent: main}
  - message: {session: two, id: two-m1, text: "Second agent here.", chunks: 2}
  - subsession_end: {session: two}
  - message: {id: m2, text: "Both answered."}
  - interaction_end: {id: i1}
  - user_turn_start:
"""


@cache
def two_subagents() -> SessionScenario:
    return parse_session(TWO_SUBAGENTS, "two-subagents.yaml")


def case(scenario: SessionScenario, variant: str) -> SessionScenario:
    found = [c for c in session_cases(scenario) if c.variant == variant]
    assert found, (
        f"no case {variant} of {scenario.id}: {[c.variant for c in session_cases(scenario)]}"
    )
    return found[0]


@cache
def library() -> tuple[SessionScenario, ...]:
    return tuple(s for s in load_every(LIBRARY) if isinstance(s, SessionScenario))


# -- what each variation reworks ------------------------------------------------------------------


def texts(trace: Iterable[ev.SessionEvent], message_key: tuple[str, str]) -> list[str]:
    return [
        e.text
        for e in trace
        if isinstance(e, ev.MessageDelta) and (e.session_id, e.message_id) == message_key
    ]


def test_split_and_merged_deltas_keep_the_text_and_change_the_deltas():
    scenario = two_subagents()
    plain = texts(scenario.trace, ("main", "m1"))
    split = texts(case(scenario, "split-deltas").trace, ("main", "m1"))
    merged = texts(case(scenario, "merged-deltas").trace, ("main", "m1"))
    assert "".join(split) == "".join(merged) == "".join(plain)
    assert len(split) == 2 * len(plain) and len(merged) == 1 < len(plain)


def test_reused_ids_number_ids_per_session_so_sessions_share_them():
    reused = case(two_subagents(), "reused-ids")
    starts = {
        (e.session_id, e.message_id)
        for e in reused.trace
        if isinstance(e, (ev.MessageStart, ev.UserMessage))
    }
    assert {("one", "m1"), ("two", "m1"), ("main", "m1"), ("main", "m2")} <= starts
    calls = {c.id for e in reused.trace if isinstance(e, ev.ToolCompleted) for c in e.calls}
    assert calls == {"call_1", "call_2"}


def test_interleaved_alternates_the_sub_sessions_and_keeps_each_ones_order():
    scenario = two_subagents()
    mixed = case(scenario, "interleaved")
    sessions = [e.session_id for e in mixed.trace if e.session_id in ("one", "two")]
    assert sessions[:4] == ["one", "two", "one", "two"]
    for session in ("one", "two"):
        assert [e for e in mixed.trace if e.session_id == session] == [
            e for e in scenario.trace if e.session_id == session
        ]


def test_reordered_lifecycle_keeps_each_calls_own_order():
    scenario = two_subagents()
    swapped = case(scenario, "reordered-lifecycle")
    assert list(swapped.trace) != list(scenario.trace)

    def lifecycle(trace: Iterable[ev.SessionEvent], call_id: str) -> list[str]:
        return [
            e.kind
            for e in trace
            if isinstance(e, (ev.ToolSelect, ev.ToolExecuting, ev.ToolCompleted))
            and call_id in {c.id for c in e.calls}
        ]

    for call_id in ("toolu_a", "toolu_b"):
        assert lifecycle(swapped.trace, call_id) == lifecycle(scenario.trace, call_id)


def test_resumed_inserts_the_live_history_where_the_session_is_at_rest():
    resumed = case(two_subagents(), "resumed")
    events = list(resumed.trace)
    at = [i for i, e in enumerate(events) if isinstance(e, ev.Resume)]
    assert at, "no resume inserted"
    for i in at:
        resume = events[i]
        assert isinstance(resume, ev.Resume)
        assert isinstance(events[i - 1], (ev.InteractionEnd, ev.UserTurnStart, ev.Checkpoint))
        assert resume.history == history_from_events(events[:i], resume.session_id)
        assert resume.history  # a session with nothing stored is not resumed


def test_every_event_observes_after_every_event_and_keeps_the_trace():
    scenario = two_subagents()
    observed = case(scenario, "every-event")
    assert observed.observe_every_event and not scenario.observe_every_event
    assert list(observed.trace) == list(scenario.trace)


def test_a_variation_that_cannot_apply_says_why_and_makes_no_case():
    scenario = parse_session(
        TWO_SUBAGENTS.replace("  - subsession_start: {session: two, parent: main}\n", "")
        .replace(
            '  - message: {session: two, id: two-m1, text: "Second agent here.", chunks: 2}\n', ""
        )
        .replace("  - subsession_end: {session: two}\n", ""),
        "one-subagent.yaml",
    )
    assert "no two sub-sessions" in (why_not(scenario, "interleaved") or "")
    assert not [c for c in session_cases(scenario) if "interleaved" in c.added]
    assert why_not(scenario, "split-deltas") is None


def test_pairs_are_only_of_variations_that_rework_the_same_events():
    variants = {c.variant for c in session_cases(two_subagents())}
    assert "reused-ids+interleaved" in variants  # both rework the sub-sessions' messages
    assert not any(v.startswith("every-event+") or "+every-event" in v for v in variants)
    assert len(variants) == len(session_cases(two_subagents()))  # no two cases alike


# -- verdicts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("reference", SESSION_REFERENCES)
def test_every_reference_passes_every_variation_case(reference):
    adapter = BUNDLED[reference]
    scenarios = [s for s in library() if s.layer == adapter.layer]
    cases = cases_to_run(scenarios, adapter)
    assert len(cases) > 4 * len(scenarios)
    results = [replay(c, adapter) for c in cases]
    # a consumer of a UI protocol skips, with the reason, the cases its protocol cannot carry
    # (harness.codecs.session); any other adapter runs them all
    carried = getattr(adapter.factory, "session_dialect", None) is not None
    failed = [
        f"{r.scenario.case_id}: {r.error or [(v.rule, v.event_index, v.message) for v in r.violations]}"
        for r in results
        if r.status != "pass" and not (carried and r.status == "skip" and r.skip_reason)
    ]
    assert failed == []
    assert sum(r.status == "pass" for r in results) > 2 * len(scenarios)


def _shares_ids(scenario: SessionScenario) -> bool:
    """Whether two sessions of the scenario, as written, name the same message id."""
    owners: dict[str, set[str]] = {}
    for event in scenario.trace:
        if isinstance(event, (ev.MessageStart, ev.MessageDelta, ev.MessageEnd, ev.UserMessage)):
            owners.setdefault(event.message_id, set()).add(event.session_id)
    return any(len(sessions) > 1 for sessions in owners.values())


def test_a_bug_only_ids_reused_across_sessions_show_is_caught():
    mutant = BUNDLED["session-mutant-message-start-reuses-known-id"]
    everyone = [s for s in library() if s.layer == "session"]
    # the library also has scenarios that reuse ids as written (such as
    # sessions-reuse-message-and-call-ids): those catch it plain, the others only once varied
    written = [s for s in everyone if _shares_ids(s)]
    assert written and all(replay(s, mutant).status == "fail" for s in written)
    scenarios = [s for s in everyone if not _shares_ids(s)]
    plain = [replay(s, mutant) for s in scenarios]
    assert all(r.status == "pass" for r in plain)
    varied = [
        replay(c, mutant) for s in scenarios for c in select_session_cases(s, ("reused-ids",))
    ]
    assert any(r.status == "fail" for r in varied)


def test_a_variations_cause_is_the_plain_cases_where_it_is_the_same_bug():
    """Split deltas move every later event; the cause stays keyed by the scenario's event."""
    mutant = "session-mutant-no-cleanup-user-turn"
    # a call of the first sub-agent left running: only the user's turn clears its notice
    dangling = parse_session(
        TWO_SUBAGENTS.replace(
            "  - subsession_end: {session: one}\n",
            "  - tool_executing: {session: one, calls: [{id: toolu_c, name: ls}]}\n"
            "  - subsession_end: {session: one}\n",
        ),
        "dangling.yaml",
    )
    plain = replay(dangling, mutant)
    split = replay(case(dangling, "split-deltas"), mutant)
    assert plain.status == split.status == "fail"
    plain_roots = {(v.rule, v.event_index) for v in plain.root_causes}
    split_roots = {(v.rule, v.event_index) for v in split.root_causes}
    assert plain_roots != split_roots  # the case's own event numbers differ ...
    assert case_causes(plain) == case_causes(split)  # ... its causes do not
    causes = group_causes([split, plain])
    assert len(causes) == len(case_causes(plain))
    assert all(c.smallest is plain and c.violation is not None for c in causes)
    assert all(len(c.cases) == 2 and c.trigger_text() == "as written" for c in causes)


# -- choosing and reproducing a case ---------------------------------------------------------------


def test_selection_all_none_and_one_case():
    scenario = two_subagents()
    assert select_session_cases(scenario, "none") == (scenario,)
    assert select_session_cases(scenario, "all") == session_cases(scenario)
    (one,) = select_session_cases(scenario, ("split-deltas",))
    assert one.case_id == "two-subagents[split-deltas]"
    (pair,) = select_session_cases(scenario, ("split-deltas", "every-event"))
    assert pair.variant == "every-event+split-deltas" and pair.observe_every_event
    with pytest.raises(ValueError, match="no variation 'shuffled'"):
        select_session_cases(scenario, ("shuffled",))


def test_cases_to_run_says_an_unknown_variation_in_its_own_words():
    with pytest.raises(UsageError, match="--variations: no variation 'shuffled'"):
        cases_to_run(
            [two_subagents()], resolve_adapter("session-reference"), variations=("shuffled",)
        )


def test_the_reproduce_command_runs_exactly_the_failed_case(capsys):
    mutant = "session-mutant-message-start-reuses-known-id"
    scenario = next(s for s in library() if s.id == "subsession-messages-interleaved")
    failed = next(
        r for r in (replay(c, mutant) for c in session_cases(scenario)) if r.status == "fail"
    )
    assert failed.scenario.added
    command, pytest_command = reproduce_commands(failed, mutant, pytest=True)
    assert f"--variations={','.join(failed.scenario.added)}" in command
    assert f"--harness-variations={','.join(failed.scenario.added)}" in pytest_command
    arguments = [*shlex.split(command)[3:], "--format", "json"]
    assert harness_main(arguments) == 1
    results = json.loads(capsys.readouterr().out)["results"]
    assert [(r["scenario"], r.get("case")) for r in results] == [
        (scenario.id, failed.scenario.variant)
    ]
    assert results[0]["status"] == "fail"


def test_the_plain_case_reproduces_with_no_variation():
    result = replay(two_subagents(), "session-mutant-no-cleanup-user-turn")
    (command,) = reproduce_commands(result, "session-mutant-no-cleanup-user-turn")
    assert command.endswith("--variations=none")


def test_every_variation_is_named_in_the_docs():
    docs = (LIBRARY.parent / "docs" / "SCENARIOS.md").read_text(encoding="utf-8")
    missing = [name for name in VARIATIONS if f"`{name}`" not in docs]
    assert missing == []


# -- the plugin ------------------------------------------------------------------------------------


@pytest.fixture
def varied_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose one scenario is TWO_SUBAGENTS, the built-in library off."""
    outside_xdist(monkeypatch)
    (pytester.mkdir("scenarios") / "two-subagents.yaml").write_text(TWO_SUBAGENTS)
    pytester.makepyprojecttoml(PROJECT_INI)
    return pytester


PROJECT_INI = (
    '[tool.pytest.ini_options]\nharness_library = "false"\nharness_scenarios = ["scenarios"]\n'
    'harness_adapter = "session-reference"\nasyncio_default_fixture_loop_scope = "function"\n'
)


def collected(project: pytest.Pytester, *args: str) -> list[str]:
    result = project.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", *args)
    return [line.split("::", 1)[1] for line in result.outlines if "::" in line]


def test_the_plugin_makes_an_item_per_case_and_selects_them_by_option_or_ini(varied_project):
    every = [c.case_id for c in session_cases(two_subagents())]
    assert collected(varied_project) == every
    assert collected(varied_project, "--harness-variations=none") == ["two-subagents"]
    assert collected(varied_project, "--harness-variations=interleaved,reused-ids") == [
        "two-subagents[reused-ids+interleaved]"
    ]
    varied_project.makepyprojecttoml(PROJECT_INI + 'harness_variations = "split-deltas"\n')
    assert collected(varied_project) == ["two-subagents[split-deltas]"]
    # the command line wins over the ini
    assert collected(varied_project, "--harness-variations=all") == every


def test_the_plugin_says_an_unknown_variation_in_its_own_words(varied_project):
    result = varied_project.runpytest("-p", "no:cacheprovider", "--harness-variations=shuffled")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--harness-variations: no variation 'shuffled'*"])


def test_a_failing_case_is_reproduced_alone_through_the_plugin(varied_project):
    mutant = "session-mutant-message-start-reuses-known-id"
    scenario = LIBRARY / "session" / "subsession-messages-interleaved.yaml"
    (varied_project.path / "scenarios" / scenario.name).write_text(scenario.read_text())
    result = varied_project.runpytest("-p", "no:cacheprovider", f"--harness-adapter={mutant}")
    failed = re.findall(r"^FAILED \S+::(\S+)", result.stdout.str(), re.M)
    assert failed and all("reused-ids" in name for name in failed)
    commands = set(re.findall(r"^  (python -m pytest .*)$", result.stdout.str(), re.M))
    command = sorted(commands)[0]
    again = varied_project.runpytest("-p", "no:cacheprovider", *shlex.split(command)[3:])
    again.assert_outcomes(failed=1)


@pytest.mark.slow
def test_the_js_session_consumer_passes_every_variation_case(capsys):
    """The example consumer in another language (over the protocol), over the whole session library
    with every variation, as `harness run` runs it by default."""
    consumer = LIBRARY.parent / "examples" / "js" / "session-consumer.mjs"
    adapter = "exec:" + shlex.join(["node", str(consumer)])
    code = harness_main(["run", str(LIBRARY / "session"), "--adapter", adapter, "--format", "json"])
    results = json.loads(capsys.readouterr().out)["results"]
    assert [f"{r['scenario']}[{r.get('case', '')}]" for r in results if r["status"] != "pass"] == []
    assert code == 0 and len(results) > 4 * len({r["scenario"] for r in results})
