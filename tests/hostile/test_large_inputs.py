"""Large valid inputs: work that a large input makes long is done once, not again per case, per
round or per read. Each test counts the work (calls, collections), not seconds: the seconds are
``benchmarks/large_inputs.py``'s, measured against a baseline in the same run."""

from __future__ import annotations

import gc
import json
import json.encoder
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.codecs import dialects
from harness.scenario import DriverScenario, load_scenario
from harness.scenario import cases as cases_module
from harness.scenario.cases import driver_cases, pairs_left_out
from harness.wire import read_cassette
from harness.wire import recordings as recordings_module
from harness.wire.recordings import recorded_cassette
from harness.wirereplay import SdkReplay, recorded_stream
from tests.hostile.for_tests import ROOT, calls_to, driver_runs_held, long_call, run_cli, write

URI = "https://api.openai.com/v1/chat/completions"
TOOLS = ROOT / "cassettes" / "real-traffic" / "llm-anthropic" / "test_tools.yaml"


def _cassette(interactions: int) -> str:
    event = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "hi"}}],
    }
    body = json.dumps(f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n")
    one = (
        f"- request:\n    method: POST\n    uri: '{URI}'\n    body: null\n    headers: {{}}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        f"    headers: {{Content-Type: [text/event-stream]}}\n    body: {{string: {body}}}\n"
    )
    return "interactions:\n" + one * interactions + "version: 1\n"


def test_reading_a_cassette_runs_no_garbage_collection(tmp_path: Path) -> None:
    """Its values are many new objects and no garbage: each collection walked them all again
    (a cassette of 20,000 interactions took twice as long)."""
    path = write(tmp_path / "c.yaml", _cassette(2_000))
    collections: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        assert len(read_cassette(path)) == 2_000
    finally:
        gc.callbacks.remove(count)
    # at most the one pass over the youngest generation (what was built) once collection is on
    # again; it ran dozens of times, over all three generations
    assert collections in ([], [0]), collections
    assert gc.isenabled()


def test_a_cassette_read_again_unchanged_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``harness bench --wire`` read it for the stream and again for its scenario; a run reads
    it again for every ``wire:`` scenario that names it."""
    path = write(tmp_path / "c.yaml", _cassette(3))
    reads: list[object] = []
    real = read_cassette

    def counted(*args: Any) -> Any:
        reads.append(args)
        return real(*args)

    monkeypatch.setattr(recordings_module, "read_cassette", counted)
    first = recorded_cassette(path, 2)
    assert recorded_cassette(path, 2) == first and len(reads) == 1
    whole = recorded_cassette(path)  # another interaction (all of them): read
    assert len(reads) == 2
    assert recorded_cassette(path, 1) == (whole[1],) and len(reads) == 2  # one of those read
    write(path, _cassette(4))  # changed: read again
    assert len(recorded_cassette(path)) == 4 and len(reads) == 3
    # changed within the same tick of the file's clock, to the same size: read again
    write(path, _cassette(4).replace('"hi', '"ho'))
    assert "ho" in recorded_cassette(path)[0].body and len(reads) == 4
    monkeypatch.setenv("HARNESS_MAX_CASSETTE_BYTES", "1")  # another limit: read again
    with pytest.raises(Exception, match="HARNESS_MAX_CASSETTE_BYTES"):
        recorded_cassette(path)
    assert len(reads) == 5


def test_vcrpy_reads_a_cassette_once_for_every_replay_and_is_served_the_one_interaction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every round of ``harness bench --wire`` had vcrpy read the whole cassette again (seconds
    for 20,000 interactions), counted as the SDK's time."""
    from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]

    loads: list[str] = []
    served: list[int] = []
    real = FilesystemPersister.load_cassette

    def counted(path: str, serializer: Any) -> Any:
        loads.append(os.fspath(path))
        return real(path, serializer)

    monkeypatch.setattr(FilesystemPersister, "load_cassette", staticmethod(counted))
    replay = SdkReplay(recorded_stream(TOOLS, 1))
    outcomes = {replay.run() for _ in range(3)}
    assert len(outcomes) == 1 and len(loads) == 1
    served.append(len(replay.persister.load_cassette(str(TOOLS), None)[0]))
    assert served == [1]
    (outcome,) = outcomes
    assert not outcome.tool_calls and "pelican" in outcome.text  # interaction 1, not 0


