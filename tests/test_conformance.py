"""The self-test: the reference passes every scenario, and every mutant is caught by name.

A mutant that no scenario catches is a hole in the scenario library; a rule that no mutant
needs is suspect. Both fail this suite.
"""

from __future__ import annotations

from functools import cache

import pytest

from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.replay import ScenarioResult, replay
from harness.replay.cases import cases_for
from harness.replay.dialects import adapter_session_dialect, dialect_case
from harness.replay.driver import DriverReplay
from harness.rules import RULES
from tests.scenarios_for_tests import LIBRARY, load_folder

SCENARIOS, _PROBLEMS = load_folder(LIBRARY)
REFERENCES = [a for a in BUNDLED.values() if a.kind == "reference"]
MUTANTS = [a for a in BUNDLED.values() if a.kind == "mutant"]

#: mutant -> the rules that must be among those catching it (the rules its bug breaks)
CAUGHT_BY = {
    "session-mutant-keyed-by-tool-id": {"session-keyed-tracking"},
    "session-mutant-single-active-tool": {"notification-lifecycle"},
    "session-mutant-no-cleanup-interaction-end": {"cleanup-interaction-end"},
    "session-mutant-no-cleanup-user-turn": {"cleanup-user-turn"},
    "session-mutant-safety-net-completes-orphans": {"lost-completion"},
    "session-mutant-attach-at-next-message": {"backward-attachment"},
    "session-mutant-completed-never-cleared": {"exactly-once"},
    "session-mutant-no-message-updated": {"backward-attachment"},
    "session-mutant-thoughts-not-hosts": {"backward-attachment", "forward-attachment"},
    "session-mutant-attach-across-sessions": {"backward-attachment", "subsession-isolation"},
    "session-mutant-shared-forward-buffer": {"forward-attachment", "subsession-isolation"},
    "session-mutant-duplicate-completion-attached": {"exactly-once"},
    "session-mutant-subsession-into-parent": {"subsession-isolation"},
    "session-mutant-resume-skips-tool-calls": {"resume-equivalence"},
    "session-mutant-stream-parts-replaced": {"streamed-tool-results"},
    "session-mutant-summary-kept-first": {"streamed-tool-results"},
    "session-mutant-delegation-split-entries": {"streamed-tool-results"},
    "session-mutant-completion-clears-by-name": {"notification-lifecycle"},
    "session-mutant-deltas-to-latest-message": {"subsession-isolation"},
    "session-mutant-summary-frozen-until-complete": {"streamed-tool-results"},
    "session-mutant-first-call-notified": {"notification-lifecycle"},
    "session-mutant-late-executing-shown": {"notification-lifecycle"},
    "session-mutant-streams-keyed-by-tool-name": {"streamed-tool-results"},
    "session-mutant-streams-keyed-globally": {"streamed-tool-results"},
    "session-mutant-messages-keyed-globally": {"subsession-isolation"},
    "session-mutant-user-message-clears-all": {"notification-lifecycle", "backward-attachment"},
    "session-mutant-resume-keeps-notifications": {"notification-lifecycle"},
    # shows only under a variation: ids reused across sessions (no scenario as written has them)
    "session-mutant-message-start-reuses-known-id": {"subsession-isolation"},
    "history-mutant-subagent-into-parent": {"parent-isolation"},
    "history-mutant-no-orphan-guard": {"reverse-pairing"},
    "history-mutant-repair-inserts-message": {"repair-merges"},
    "history-mutant-parallel-results-split": {"reverse-pairing"},
    "history-mutant-interrupted-left-open": {"interrupted-turns"},
    "history-mutant-custom-message-between": {"forward-pairing"},
    "history-mutant-resume-skips-tool-calls": {"history-resume-equivalence"},
    "history-mutant-result-appended-twice": {"reverse-pairing"},
    "driver-mutant-anthropic-ends-at-first-message-stop": {"turn-lifetime"},
    "driver-mutant-anthropic-processes-assembled-message": {"no-duplicates"},
    "driver-mutant-anthropic-forwards-fragments": {"emit-once-early"},
    "driver-mutant-anthropic-batches-calls": {"emit-once-early"},
    "driver-mutant-anthropic-ignores-cancellation": {"cancellation"},
    "driver-mutant-anthropic-lenient-json": {"strict-assembly"},
    "driver-mutant-anthropic-duplicate-block-stop": {"no-duplicates"},
    "driver-mutant-anthropic-text-after-calls": {"order"},
    "driver-mutant-gemini-decodes-each-read": {"order"},
    "driver-mutant-anthropic-frames-on-lf-only": {"emit-once-early", "turn-lifetime"},
    "driver-mutant-openai-chat-read-ends-line": {"robust-framing"},
    "driver-mutant-openai-merges-same-index": {"parallel-apart"},
    "driver-mutant-openai-crashes-on-usage-chunk": {"robust-framing"},
    "driver-mutant-openai-finish-stop-drops-calls": {"emit-once-early"},
    "driver-mutant-openai-empty-arguments-crash": {"robust-framing"},
    "driver-mutant-openai-keys-by-id": {"strict-assembly"},
    "driver-mutant-openai-first-json-value": {"strict-assembly"},
    "driver-mutant-anthropic-ends-twice-wrong-reason": {"turn-lifetime"},
    "driver-mutant-openai-chat-ends-twice-wrong-reason": {"turn-lifetime"},
    "driver-mutant-openai-chat-joins-changed-ids": {"emit-once-early"},
    # these show only under a quirk of their dialect that no scenario asks for itself: the quirk
    # cross product runs every scenario under it
    "driver-mutant-gemini-first-call-per-response": {"emit-once-early"},
    "driver-mutant-gemini-array-element-per-read": {"robust-framing"},
    "driver-mutant-responses-next-item-ends-call": {"strict-assembly"},
    "driver-mutant-responses-rejects-unknown-fields": {"robust-framing"},
    "driver-mutant-ag-ui-end-closes-latest-call": {"order"},
    "driver-mutant-ag-ui-step-end-discards-open-calls": {"emit-once-early"},
    "driver-mutant-openai-finish-skips-chunk": {"strict-assembly", "emit-once-early"},
    "driver-mutant-openai-content-or-calls": {"emit-once-early"},
    "driver-mutant-openai-first-call-per-delta": {"emit-once-early"},
    "driver-mutant-openai-empty-delta-ends-call": {"strict-assembly"},
    "driver-mutant-openai-no-choices-ends-call": {"strict-assembly"},
    # a per-message driver: judged on the interleaved cases a per-call driver skips
    "driver-mutant-openai-fragment-to-last-call": {"strict-assembly"},
    "driver-mutant-anthropic-ignores-error-events": {"error-surfaced"},
    "driver-mutant-anthropic-flushes-open-calls-on-error": {"error-surfaced", "strict-assembly"},
    "driver-mutant-openai-chat-body-end-is-turn-end": {"error-surfaced"},
    "history-mutant-result-after-user-text": {"results-first"},
    # error flags, thinking in requests, the request while a call is open
    "session-mutant-error-flag-dropped-live": {"result-error-flag"},
    "session-mutant-error-flag-dropped-on-resume": {"resume-equivalence"},
    "history-mutant-error-flag-lost-on-persist": {"history-error-flags"},
    "history-mutant-request-error-flag-false": {"history-error-flags", "repair-merges"},
    "history-mutant-rebuild-drops-error-flag": {"history-error-flags"},
    "history-mutant-request-drops-thinking": {"thinking-in-request"},
    "history-mutant-request-drops-signature": {"thinking-in-request"},
    "history-mutant-repair-placeholder-apart": {"request-while-open", "repair-merges"},
    "history-mutant-request-unrepaired-while-open": {"request-while-open"},
    # the text of the wire: raw UTF-8 split across reads, line ends, thinking as the answer
    **{
        f"driver-mutant-{dialect}-decodes-each-read": {"order", "strict-assembly"}
        for dialect in ("anthropic", "anthropic-agent", "openai-chat", "openai-responses", "ag-ui")
    },
    **{
        f"driver-mutant-{dialect}-lines-end-at-lf": {"emit-once-early"}
        for dialect in ("openai-chat", "openai-responses", "ag-ui")
    },
    **{
        f"driver-mutant-{dialect}-no-lone-cr": {"emit-once-early"}
        for dialect in ("anthropic", "openai-chat", "openai-responses", "gemini-sse", "ag-ui")
    },
    "driver-mutant-gemini-thought-as-text": {"order"},
    "driver-mutant-gemini-json-array-thought-as-text": {"order"},
    "driver-mutant-responses-reasoning-as-text": {"order"},
    "driver-mutant-ag-ui-thinking-as-text": {"order"},
    # bugs no specific rule targets: only the comparison with the reference consumer sees them
    "session-mutant-stream-response-kept-first": {"reference-comparison"},
    "session-mutant-subsession-deltas-dropped": {"reference-comparison"},
    "session-mutant-subsession-thoughts-as-text": {"reference-comparison"},
    "history-mutant-request-drops-text-beside-results": {"history-reference-comparison"},
    "history-mutant-arguments-not-stored": {"history-reference-comparison"},
    # consumers of UI protocols (session dialects), each judged by its protocol's rule profile
    "session-mutant-ag-ui-call-found-by-id-anywhere": {"exactly-once", "backward-attachment"},
    "session-mutant-ag-ui-result-appended-again": {"exactly-once"},
    "session-mutant-ag-ui-parent-message-ignored": {"forward-attachment", "backward-attachment"},
    "session-mutant-ag-ui-subagent-runid-ignored": {"subsession-isolation"},
    "session-mutant-ag-ui-snapshot-merged": {"resume-equivalence"},
    "session-mutant-ai-sdk-ui-call-restarted-by-id": {
        "backward-attachment",
        "session-keyed-tracking",
    },
    "session-mutant-ai-sdk-ui-output-appended-again": {"exactly-once"},
    "session-mutant-ai-sdk-ui-abort-leaves-parts": {"cleanup-user-turn"},
    "session-mutant-ai-sdk-ui-state-kept-across-streams": {
        "backward-attachment",
        "forward-attachment",
    },
    "session-mutant-ai-sdk-ui-output-error-as-output": {"result-error-flag"},
    # these show only under a producer variant of their session dialect (the shapes other
    # producers send), which every session scenario runs under for a consumer of the protocol
    "session-mutant-ag-ui-chunks-ignored": {"backward-attachment", "notification-lifecycle"},
    "session-mutant-ag-ui-role-copied": {"backward-attachment"},
    "session-mutant-ai-sdk-ui-part-made-at-input-start": {
        "backward-attachment",
        "notification-lifecycle",
    },
    # the text lost after the metadata: a message's text is its own events' (the rule that
    # reads each message's text apart from other sessions')
    "session-mutant-ai-sdk-ui-metadata-ends-message": {"subsession-isolation"},
}


