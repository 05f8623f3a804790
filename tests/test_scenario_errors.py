"""Malformed scenarios: every problem is located (file, line, message), exit code 2, no traceback.

Every YAML below is written so that line 1 is the first line after the opening quotes; the
comment ``# L<n>`` at the end of a line names its line number, and the expected lines in the
assertions are counted from the YAML, never copied from the harness's output.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import pytest

from harness._errors import Problem, ScenarioError
from harness.scenario import load_all, load_scenario, parse_scenario
from tests.budgets import within

ROOT = Path(__file__).resolve().parents[1]


# -- helpers -------------------------------------------------------------------------------------


def write(directory: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    problems = list(info.value.problems)
    assert problems, "a ScenarioError must carry at least one problem"
    return problems


def assert_one(problems: list[Problem], path: Path, line: int, *words: str) -> None:
    """Exactly one problem, in ``path`` at ``line``, whose message holds every word."""
    assert len(problems) == 1, [str(p) for p in problems]
    (problem,) = problems
    assert problem.path == str(path)
    assert problem.line == line, str(problem)
    for word in words:
        assert word in problem.message, (word, problem.message)


def located(problems: list[Problem]) -> list[tuple[str, int]]:
    return [(p.path, p.line) for p in problems]


def has(problems: list[Problem], line: int, *words: str) -> bool:
    return any(p.line == line and all(w in p.message for w in words) for p in problems)


def run_cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


# -- the files ------------------------------------------------------------------------------------
# Each entry: (YAML text, expected line, words the message must contain). Each spells out its
# whole scenario, header included, though most headers are alike: the expected line is then read
# off the text, and a failing case reads on its own.

UNKNOWN_EVENT = (
    """\
    id: unknown-event
    title: An event type that does not exist
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_explode: {id: x}                  # L8
    """,
    8,
    ("unknown event type", "'tool_explode'"),
)

PYTHON_TAG = (
    """\
    id: python-tag
    title: A python object tag
    description: d
    source: test
    layer: session
    trace:
      - user_message:
          text: !!python/object/apply:os.system ["touch MARKER"]   # L8
    """,
    8,
    ("not allowed", "python/object/apply:os.system"),
)

DUPLICATE_TOP = (
    """\
    id: duplicate-top
    title: First title                         # L2
    description: d
    source: test
    layer: session
    title: Second title                        # L6
    trace:
      - user_message: {text: hi}
    """,
    6,
    ("duplicate key 'title'", "line 2"),
)

DUPLICATE_IN_STEP = (
    """\
    id: duplicate-step
    title: t
    description: d
    source: test
    layer: session
    trace:
      - tool_select:
          calls: [{id: toolu_01, name: a}]       # L8
          calls: [{id: toolu_02, name: b}]       # L9
    """,
    9,
    ("duplicate key 'calls'", "line 8"),
)

DUPLICATE_IN_FLOW = (
    """\
    id: duplicate-flow
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: one, text: two}   # L7
    """,
    7,
    ("duplicate key 'text'", "line 7"),
)

BURST_TOO_BIG = (
    """\
    id: burst-too-big
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - burst:
          events: 1000000000                     # L9
    """,
    9,
    ("1,000,000", "'events'"),
)

REPEAT_TOO_BIG = (
    """\
    id: repeat-too-big
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - repeat:
          times: 1000000000                      # L9
          steps:
            - system_message: {text: "tick {i}"}
    """,
    9,
    ("1,000,000", "'times'"),
)

NESTED_REPEAT_TOO_BIG = (
    """\
    id: nested-repeat-too-big
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - repeat:
          times: 1000                            # L9
          steps:
            - repeat:
                times: 1000
                steps:
                  - system_message: {text: tick}
    """,
    9,
    ("1,000,000", "'times'"),
)

DUPLICATE_FAULT_TOO_BIG = (
    """\
    id: duplicate-fault-too-big
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
    faults:
      - duplicate:
          match: {type: user_message}
          times: 1000000000                      # L11
    """,
    11,
    ("1,000,000", "'times'"),
)

UNKNOWN_RULE = (
    """\
    id: unknown-rule
    title: t
    description: d
    source: test
    layer: session
    rules:
      - backward-attachment
      - no-such-rule                           # L8
    trace:
      - user_message: {text: hi}
    """,
    8,
    ("unknown rule id", "'no-such-rule'"),
)

UNKNOWN_DISABLED_RULE = (
    """\
    id: unknown-disabled-rule
    title: t
    description: d
    source: test
    layer: session
    rules: [backward-attachment]
    disable_rules:
      - exactly-once
      - not-a-rule                             # L9
    trace:
      - user_message: {text: hi}
    """,
    9,
    ("unknown rule id", "'not-a-rule'"),
)

BAD_INDENT_CONTINUATION = (
    """\
    id: bad-indent
    title: t
     layer: session                            # L3: indented under 'title'
    trace:
      - user_message: {text: hi}
    """,
    3,
    ("invalid YAML", "mapping values are not allowed"),
)

BAD_INDENT_SEQUENCE = (
    """\
    id: bad-indent-sequence
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
     - interaction_start: {id: i1}             # L8: one column short
    """,
    8,
    ("invalid YAML", "expected <block end>"),
)

BAD_INDENT_STEP_BODY = (
    """\
    id: bad-indent-body
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message:
          text: hi
         id: u1                                # L9: one column short
    """,
    9,
    ("invalid YAML", "expected <block end>"),
)

MISSING_ID = (
    """\
    # a scenario that forgot its id
    title: t                                   # L2: the scenario mapping starts here
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
    """,
    2,
    ("missing the required field 'id'",),
)

MISSING_TEXT = (
    """\
    id: missing-text
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {id: u1}                 # L7
    """,
    7,
    ("'user_message'", "missing the required field 'text'"),
)

MISSING_CALLS = (
    """\
    id: missing-calls
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_select: {session: main}           # L8
    """,
    8,
    ("'tool_select'", "missing the required field 'calls'"),
)

MISSING_CALLS_EMPTY_STEP = (
    """\
    id: missing-calls-empty
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_select:                           # L8: no body at all
      - interaction_start: {id: i1}
    """,
    8,
    ("'tool_select'", "missing the required field 'calls'"),
)

MISSING_CALL_ID = (
    """\
    id: missing-call-id
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_select:
          calls:
            - {name: fetch_file}                 # L10
    """,
    10,
    ("a call in 'tool_select'", "missing the required field 'id'"),
)

MISSING_TRACE = (
    """\
    id: missing-trace
    title: t
    description: d
    source: test
    layer: session
    """,
    1,
    ("missing the required field 'trace'",),
)

TIMES_NOT_A_NUMBER = (
    """\
    id: times-many
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - repeat:
          times: "many"                          # L9
          steps:
            - system_message: {text: tick}
    """,
    9,
    ("'times'", "whole number", "'many'"),
)

CALLS_NOT_A_LIST = (
    """\
    id: calls-five
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_select: {calls: 5}                # L8
    """,
    8,
    ("'calls'", "should be a list", "5"),
)

IS_COMPLETE_NOT_A_BOOL = (
    """\
    id: is-complete-yes
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool_stream:
          call_id: call_1
          event_type: result
          tool_name: fetch_file
          stream_part: "chunk"
          is_complete: "yes"                     # L13
    """,
    13,
    ("'is_complete'", "true or false", "'yes'"),
)

SEED_NOT_A_NUMBER = (
    """\
    id: seed-text
    title: t
    description: d
    source: test
    layer: session
    seed: zero                                 # L6
    trace:
      - user_message: {text: hi}
    """,
    6,
    ("'seed'", "whole number", "'zero'"),
)

UNKNOWN_TOP_FIELD = (
    """\
    id: unknown-top-field
    title: t
    description: d
    source: test
    layer: session
    colour: blue                               # L6
    trace:
      - user_message: {text: hi}
    """,
    6,
    ("unknown field 'colour'", "the scenario"),
)

UNKNOWN_STEP_FIELD = (
    """\
    id: unknown-step-field
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message:
          text: hi
          colour: blue                           # L9
    """,
    9,
    ("unknown field 'colour'", "'user_message'"),
)

FAULT_MATCHES_NOTHING = (
    """\
    id: fault-no-match
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - tool: {id: toolu_01, name: fetch_file, result: ok}
    faults:
      - drop:
          match: {type: tool_completed, id: toolu_99}   # L11
    """,
    11,
    ("'drop' fault", "matches no event"),
)

CANCEL_MATCHES_NOTHING = (
    """\
    id: cancel-no-match
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
    faults:
      - drop: {match: {type: user_message}, nth: 1}
      - cancel: {match: {type: user_message}}  # L10: the only one was dropped above
    """,
    10,
    ("'cancel' fault", "matches no event"),
)

DELTA_NOT_STARTED = (
    """\
    id: delta-not-started
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - message_start: {id: m1}
      - message_delta: {id: m2, text: oops}    # L9
      - message_end: {id: m1}
    """,
    9,
    ("message_delta", "'m2'", "not started"),
)

END_NOT_STARTED = (
    """\
    id: end-not-started
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - message_start: {id: m1, session: side}
      - message_end: {id: m1}                  # L9: m1 was started in 'side', not 'main'
    """,
    9,
    ("message_end", "'m1'", "not started", "'main'"),
)

UNKNOWN_CHECKPOINT = (
    """\
    id: unknown-checkpoint
    title: t
    description: d
    source: test
    layer: session
    trace:
      - user_message: {text: hi}
      - checkpoint: {name: after-hello}
    expect:
      - at: end
        notifications: []
      - at: after-goodbye                      # L12
        notifications: []
    """,
    12,
    ("'after-goodbye'", "no checkpoint"),
)


# -- through the library -------------------------------------------------------------------------


def test_the_good_example_loads(tmp_path: Path) -> None:
    # The baseline every malformed file departs from must itself be valid.
    source = (ROOT / "scenarios/session/backward-attachment-basic.yaml").read_text(encoding="utf-8")
    path = tmp_path / "good.yaml"
    path.write_text(source, encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.id == "backward-attachment-basic"
    assert scenario.path == str(path)


@pytest.mark.parametrize(
    ("case",),
    [
        pytest.param(UNKNOWN_EVENT, id="unknown-event-type"),
        pytest.param(MISSING_ID, id="missing-scenario-id"),
        pytest.param(MISSING_TEXT, id="missing-user-message-text"),
        pytest.param(MISSING_CALLS, id="missing-tool-select-calls"),
        pytest.param(MISSING_CALLS_EMPTY_STEP, id="missing-calls-empty-step"),
        pytest.param(MISSING_CALL_ID, id="missing-call-id"),
        pytest.param(MISSING_TRACE, id="missing-trace"),
        pytest.param(TIMES_NOT_A_NUMBER, id="repeat-times-many"),
        pytest.param(CALLS_NOT_A_LIST, id="calls-5"),
        pytest.param(IS_COMPLETE_NOT_A_BOOL, id="is-complete-yes"),
        pytest.param(SEED_NOT_A_NUMBER, id="seed-text"),
        pytest.param(BAD_INDENT_CONTINUATION, id="bad-indent-continuation"),
        pytest.param(BAD_INDENT_SEQUENCE, id="bad-indent-sequence"),
        pytest.param(BAD_INDENT_STEP_BODY, id="bad-indent-step-body"),
        pytest.param(DUPLICATE_TOP, id="duplicate-key-top"),
        pytest.param(DUPLICATE_IN_STEP, id="duplicate-key-in-step"),
        pytest.param(DUPLICATE_IN_FLOW, id="duplicate-key-in-flow-mapping"),
        pytest.param(UNKNOWN_RULE, id="unknown-rule-id"),
        pytest.param(UNKNOWN_DISABLED_RULE, id="unknown-disabled-rule-id"),
        pytest.param(UNKNOWN_TOP_FIELD, id="unknown-top-level-field"),
        pytest.param(UNKNOWN_STEP_FIELD, id="unknown-step-field"),
        pytest.param(FAULT_MATCHES_NOTHING, id="fault-matches-nothing"),
        pytest.param(CANCEL_MATCHES_NOTHING, id="cancel-matches-nothing"),
        pytest.param(DELTA_NOT_STARTED, id="delta-never-started"),
        pytest.param(END_NOT_STARTED, id="end-never-started-in-session"),
        pytest.param(UNKNOWN_CHECKPOINT, id="expectation-unknown-checkpoint"),
        pytest.param(BURST_TOO_BIG, id="burst-too-big"),
        pytest.param(REPEAT_TOO_BIG, id="repeat-too-big"),
    ],
)
def test_located_problem(tmp_path: Path, case: tuple[str, int, tuple[str, ...]]) -> None:
    text, line, words = case
    path = write(tmp_path, text)
    assert_one(problems_of(path), path, line, *words)


def test_parse_scenario_uses_the_given_path() -> None:
    text, line, words = UNKNOWN_EVENT
    with pytest.raises(ScenarioError) as info:
        parse_scenario(textwrap.dedent(text), "some/where/unknown.yaml")
    assert_one(list(info.value.problems), Path("some/where/unknown.yaml"), line, *words)
    # The exception's own text is the located lines, ready to print.
    assert str(info.value).startswith(f"some/where/unknown.yaml:{line}: ")


@pytest.mark.parametrize(
    ("tag", "words"),
    [
        ('!!python/object/apply:os.system ["touch {marker}"]', ("python/object/apply:os.system",)),
        (
            '!!python/object/apply:subprocess.call [["touch", "{marker}"]]',
            ("python/object/apply:subprocess.call",),
        ),
        (
            '!!python/object/new:subprocess.Popen [["touch", "{marker}"]]',
            ("python/object/new:subprocess.Popen",),
        ),
        ("!!python/name:os.system", ("python/name:os.system",)),
        ("!!python/module:os", ("python/module:os",)),
    ],
    ids=["apply-os-system", "apply-subprocess-call", "new-popen", "name", "module"],
)
def test_python_tags_are_refused_and_never_run(
    tmp_path: Path, tag: str, words: tuple[str, ...]
) -> None:
    marker = tmp_path / "pwned"
    value = tag.replace("{marker}", str(marker))
    text = """\
        id: python-tag
        title: t
        description: d
        source: test
        layer: session
        trace:
          - user_message:
              text: {value}
        """
    path = write(tmp_path, text.replace("{value}", value), "tag.yaml")
    problems = problems_of(path)
    assert_one(problems, path, 8, "not allowed", *words)
    assert not marker.exists(), "the tagged command was executed"


def test_python_tag_in_a_header_field_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = write(
        tmp_path,
        f"""\
        id: python-tag-title
        title: !!python/object/apply:os.system ["touch {marker}"]
        description: d
        source: test
        layer: session
        trace:
          - user_message: {{text: hi}}
        """,
    )
    assert_one(problems_of(path), path, 2, "not allowed", "python/object/apply:os.system")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("case",),
    [
        pytest.param(BURST_TOO_BIG, id="burst-events-1e9"),
        pytest.param(REPEAT_TOO_BIG, id="repeat-times-1e9"),
        pytest.param(NESTED_REPEAT_TOO_BIG, id="nested-repeat-1000x1000"),
        pytest.param(DUPLICATE_FAULT_TOO_BIG, id="duplicate-fault-times-1e9"),
    ],
)
def test_oversized_generators_fail_fast(
    tmp_path: Path, case: tuple[str, int, tuple[str, ...]]
) -> None:
    text, line, words = case
    path = write(tmp_path, text)
    import harness.rules  # noqa: F401 - imported before measuring, so only the load is measured

    # Refused before expanding: the memory figure shows it without a flaky time limit.
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as info:
            load_scenario(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_one(list(info.value.problems), path, line, *words)
    assert peak < 50 * 2**20, f"allocated {peak / 2**20:.0f} MiB before refusing"


@pytest.mark.parametrize(
    "content",
    [b"", b"\n\n\n", b"# only a comment\n\n# and another\n", b"---\n", b"   \n  \n"],
    ids=["zero-bytes", "blank-lines", "comments-only", "empty-document", "whitespace"],
)
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.yaml"
    path.write_bytes(content)
    assert_one(problems_of(path), path, 1, "empty")


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("id: caf\xe9\ntitle: t\n".encode("latin-1"))  # the bad byte is on line 1
    assert_one(problems_of(path), path, 1, "not UTF-8")


def test_non_utf8_file_points_at_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(
        b"id: non-utf8\n"
        b"title: t\n"
        b"description: d\n"
        b"source: caf\xe9\n"  # line 4: a latin-1 e-acute
        b"layer: session\n"
    )
    assert_one(problems_of(path), path, 4, "not UTF-8")


def test_several_problems_in_the_trace_are_all_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        id: several-problems
        title: t
        description: d
        source: test
        layer: session
        trace:
          - user_message: {text: hi}
          - tool_explode: {}                     # L8
          - message_delta: {id: m9, text: a}     # L9
          - repeat: {times: many, steps: []}     # L10
          - tool_select: {calls: 5}              # L11
          - tool_stream: {call_id: c, event_type: result, tool_name: t, is_complete: "yes"}  # L12
        faults:
          - drop: {match: {id: nobody}}          # L14
        expect:
          - at: nowhere                          # L16
        """,
    )
    problems = problems_of(path)
    assert {p.path for p in problems} == {str(path)}
    expected = [
        (8, ("unknown event type", "'tool_explode'")),
        (9, ("message_delta", "'m9'", "not started")),
        (10, ("'times'", "whole number")),
        (11, ("'calls'", "should be a list")),
        (12, ("'is_complete'", "true or false")),
        (14, ("matches no event",)),
        (16, ("'nowhere'", "no checkpoint")),
    ]
    for line, words in expected:
        assert has(problems, line, *words), (line, words, [str(p) for p in problems])
    assert sorted(p.line for p in problems) == [line for line, _ in expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            """\
            id: two-unknown-fields
            title: t
            description: d
            source: test
            layer: session
            colour: blue                         # L6
            flavour: red                         # L7
            trace:
              - tool_explode: {}                 # L9
            """,
            [(6, "'colour'"), (7, "'flavour'"), (9, "'tool_explode'")],
            id="unknown-top-fields",
        ),
        pytest.param(
            """\
            id: unknown-rules
            title: t
            description: d
            source: test
            layer: session
            rules:
              - no-such-rule                     # L7
              - nor-this-one                     # L8
            disable_rules: [not-a-rule]          # L9
            trace:
              - tool_explode: {}                 # L11
            """,
            [
                (7, "'no-such-rule'"),
                (8, "'nor-this-one'"),
                (9, "'not-a-rule'"),
                (11, "'tool_explode'"),
            ],
            id="unknown-rules",
        ),
        pytest.param(
            """\
            id: two-unknown-step-fields
            title: t
            description: d
            source: test
            layer: session
            trace:
              - user_message:
                  text: hi
                  colour: blue                   # L9
                  flavour: red                   # L10
            """,
            [(9, "'colour'"), (10, "'flavour'")],
            id="two-unknown-step-fields",
        ),
    ],
)
def test_header_problems_do_not_hide_other_problems(
    tmp_path: Path, text: str, expected: list[tuple[int, str]]
) -> None:
    path = write(tmp_path, text)
    problems = problems_of(path)
    for line, word in expected:
        assert has(problems, line, word), (line, word, [str(p) for p in problems])
    assert sorted(p.line for p in problems) == [line for line, _ in expected]


