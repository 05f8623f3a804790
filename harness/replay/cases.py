"""The cases an adapter runs: each scenario of its layer, driver scenarios once per case of the
quirk cross product in the adapter's dialect (``harness.scenario.cases``), session scenarios once
per variation (``harness.scenario.variations``) and, for a consumer of a UI protocol, once per
producer variant of its session dialect (``harness.replay.dialects``); and one case picked by
dialect and quirks, with the exact chunks a driver reads in it (``harness serve`` serves them,
``harness show`` prints them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from harness._errors import AdapterError, UsageError
from harness.adapters.registry import AdapterInfo, adapter_dialect, declared_requests
from harness.codecs import Codec, dialects
from harness.codecs.session.base import SessionCodec, producer_variants
from harness.model.driver import WireChunk
from harness.replay.dialects import adapter_session_dialect, producer_case, producer_cases
from harness.replay.driver import DriverReplay, unasked_quirks
from harness.scenario import DriverScenario, Scenario, SessionScenario
from harness.scenario.cases import (
    ALL,
    NONE,
    Selection,
    driver_cases,
    pairs_left_out,
    select_cases,
)
from harness.scenario.variations import VARIATIONS, select_session_cases


def cases_for(
    scenarios: Iterable[Scenario],
    adapter: AdapterInfo,
    selection: Selection = ALL,
    codecs: Mapping[str, Codec] | None = None,
    variations: Selection = ALL,
    timeout: float = 10.0,
    notes: list[str] | None = None,
) -> list[Scenario]:
    """``scenarios`` with each driver scenario replaced by its cases in the adapter's dialect,
    and each session or history scenario by its variations (``scenario.variations``), a session
    scenario for a consumer of a UI protocol also by its producer variants' cases (asking an
    ``exec:`` process for its dialect within ``timeout`` seconds). A
    driver scenario the dialect cannot carry, or any when the adapter names no known dialect,
    stays as written: its replay is then a skip that says why. ``selection``: ``"all"``,
    ``"none"`` (the scenarios as written) or the quirks of the one case to run;
    ``variations`` the same for session scenarios, with variation and producer variant names
    (one producer variant at a time; an unknown name is a ``ValueError``). ``notes``, when
    given, is told of each driver scenario whose turn is too long for pairs of quirks
    (``scenario.cases.PAIRS_UP_TO``) in a run of every case."""
    known = dialects() if codecs is None else codecs
    dialect = None
    session_dialect: list[SessionCodec | None] = []  # asked once, when first needed
    unasked: frozenset[str] | None = None
    out: list[Scenario] = []
    for scenario in scenarios:
        if isinstance(scenario, SessionScenario):
            if scenario.layer == "session" and variations != NONE and not session_dialect:
                session_dialect.append(_session_dialect(adapter, timeout))
            reads = session_dialect[0] if session_dialect else None
            out.extend(_session_cases(scenario, reads, variations))
            continue
        if not isinstance(scenario, DriverScenario):
            out.append(scenario)
            continue
        if dialect is None:
            dialect = adapter_dialect(adapter) or ""
        codec = known.get(dialect)
        chosen = select_cases(scenario, codec, selection) if codec else ()
        if codec is not None and chosen and unasked is None:
            unasked = unasked_quirks(codec, declared_requests(adapter))
        if chosen and unasked:
            # a shape its server sends only when the request asks: not for this adapter
            chosen = tuple(c for c in chosen if not unasked & set(c.quirks))
        if chosen:
            out.extend(chosen)
            if notes is not None and selection == ALL and codec is not None:
                notes.extend(_long_turn(scenario, codec))
        elif (
            codec is None
            or selection in (ALL, NONE)
            or not driver_cases(scenario, codec, pairs=False)
        ):
            out.append(scenario)  # the dialect cannot carry it at all: its replay says why
        # else: the one case the selection names, which this scenario cannot carry, left out
    return out


def _long_turn(scenario: DriverScenario, codec: Codec) -> list[str]:
    left = pairs_left_out(scenario, codec)
    if left is None:
        return []
    return [
        f"{scenario.id} ({codec.name}): a turn of {left.size / 1e6:.1f} MB runs each quirk "
        f"alone; its pairs of quirks (up to {left.pairs}) run only for turns up to "
        f"{left.limit / 1e6:g} MB: name two quirks to run that pair (--quirks A,B; "
        "--harness-quirks=A,B under pytest)"
    ]


def _session_dialect(adapter: AdapterInfo, timeout: float) -> SessionCodec | None:
    try:
        return adapter_session_dialect(adapter, timeout)
    except AdapterError:
        return None  # a process that cannot say hello: each replay says so


def _session_cases(
    scenario: SessionScenario, codec: SessionCodec | None, variations: Selection
) -> tuple[SessionScenario, ...]:
    """The scenario's cases of the variations, then, for a consumer of a UI protocol, the
    cases of its dialect's producer variants (of the scenario as written; or the one case the
    selection names, a producer variant on top of the variations it names)."""
    if variations == NONE or scenario.layer != "session":
        return select_session_cases(scenario, variations)
    if variations == ALL:
        made = select_session_cases(scenario, ALL)
        return made if codec is None else (*made, *producer_cases(scenario, codec))
    named = tuple(variations)
    producers = tuple(n for n in named if n not in VARIATIONS)
    if not producers:
        return select_session_cases(scenario, named)
    if len(producers) > 1:
        raise ValueError(
            f"one producer variant at a time: {', '.join(map(repr, producers))} "
            f"are variants of what a producer sends"
        )
    if codec is None or producers[0] not in producer_variants(codec):
        return ()  # the adapter's dialect has no such variant: no case of it
    under = tuple(n for n in named if n in VARIATIONS) or NONE
    return tuple(
        case
        for base in select_session_cases(scenario, under)
        if (case := producer_case(base, codec, producers[0])) is not None
    )


def pick_case(
    scenario: DriverScenario,
    dialect: str | None,
    quirks: tuple[str, ...],
    codecs: Mapping[str, Codec],
) -> tuple[DriverScenario, Codec]:
    """The one case adding ``quirks``, in ``dialect`` or the scenario's first dialect that
    carries it, with that dialect's codec; a ``UsageError`` says why there is none."""
    where = f"{scenario.path}: {scenario.id}"
    if dialect is not None:
        codec = codecs.get(dialect)
        if codec is None:
            raise UsageError(f"no dialect {dialect!r}; the dialects are {', '.join(codecs)}")
        case = _case_in(scenario, codec, quirks)
        if isinstance(case, str):
            raise UsageError(f"{where}: {case}")
        return case, codec
    reasons = []
    for name in scenario.dialects or tuple(codecs):
        codec = codecs.get(name)
        if codec is None:
            continue
        case = _case_in(scenario, codec, quirks)
        if not isinstance(case, str):
            return case, codec
        reasons.append(case)
    raise UsageError(f"{where}: no dialect can carry it:\n  " + "\n  ".join(reasons))