@cache
def results_for(adapter_name: str) -> tuple[ScenarioResult, ...]:
    """Every case of the adapter's layer: driver scenarios under every quirk of its dialect."""
    adapter = BUNDLED[adapter_name]
    mine = [s for s in SCENARIOS if s.layer == adapter.layer]
    return tuple(replay(s, adapter) for s in cases_for(mine, adapter))


def test_the_library_loads_and_is_large_enough():
    assert not _PROBLEMS, "\n".join(map(str, _PROBLEMS))
    assert len([s for s in SCENARIOS if s.layer == "session"]) >= 25
    assert len([s for s in SCENARIOS if s.layer == "history"]) >= 15
    assert len([s for s in SCENARIOS if s.layer == "driver"]) >= 30


def applies(adapter, scenario) -> bool:
    """Same layer, and for a driver, a dialect the replayer will run the scenario in (for a
    consumer of a UI protocol, a scenario the protocol can carry)."""
    if scenario.layer != adapter.layer:
        return False
    dialect = adapter_session_dialect(adapter, 10.0) if adapter.layer == "session" else None
    if dialect is not None:
        return not isinstance(dialect_case(scenario, dialect), str)
    return (
        adapter.layer != "driver"
        or DriverReplay(scenario, []).skip_reason(adapter.factory()) is None
    )