def test_load_all_keeps_the_good_and_reports_the_bad(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    (folder / "nested").mkdir(parents=True)
    good = folder / "good.yaml"
    good.write_text(
        (ROOT / "scenarios/session/backward-attachment-basic.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    bad = write(folder / "nested", UNKNOWN_EVENT[0], "bad.yaml")
    other = write(folder, DELTA_NOT_STARTED[0], "also-bad.yml")
    (folder / "notes.txt").write_text("not a scenario: ignored\n", encoding="utf-8")

    scenarios, problems = load_all([folder])

    assert [s.id for s in scenarios] == ["backward-attachment-basic"]
    assert scenarios[0].path == str(good)
    assert sorted(located(problems)) == sorted([(str(bad), 8), (str(other), 9)])
    assert has(problems, 8, "unknown event type", "'tool_explode'")
    assert has(problems, 9, "message_delta", "'m2'", "not started")


def test_load_all_on_files_and_a_duplicate_id(tmp_path: Path) -> None:
    valid = UNKNOWN_RULE[0].replace(
        "- no-such-rule                           # L8", "- exactly-once"
    )
    first, second = write(tmp_path, valid, "a.yaml"), write(tmp_path, valid, "b.yaml")
    scenarios, problems = load_all([first, second])
    assert [s.path for s in scenarios] == [str(first)]
    assert located(problems) == [(str(second), 1)]
    assert "'unknown-rule'" in problems[0].message and str(first) in problems[0].message


# -- through the command line --------------------------------------------------------------------


CLI_CASES = [
    pytest.param(UNKNOWN_EVENT, id="unknown-event-type"),
    pytest.param(PYTHON_TAG, id="python-tag"),
    pytest.param(DUPLICATE_TOP, id="duplicate-key-top"),
    pytest.param(DUPLICATE_IN_STEP, id="duplicate-key-in-step"),
    pytest.param(BURST_TOO_BIG, id="burst-too-big"),
    pytest.param(REPEAT_TOO_BIG, id="repeat-too-big"),
    pytest.param(UNKNOWN_RULE, id="unknown-rule-id"),
    pytest.param(UNKNOWN_DISABLED_RULE, id="unknown-disabled-rule-id"),
    pytest.param(BAD_INDENT_CONTINUATION, id="bad-indent"),
    pytest.param(BAD_INDENT_SEQUENCE, id="bad-indent-sequence"),
    pytest.param(MISSING_TEXT, id="missing-field"),
    pytest.param(CALLS_NOT_A_LIST, id="wrong-type"),
    pytest.param(UNKNOWN_TOP_FIELD, id="unknown-top-level-field"),
    pytest.param(FAULT_MATCHES_NOTHING, id="fault-matches-nothing"),
    pytest.param(UNKNOWN_CHECKPOINT, id="expectation-unknown-checkpoint"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("case",), CLI_CASES)
def test_cli_validate_reports_located_problem(
    tmp_path: Path, case: tuple[str, int, tuple[str, ...]]
) -> None:
    text, line, words = case
    marker = tmp_path / "pwned"
    path = write(tmp_path, text.replace("MARKER", str(marker)), "bad.yaml")
    started = time.perf_counter()
    result = run_cli("validate", str(path), cwd=tmp_path)
    elapsed = time.perf_counter() - started
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}:{line}: error: "), lines[0]
    for word in words:
        assert word in lines[0]
    assert not marker.exists()
    assert elapsed < 30, f"validate took {elapsed:.1f}s"


def test_cli_validate_relative_path(tmp_path: Path) -> None:
    write(tmp_path, UNKNOWN_EVENT[0], "rel.yaml")
    result = run_cli("validate", "rel.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("rel.yaml:8: error: unknown event type 'tool_explode'")


@pytest.mark.parametrize(
    ("name", "content", "line", "word"),
    [
        ("empty.yaml", b"", 1, "empty"),
        ("latin1.yaml", b"id: caf\xe9\n", 1, "not UTF-8"),
    ],
    ids=["empty-file", "non-utf8"],
)
def test_cli_validate_unreadable_files(
    tmp_path: Path, name: str, content: bytes, line: int, word: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = run_cli("validate", str(path), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}:{line}: error: ")
    assert word in result.stderr


def test_cli_validate_reports_every_problem(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        id: several
        title: t
        description: d
        source: test
        layer: session
        trace:
          - user_message: {text: hi}
          - tool_explode: {}                     # L8
          - tool_select: {calls: 5}              # L9
          - message_end: {id: m7}                # L10
        """,
    )
    result = run_cli("validate", str(path), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    for line in (8, 9, 10):
        assert f"{path}:{line}: error: " in result.stderr
    assert len(result.stderr.splitlines()) == 3


def test_cli_validate_folder_with_good_and_bad(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "good.yaml").write_text(
        (ROOT / "scenarios/session/backward-attachment-basic.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    bad = write(folder, DUPLICATE_IN_STEP[0], "bad.yaml")
    result = run_cli("validate", str(folder), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{bad}:9: error: duplicate key 'calls'")
    assert "good.yaml" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case",),
    [
        pytest.param(UNKNOWN_EVENT, id="unknown-event-type"),
        pytest.param(PYTHON_TAG, id="python-tag"),
        pytest.param(BURST_TOO_BIG, id="burst-too-big"),
        pytest.param(BAD_INDENT_SEQUENCE, id="bad-indent"),
    ],
)
def test_cli_run_on_a_malformed_file_exits_2(
    tmp_path: Path, case: tuple[str, int, tuple[str, ...]]
) -> None:
    text, line, _ = case
    marker = tmp_path / "pwned"
    path = write(tmp_path, text.replace("MARKER", str(marker)), "bad.yaml")
    result = run_cli("run", str(path), "--adapter", "session-reference", cwd=tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"{path}:{line}: error: ")
    assert not marker.exists()


def test_cli_alias_bomb_fails_fast(tmp_path: Path) -> None:
    import resource

    rows = [
        'a: &a ["xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx"]'
    ]
    for prev, name in zip("abcdefg", "bcdefgh", strict=True):
        rows.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    path = tmp_path / "bomb.yaml"
    path.write_text(
        "id: alias-bomb\ntitle: t\ndescription: d\nsource: test\nlayer: session\ntrace:\n"
        "  - user_message: {text: hi}\n"
        "  - tool:\n      id: toolu_01\n      name: n\n      input:\n"
        + "".join(f"        {row}\n" for row in rows),
        encoding="utf-8",
    )

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # a second to start Python and the harness; the bomb's expansion would take forever
    limit = within(5)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "harness", "validate", str(path)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=limit,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"validate did not finish within {limit:g} s")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}:")
