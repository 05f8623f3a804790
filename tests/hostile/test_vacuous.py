"""Nothing passes vacuously: a recording with no event of a turn in it, or a scenario that turns
off every check, is an error, not a pass for every driver (mutants included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError, WireError
from harness.codecs import dialects
from harness.replay import replay
from harness.rules import RULES
from harness.scenario import parse_scenario, recorded_scenario
from harness.wire.recordings import choose_stream, recorded_responses
from tests.hostile.for_tests import FUZZ, outcome, write

HEADER = "id: x\ntitle: t\ndescription: d\nsource: s\n"

#: bodies that hold no event of a turn: empty, blank, comments, events without data, a README
HOLLOW = st.sampled_from(
    [
        "",
        "\n\n",
        ": keep-alive\n\n",
        "event: ping\n\n",
        "retry: 10\n\n",
        "id: 1\n\nid: 2\n\n",
        "# Recordings\n\nThese files are recorded streams.\n",
        "data:\n\n",
    ]
)


@FUZZ
@given(body=HOLLOW, dialect=st.sampled_from(sorted(dialects())))
def test_a_recorded_stream_without_events_is_an_error(
    tmp_path_factory: pytest.TempPathFactory, body: str, dialect: str
) -> None:
    folder = tmp_path_factory.mktemp("hollow")
    write(folder / "body.txt", body)
    text = HEADER + f"layer: driver\nwire:\n  dialect: {dialect}\n  file: body.txt\n"
    result = outcome("vacuous", lambda: parse_scenario(text, str(folder / "x.yaml")))
    assert isinstance(result, ScenarioError), f"{body!r} as {dialect} loaded"


@FUZZ
@given(body=HOLLOW)
def test_a_hollow_recording_replayed_directly_is_an_error(
    tmp_path_factory: pytest.TempPathFactory, body: str
) -> None:
    path = write(tmp_path_factory.mktemp("hollow") / "README.md", body)

    def replayed() -> object:
        stream = choose_stream(recorded_responses(path), None, "openai-chat")
        return replay(recorded_scenario(stream), "driver-openai-chat-reference")

    result = outcome("vacuous", replayed)
    assert isinstance(result, (ScenarioError, WireError)), result


@pytest.mark.parametrize("layer", ["session", "driver", "history"])
def test_a_scenario_that_turns_off_every_rule_is_an_error(layer: str) -> None:
    every = sorted(r.id for r in RULES.values() if r.layer == layer)
    trace = (
        "trace:\n  - cycle: {blocks: [text: hi]}\n"
        if layer == "driver"
        else "trace:\n  - user_message: {id: u, text: hi}\n"
    )
    text = HEADER + f"layer: {layer}\ndisable_rules: [{', '.join(every)}]\n" + trace
    with pytest.raises(ScenarioError, match=r"x\.yaml:6: 'disable_rules' turns off every rule"):
        parse_scenario(text, "x.yaml")
    parse_scenario(text.replace(f"{every[0]}, ", ""), "x.yaml")  # one left: it checks that one


def test_faults_that_drop_every_event_are_an_error(tmp_path: Path) -> None:
    text = (
        HEADER
        + "layer: driver\ntrace:\n  - cycle: {blocks: [text: hi]}\n"
        + "faults:\n  - drop: {match: {}}\n"
    )
    with pytest.raises(ScenarioError, match=r"x\.yaml:9: the faults drop every event"):
        parse_scenario(text, "x.yaml")


#: session steps that give a consumer nothing to show
NOTHING_TO_SHOW = st.sampled_from(
    ["checkpoint: {name: here}", "resume: {history: []}", "resume: {history: live}"]
)


@FUZZ
@given(
    layer=st.sampled_from(["session", "history", "driver"]),
    steps=st.lists(NOTHING_TO_SHOW, min_size=1, max_size=5),
    pings=st.integers(min_value=1, max_value=5),
)
def test_a_trace_with_nothing_to_show_is_an_error(layer: str, steps: list[str], pings: int) -> None:
    listed = ["ping: {}"] * pings if layer == "driver" else steps
    if layer != "driver":  # checkpoints need distinct names
        listed = [step.replace("here", f"c{i}") for i, step in enumerate(listed)]
    text = HEADER + f"layer: {layer}\ntrace:\n" + "".join(f"  - {step}\n" for step in listed)
    result = outcome("vacuous", lambda: parse_scenario(text, "x.yaml"))
    assert isinstance(result, ScenarioError), f"{listed} loaded"
    assert "x.yaml:7: the trace holds only" in str(result), str(result)
    # one event with something in it, and the same trace checks that
    shown = "cycle: {blocks: [text: hi]}" if layer == "driver" else "user_message: {text: hi}"
    parse_scenario(text + f"  - {shown}\n", "x.yaml")