def _case_in(
    scenario: DriverScenario, codec: Codec, quirks: tuple[str, ...]
) -> DriverScenario | str:
    """The one case of ``select_cases`` that adds ``quirks``, or why there is none."""
    if scenario.dialects and codec.name not in scenario.dialects:
        return f"it runs in {', '.join(scenario.dialects)}, not {codec.name}"
    if scenario.raw_wire and quirks:
        return "it is a recorded stream, served as recorded: it takes no quirks"
    try:
        cases = select_cases(scenario, codec, quirks or NONE)
    except ValueError as exc:
        return str(exc)
    if cases:
        return cases[0]
    asked = (*scenario.quirks, *quirks)
    with_quirks = f" with {', '.join(asked)}" if asked else ""
    reason = codec.can_express(scenario.turn, asked) or (
        f"its cancellation (after read {scenario.cancel_after_reads}) comes after the stream ends"
    )
    return f"the {codec.name} dialect cannot carry it{with_quirks}: {reason}"


def fed_chunks(case: DriverScenario, codec: Codec) -> tuple[WireChunk, ...]:
    """The chunks a driver that reads whole events is fed in ``case``, in order: chunk N of a
    failure message is ``fed_chunks(...)[N - 1]``; a body cut short (``transport: [cut:N]``)
    ends after chunk N."""
    chunks = DriverReplay(case, (), {codec.name: codec}).chunks(codec)
    cut = case.body_cut
    return chunks if cut is None else chunks[:cut]