@pytest.mark.parametrize(
    ("reference", "scenario"),
    [(a, s) for a in REFERENCES for s in SCENARIOS if applies(a, s)],
    ids=lambda x: x.name if isinstance(x, AdapterInfo) else x.id,
)
def test_reference_passes(reference, scenario):
    result = replay(scenario, reference)
    assert result.status == "pass", result.error or "\n".join(
        f"[{v.rule}] event {v.event_index}: {v.message}" for v in result.violations
    )


@pytest.mark.parametrize(
    "mutant",
    [
        # a driver mutant is replayed on every quirk case of its dialect: seconds
        pytest.param(m, marks=pytest.mark.slow if m.layer == "driver" else (), id=m.name)
        for m in MUTANTS
    ],
)
def test_mutant_is_caught_by_the_rules_its_bug_breaks(mutant):
    results = results_for(mutant.name)
    failed = [r for r in results if r.status == "fail"]
    assert failed, f"no scenario catches {mutant.name}: {mutant.bug}"
    errors = [r for r in results if r.status == "error"]
    assert not errors, f"{mutant.name} should fail rules, not crash: {errors[0].error}"
    caught_by = {rule for r in failed for rule in r.rules_broken}
    assert mutant.name in CAUGHT_BY, (
        f"name the rules that catch {mutant.name} in CAUGHT_BY (it is caught by {sorted(caught_by)})"
    )
    missing = CAUGHT_BY[mutant.name] - caught_by
    assert not missing, (
        f"{mutant.name} is caught, but not by {sorted(missing)} (only by {sorted(caught_by)})"
    )


def test_every_rule_catches_some_mutant():
    needed = {rule for names in CAUGHT_BY.values() for rule in names}
    layers = {m.layer for m in MUTANTS}
    unneeded = sorted(r.id for r in RULES.values() if r.layer in layers and r.id not in needed)
    assert not unneeded, f"rules no mutant needs: {unneeded}"


def test_results_are_deterministic():
    scenario = next(s for s in SCENARIOS if s.id == "delegation-5000-subsession-events")
    first = replay(scenario, "session-mutant-attach-across-sessions")
    second = replay(scenario, "session-mutant-attach-across-sessions")
    assert first.violations == second.violations and first.violations