# -- a large turn: what every quirk case of a scenario shares is worked out once -------------------


def _large_turn(size: int) -> Any:
    from harness.scenario import parse_scenario

    text = json.dumps("word " * (size // 5))
    scenario = parse_scenario(
        "id: large\ntitle: A large turn\ndescription: large\nsource: test\nlayer: driver\n"
        "trace:\n  - cycle:\n      blocks:\n"
        f"        - text: {{text: {text}, chunks: 20}}\n"
        f"        - tool_use: {{id: c1, name: w, input: {{content: {text}}}, chunks: 20}}\n",
        "large.yaml",
    )
    return scenario


def test_a_long_string_is_escaped_once_for_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Escaping the turn's text and arguments again in each case's encoding was most of the
    work of encoding a large turn; each case's chunks are still exactly what they were."""
    from harness.codecs import dialects
    from harness.codecs import text as text_module

    scenario = _large_turn(200_000)
    codec = dialects()["openai-chat"]
    before = {q: codec.encode(scenario.turn, (q,)) for q in ("crlf", "null_fields")}
    escaped: list[int] = []
    real = json.encoder.encode_basestring

    def counted(value: str) -> str:
        escaped.append(len(value))
        return real(value)

    monkeypatch.setattr(text_module, "encode_basestring", counted)
    monkeypatch.setattr(text_module, "_ESCAPED", {})
    monkeypatch.setattr(text_module, "_escaped_bytes", 0)
    after = {q: codec.encode(scenario.turn, (q,)) for q in ("crlf", "null_fields")}
    codec.encode(scenario.turn, ())
    assert after == before
    long_fragments = sum(
        len(getattr(e, "text", None) or getattr(e, "fragment", None) or "") >= text_module.LONG
        for e in scenario.turn
    )
    assert 0 < len(escaped) <= long_fragments  # once each, not once a case


def test_the_strings_every_case_uses_stay_escaped_while_one_case_s_make_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The oldest escape went first: a quirk that cuts a long turn anew (one case's fragments)
    pushed out the turn's own, which every other case then escaped again (4,003 escapes where
    2,000 would do for 50 MB of arguments). ASCII text is escaped once for both ways of
    writing it, as ``json.dumps`` writes them alike."""
    from harness.codecs import text as text_module

    escaped: list[str] = []
    for name in ("encode_basestring", "encode_basestring_ascii"):
        real = getattr(text_module, name)

        def counted(value: str, real: Any = real) -> str:
            escaped.append(value)
            return real(value)

        monkeypatch.setattr(text_module, name, counted)
    monkeypatch.setattr(text_module, "_ESCAPED", {})
    monkeypatch.setattr(text_module, "_escaped_bytes", 0)
    monkeypatch.setattr(text_module, "LONG", 3)
    turn = ["a" * 1000, "b" * 1000]  # in every case
    once = ["c" * 1000, "d" * 1000]  # each in one case
    monkeypatch.setattr(text_module, "ESCAPED_LIMIT", 3 * 2 * sys.getsizeof(turn[0]) + 100)

    def write(value: Any, ensure_ascii: bool = False) -> None:
        got = text_module.json_text(value, (",", ":"), ensure_ascii=ensure_ascii)
        assert got == json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii)

    for one in once:
        write(turn)
        write(one)
    write(turn, ensure_ascii=True)
    assert escaped == [*turn, *once]
    escaped.clear()
    for text in ("é" * 5, "\x7f" * 5):  # written apart to ASCII
        write(text)
        write(text, ensure_ascii=True)
    assert escaped == ["é" * 5, "é" * 5, "\x7f" * 5, "\x7f" * 5]


def test_the_facts_of_a_turn_are_worked_out_once_for_its_cases() -> None:
    """Its calls' arguments were joined and parsed (twice) again in every case."""
    from harness.model.driver import turn_facts

    scenario = _large_turn(50_000)
    facts = turn_facts(scenario.turn)
    assert turn_facts(scenario.turn) is facts
    (call,) = facts.calls
    assert call.valid and "valid" in vars(call)  # parsed once, then kept


@given(text=st.text(alphabet="ab\r\n", max_size=30))
def test_lines_split_as_the_event_stream_format_says(text: str) -> None:
    """Split in C when no CR is there; the same lines as the regular expression finds."""
    from harness.wire import sse

    expected, pos, number = [], 0, 0
    for number, end in enumerate(sse.LINE_END.finditer(text), start=1):
        expected.append((number, text[pos : end.start()], True))
        pos = end.end()
    if pos < len(text):
        expected.append((number + 1, text[pos:], False))
    assert list(sse._lines(text)) == expected


def test_a_stream_without_cr_is_split_without_the_regular_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One regular-expression match a line was the driver's main cost on a 50 MB stream."""
    from harness.wire import sse

    class Counted:
        calls = 0

        def finditer(self, *args: Any) -> Any:
            Counted.calls += 1
            return re.compile(r"\r\n|\r|\n").finditer(*args)

    monkeypatch.setattr(sse, "LINE_END", Counted())
    events = sse.parse_sse("data: 1\n\ndata: 2\n\n", source="s")
    assert [e.data for e in events] == ["1", "2"] and Counted.calls == 0


_STRINGS = st.text(
    alphabet=st.sampled_from(["a", "\x00", "\x7f", "0", "1", '"', "\\", "é", "😀", "\ud800"])
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _STRINGS,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=4)
        | st.dictionaries(_STRINGS, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)


@given(payload=_JSON, ensure_ascii=st.booleans(), padded=st.booleans())
def test_json_with_long_strings_reused_is_exactly_json_dumps(
    payload: Any, ensure_ascii: bool, padded: bool
) -> None:
    """Whatever the strings hold (a mark's own characters included), as ``json.dumps``."""
    from harness.codecs import text as text_module

    separators = (" , ", " : ") if padded else (",", ":")
    long = text_module.LONG
    text_module.LONG = 3  # every string of three characters or more is a long one
    try:
        for _ in range(2):  # escaped, then reused
            got = text_module.json_text(payload, separators, ensure_ascii=ensure_ascii)
            assert got == json.dumps(payload, separators=separators, ensure_ascii=ensure_ascii)
    finally:
        text_module.LONG = long


def test_converting_one_of_many_interactions_names_a_few_others(tmp_path: Path) -> None:
    """A cassette of 20,000 interactions wrote a line for each of the 19,999 others."""
    path = write(tmp_path / "c.yaml", _cassette(30))
    code, _, err = run_cli("large valid inputs", "convert", str(path), "-o", "-")
    assert code == 0, err
    assert err.count("also in the recording") == 20
    assert "and 9 more interactions (21 to 29)" in err


def test_a_long_turn_runs_each_quirk_alone_and_says_what_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cross product of a long turn is its single-quirk cases: with every pair, 50 MB of
    arguments were 161 cases and 83 s of CPU. The run says what it left out, and how to run
    one pair. Its cases are told apart as they run: a quirk that leaves the stream as written
    is a skip that says so, and every case the short turn ran passes."""
    path = long_call(tmp_path)
    codec = dialects()["openai-chat"]

    def loaded() -> DriverScenario:
        scenario = load_scenario(path)
        assert isinstance(scenario, DriverScenario)
        return scenario

    every = driver_cases(loaded(), codec)  # the turn is 20 KB: pairs run
    pairs = [case for case in every if len(case.quirks) == 2]
    singles = [case.case_id for case in every if len(case.quirks) < 2]
    assert pairs and pairs_left_out(loaded(), codec) is None

    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 10_000)
    long_turn = loaded()
    alone = driver_cases(long_turn, codec)
    assert all(len(case.quirks) < 2 for case in alone)
    assert set(singles) < {case.case_id for case in alone}
    left = pairs_left_out(long_turn, codec)
    assert left is not None and left.size > 20_000 and left.pairs >= len(pairs)

    args = (str(path), "--adapter", "driver-openai-chat-reference", "--format", "json")
    code, out, err = run_cli("long turn", "run", *args)
    assert code == 0, (out, err)
    report = json.loads(out)
    assert report["notes"] == [
        f"long (openai-chat): a turn of 0.0 MB runs each quirk alone; its pairs of quirks "
        f"(up to {left.pairs}) run only for turns up to 0.01 MB: name two quirks to run that "
        "pair (--quirks A,B; --harness-quirks=A,B under pytest)"
    ]
    status = {
        f"{r['scenario']}[{r['case']}]" if "case" in r else r["scenario"]: r
        for r in report["results"]
    }
    assert len(status) == len(alone)
    passed = {case for case, r in status.items() if r["status"] == "pass"}
    skipped = {case: r["skip_reason"] for case, r in status.items() if r["status"] == "skip"}
    assert passed | set(skipped) == set(status) and set(singles) <= passed
    as_written = [case for case, why in skipped.items() if "stream as written" in why]
    assert as_written and set(as_written).isdisjoint(singles)
    assert skipped["long[openai-chat+ascii_escapes]"] == (
        "ascii_escapes leaves this turn's openai-chat stream as written, which the case long "
        "runs (a long turn's cases are told apart as they run)"
    )
    # one pair, asked for, runs
    first = pairs[0].quirks
    args = args[:-2]
    code, out, err = run_cli("long turn", "run", *args, "--quirks", ",".join(first))
    assert code == 0 and f"long[openai-chat+{'+'.join(first)}]" in out and not err, (out, err)
    assert "1 scenarios: 1 passed" in out


def test_finding_a_long_turn_s_cases_encodes_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling a long turn's quirk cases apart beforehand encoded it once per quirk, then again
    as each case ran: a third of a run of 50 MB of arguments. Its cases are found with one
    encoding now, and each case's replay, which encodes it anyway, is where it is told apart."""
    codec = dialects()["openai-chat"]
    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 10_000)
    scenario = load_scenario(long_call(tmp_path))
    assert isinstance(scenario, DriverScenario)
    encoded: list[tuple[str, ...]] = []
    real = type(codec).encode

    def counted(self: Any, turn: Any, quirks: Any = ()) -> Any:
        encoded.append(tuple(quirks))
        return real(self, turn, quirks)

    monkeypatch.setattr(type(codec), "encode", counted)
    cases = driver_cases(scenario, codec)
    assert len(cases) > 20 and encoded == [()], encoded


def test_a_long_turn_s_case_is_hashed_only_when_its_stream_is_as_long_as_the_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each quirk case of a long turn is told from the stream as written as it runs: hashing
    every case's fresh text was a tenth of a run of 50 MB of arguments, and a quirk that
    changes the stream almost always changes its chunks or bytes."""
    from harness.model.driver import WireChunk

    written = [WireChunk("data: é\n\n", 0), WireChunk("data: [DONE]\n\n", 1)]
    _, size, count = cases_module._by_event(written)
    key = (count, size, hash(tuple(cases_module._by_event(written)[0].items())))
    hashed = calls_to(monkeypatch, cases_module, "_by_event")
    assert not cases_module.same_stream([*written, WireChunk(": ping\n\n", 1)], key)
    assert not cases_module.same_stream([WireChunk("data: e\n\n", 0), written[1]], key)
    assert not hashed  # a byte fewer: "é" is two
    assert not cases_module.same_stream([WireChunk("data: \u00e8\n\n", 0), written[1]], key)
    assert cases_module.same_stream(list(written), key)
    assert len(hashed) == 2


def test_gemini_streams_long_arguments_without_reading_them_a_character_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``streamed_args`` cut every string argument at its fragments' ends one character at a
    time: 20 s for 50 MB of arguments. Its plain stretches are cut at the ends now, and only a
    character with an escape of its own is looked at alone."""
    from harness.codecs import dialects, gemini

    scenario = _large_turn(200_000)
    codec = dialects()["gemini-sse"]
    before = codec.encode(scenario.turn, ("streamed_args",))
    looked_at = calls_to(monkeypatch, gemini, "_escaped")
    assert codec.encode(scenario.turn, ("streamed_args",)) == before
    assert len(before) > 20 and not looked_at  # the arguments are plain words


def _runs_one_character_at_a_time(leaf: str, end: int, bounds: list[int]) -> list[tuple[str, int]]:
    """What ``gemini._runs`` gives, found as it once was (the model it must match)."""
    import bisect

    from harness.codecs.gemini import _escaped

    out: list[tuple[str, int]] = []
    where, run, run_end = None, "", end
    for char in leaf:
        end += _escaped(char)
        here = min(bisect.bisect_left(bounds, end), len(bounds) - 1)
        if here != where and run:
            out.append((run, run_end))
            run = ""
        where, run_end, run = here, end, run + char
    return [*out, (run, run_end)] if run else out


@given(
    leaf=st.text(alphabet=st.sampled_from('ab "\\\n\té\U0001f600\ud800~'), max_size=40),
    start=st.integers(0, 10),
    bounds=st.lists(st.integers(0, 90), min_size=1, max_size=6).map(sorted),
)
def test_gemini_cuts_a_string_argument_at_its_fragments_as_one_character_at_a_time_did(
    leaf: str, start: int, bounds: list[int]
) -> None:
    from harness.codecs.gemini import _runs

    assert list(_runs(leaf, start, bounds)) == _runs_one_character_at_a_time(leaf, start, bounds)


def _cut_value_one_character_at_a_time(text: str) -> Any:
    """What ``gemini._cut_value`` gives, found as it once was (the model it must match)."""
    from harness.codecs.gemini import _strict_loads

    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    if escaped:
        return None
    try:
        value = _strict_loads(text + ('"' if in_string else "") + "".join(reversed(closers)))
    except (ValueError, RecursionError):
        return None
    return (value, in_string) if isinstance(value, dict) else None


@given(
    text=st.one_of(
        st.tuples(_JSON, st.booleans(), st.integers(0, 200)).map(
            lambda t: json.dumps(t[0], ensure_ascii=t[1])[: t[2]]
        ),
        st.text(alphabet='{}[]"\\ab:,1 \n', max_size=20),
    )
)
def test_gemini_reads_a_cut_argument_text_as_one_character_at_a_time_did(text: str) -> None:
    from harness.codecs.gemini import _cut_value

    assert _cut_value(text) == _cut_value_one_character_at_a_time(text)


def test_the_gemini_reference_joins_a_streamed_string_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A string argument streamed in 1,000 entries was copied whole at each (quadratic: 10 s of
    system time for 50 MB); its pieces are joined onto it once, when it closes or is read."""
    from harness.adapters.driver import gemini

    writes: list[object] = []
    real = gemini.Call.set

    def counted(self: Any, keys: Any, value: Any, append: bool = False) -> None:
        writes.append(keys)
        real(self, keys, value, append)

    monkeypatch.setattr(gemini.Call, "set", counted)
    call = gemini.Call("c1", "w")
    call.feed({"jsonPath": "$.n", "numberValue": 1})
    for _ in range(1_000):
        call.feed({"jsonPath": "$.content", "stringValue": "abc", "willContinue": True})
    assert call.arguments(cut=True) == '{"n": 1, "content": "' + "abc" * 1_000
    call.feed({"jsonPath": "$.content", "stringValue": "!"})
    assert json.loads(call.arguments(cut=False)) == {"n": 1, "content": "abc" * 1_000 + "!"}
    assert len(writes) <= 4, len(writes)


@given(
    payload=_JSON,
    quirks=st.sets(st.sampled_from(("crlf", "lone_cr", "ascii_escapes"))),
    event=st.none() | st.sampled_from(("ping", "response.output_text.delta")),
    padded=st.booleans(),
)
def test_an_event_written_in_one_piece_is_the_event_written_line_by_line(
    payload: Any, quirks: set[str], event: str | None, padded: bool
) -> None:
    """``sse_data`` writes an event as one text; it is what the codecs wrote before, a line at
    a time and with the line ends replaced after."""
    from harness.codecs import text as text_module

    separators, pad = ((" , ", " : "), "  ") if padded else ((",", ":"), "")
    long = text_module.LONG
    text_module.LONG = 3
    try:
        data = json.dumps(payload, separators=separators, ensure_ascii="ascii_escapes" in quirks)
        lines = ("" if event is None else f"event: {event}\n") + f"data: {pad}{data}{pad}\n\n"
        expected = text_module.line_ends(lines, quirks)
        got = text_module.sse_data(payload, quirks, event=event, separators=separators, pad=pad)
        assert got == expected
    finally:
        text_module.LONG = long


def test_responses_joins_a_finished_text_once_for_every_event_that_repeats_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Responses stream repeats a finished text in three events and the terminal one; each
    was a new copy of it, joined from its deltas again (and hashed again to find its escape)."""
    from harness.codecs import text as text_module

    scenario = _large_turn(200_000)
    codec = dialects()["openai-responses"]
    before = codec.encode(scenario.turn, ())
    texts: dict[int, int] = {}  # id of each long text escaped -> its length
    real = text_module._escaped

    def counted(text: str, ensure_ascii: bool) -> str:
        if len(text) >= 100_000:
            texts[id(text)] = len(text)
        return real(text, ensure_ascii)

    monkeypatch.setattr(text_module, "_escaped", counted)
    chunks = codec.encode(scenario.turn, ())
    assert chunks == before
    # the whole text, and the whole arguments: one object each
    assert len(texts) == len(set(texts.values())) == 2


def test_a_long_event_is_read_with_one_copy_of_its_data() -> None:
    """The SSE reader copied a line, then the value after its colon, then that without its
    space: three copies of a 50 MB event's data where one will do."""
    import tracemalloc

    from harness.wire import parse_sse

    size = 8_000_000
    text = f"event: big\ndata: {'x' * size}\n\n"
    tracemalloc.start()
    try:
        (event,) = parse_sse(text, source="big")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(event.data) == size and event.event == "big"
    assert peak < 1.5 * size  # the value, and no other copy of it


def test_gemini_parses_long_arguments_once_for_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case's encoding joined a long call's fragments and parsed the arguments again to
    write them whole (most of encoding 50 MB of arguments once pairs were gone)."""
    from harness.codecs import gemini

    scenario = _large_turn(200_000)
    codec = dialects()["gemini-sse"]
    quirks = [q for q in codec.quirks if q != "streamed_args"][:3]
    before = [codec.encode(scenario.turn, (q,)) for q in quirks]
    parsed: list[int] = []
    real = json.loads

    def counted(text: Any, **options: Any) -> Any:
        if len(text) >= 100_000:
            parsed.append(len(text))
        return real(text, **options)

    gemini._whole_args.cache_clear()
    monkeypatch.setattr(json, "loads", counted)
    assert [codec.encode(scenario.turn, (q,)) for q in quirks] == before
    assert len(parsed) == 1


def test_a_run_holds_one_case_s_outputs_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``harness run`` kept a passed case's stream and outputs while the next case ran (its
    loop held the last result): a 250 MB Responses case was held twice, over 1 GB."""
    alive = driver_runs_held(monkeypatch)  # earlier cases held as each starts
    monkeypatch.setattr(cases_module, "PAIRS_UP_TO", 1_000)  # single quirks: a few cases
    path = long_call(tmp_path, 2_000)
    args = ("run", str(path), "--adapter", "driver-openai-chat-reference")
    code, out, err = run_cli("one case at a time", *args)
    assert code == 0 and "passed" in out, (out, err)
    assert len(alive) > 5 and not any(alive), alive
