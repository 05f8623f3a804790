"""Where a violation points: the event that caused it, and the file and line that event came from."""

from __future__ import annotations

from textwrap import dedent

from harness import replay
from harness.scenario import parse_scenario

# A store that copies a sub-agent's messages into its parent: the leaked text is the
# sub-agent's message, written when its last delta arrived, long before the checkpoint.
SUB_AGENT_TEXT = dedent(
    """\
    id: leak
    title: leak
    description: a sub-agent's message, then parent events up to a checkpoint
    source: tests
    layer: history
    trace:
      - user_message: {text: "Ask the QA agent."}
      - interaction_start: {id: i1}
      - message: {id: m1, text: "Asking QA."}
      - subsession_start: {session: qa, parent: main}
      - message: {session: qa, id: q1, text: "QA: all good."}
      - subsession_end: {session: qa, parent: main}
      - message: {id: m2, text: "QA says all good."}
      - interaction_end: {id: i1}
      - checkpoint: {name: after-turn}
      - user_turn_start:
    """
)


def test_a_sub_agent_text_leak_is_located_at_the_leaking_message():
    scenario = parse_scenario(SUB_AGENT_TEXT, "leak.yaml")
    result = replay(scenario, "history-mutant-subagent-into-parent")
    leaks = [v for v in result.violations if "holds the text" in v.message]
    assert leaks, result.violations
    deltas = [
        i
        for i, event in enumerate(scenario.trace)
        if type(event).__name__ == "MessageDelta" and event.session_id == "qa"
    ]
    # one violation, at the sub-agent's last delta (not at the checkpoint, nor once per checkpoint)
    assert [v.event_index for v in leaks] == [deltas[-1]]
    assert "'QA: all good.'" in leaks[0].message
