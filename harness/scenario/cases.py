"""The cases a driver scenario runs as: the quirk cross product.

A scenario written once runs in every dialect that can carry it, as its own quirks ask (the base
case), then once more under each other quirk of the dialect that changes what the driver reads,
and, for a scenario that asks for no quirk itself, under each pair of quirks that rework the same
events of the turn (``driver_cases`` says which pairs, and why only those; a turn longer than
``PAIRS_UP_TO`` runs single quirks only, ``pairs_left_out`` says how many pairs that left, and
its cases are told from the stream as written as they run, not beforehand). Each
case is a ``DriverScenario`` named ``id[dialect+quirk]``; a case under a quirk only gateways send
is tagged ``gateway``, as a written scenario with it is.

A recorded stream (``wire:``) is fed as it was recorded and has no other case.
"""

from __future__ import annotations

import dataclasses
import itertools
import weakref
from collections.abc import Sequence

from harness.codecs import Codec
from harness.model.driver import WireChunk
from harness.scenario.types import DriverScenario, Scenario

#: the word a quirk's description starts its senders with when no first-party server sends it
GATEWAY_ONLY = "gateway-only"
GATEWAY_TAG = "gateway"

#: which cases to run: every one, only the scenarios as written, or the one case adding these quirks
Selection = str | tuple[str, ...]
ALL, NONE = "all", "none"


def first_party(scenario: Scenario) -> bool:
    """A shape first-party servers send: the scenario (or quirk case) is not tagged ``gateway``."""
    return GATEWAY_TAG not in scenario.tags


def gateway_only(codec: Codec, quirk: str) -> bool:
    """Only gateways, proxies and other vendors' compatible servers send ``quirk``."""
    return GATEWAY_ONLY in codec.quirks.get(quirk, "")


#: the longest stream, in bytes of the scenario as written, whose cases include pairs of quirks.
#: Each case is a stream of its own, which the driver reads whole and the harness encodes and
#: checks: the cases times the work of one. A pair breaks a driver by how its two quirks rework
#: the same events, which a turn of any length shows; a long turn's length is the single-quirk
#: cases' to try. Over this, a turn of 50 MB of arguments ran 161 cases in 83 s of CPU; its 27
#: single-quirk cases 12 s, and 9 s once they were no longer encoded beforehand to be told
#: apart (``_long_turn``); a turn of 700 KB of arguments, with every pair: 161 cases, 7 s.
PAIRS_UP_TO = 1_000_000


@dataclasses.dataclass(frozen=True)
class PairsLeftOut:
    """A turn too long for pairs of quirks: how long, and how many pairs its cases leave out
    (each pair of the quirks it runs alone: at most this many), and ``PAIRS_UP_TO`` as it
    was."""

    size: int
    pairs: int
    limit: int


#: scenario -> (codec's id, pairs) -> (the codec, its cases after the first, the pairs a long
#: turn left out): every adapter of
#: a dialect runs the same cases, and finding them encodes the turn under each quirk. A codec
#: need not be hashable (the one kept is the one asked about); the first case, the scenario
#: itself, is not kept, or the scenario would never leave the cache. None: no case.
_CASES: weakref.WeakKeyDictionary[
    DriverScenario,
    dict[
        tuple[int, bool],
        tuple[Codec, tuple[DriverScenario, ...] | None, PairsLeftOut | None],
    ],
] = weakref.WeakKeyDictionary()


def driver_cases(
    scenario: DriverScenario, codec: Codec, *, pairs: bool = True
) -> tuple[DriverScenario, ...]:
    """The base case, then every single-quirk case, then every sensible pair, in the codec's
    order of quirks. A quirk that leaves the stream as it is makes no case (in a turn longer
    than ``PAIRS_UP_TO``, a case its replay skips: ``_long_turn``). A pair is sensible
    when both quirks change the same events of the turn and neither changes every event: one
    that does (line ends, spacing, an extra field on every event) meets every other quirk
    already in its single case, while two that rework the same events can break a driver only
    together. No pair for a turn whose stream is longer than ``PAIRS_UP_TO``. Empty when the
    codec cannot carry the scenario at all (the replay of the scenario as written then says
    why). Found once per scenario and codec (codecs are deterministic)."""
    return _found(scenario, codec, pairs)[0]


def pairs_left_out(scenario: DriverScenario, codec: Codec) -> PairsLeftOut | None:
    """The pairs of quirks ``driver_cases`` leaves out of a turn longer than ``PAIRS_UP_TO``;
    None when it leaves none out."""
    return _found(scenario, codec, True)[1]


def _found(
    scenario: DriverScenario, codec: Codec, pairs: bool
) -> tuple[tuple[DriverScenario, ...], PairsLeftOut | None]:
    known = _CASES.setdefault(scenario, {})
    found = known.get((id(codec), pairs))
    if found is None or found[0] is not codec:
        cases, left_out = _driver_cases(scenario, codec, pairs)
        found = known[(id(codec), pairs)] = (codec, cases[1:] if cases else None, left_out)
    return () if found[1] is None else (scenario, *found[1]), found[2]


def _carried(scenario: DriverScenario, codec: Codec) -> bool:
    """The codec carries the scenario as written (its base case)."""
    if scenario.dialects and codec.name not in scenario.dialects:
        return False
    return bool(scenario.raw_wire) or _expressible(scenario, codec, ())


def _driver_cases(
    scenario: DriverScenario, codec: Codec, pairs: bool
) -> tuple[tuple[DriverScenario, ...], PairsLeftOut | None]:
    if not _carried(scenario, codec):
        return (), None
    if scenario.raw_wire:
        return (scenario,), None

    def stream(added: Sequence[str]) -> dict[int, int]:
        return _by_event(codec.encode(scenario.turn, (*scenario.quirks, *added)))[0]

    out = [scenario]
    base, length, count = _by_event(codec.encode(scenario.turn, scenario.quirks))
    if length > PAIRS_UP_TO:
        return _long_turn(scenario, codec, (count, length, _digest(base)), pairs)
    streams = [base]  # no two cases feed the driver the same stream
    changed: dict[str, frozenset[int]] = {}  # quirk -> the events whose chunks it changes
    for quirk in codec.quirks:
        if quirk in scenario.quirks or not _expressible(scenario, codec, (quirk,)):
            continue
        seen = stream((quirk,))
        if seen not in streams:
            streams.append(seen)
            changed[quirk] = frozenset(
                o for o in base.keys() | seen.keys() if base.get(o) != seen.get(o)
            )
            out.append(_case(scenario, codec, (quirk,)))
    if not pairs or scenario.quirks:
        return tuple(out), None
    everything = frozenset(base)
    sensible = [
        (a, b)
        for a, b in itertools.combinations(changed, 2)
        if not changed[a] >= everything and not changed[b] >= everything and changed[a] & changed[b]
    ]
    for a, b in sensible:
        if _expressible(scenario, codec, (a, b)) and (seen := stream((a, b))) not in streams:
            streams.append(seen)
            out.append(_case(scenario, codec, (a, b)))
    return tuple(out), None


def _long_turn(
    scenario: DriverScenario, codec: Codec, written: tuple[int, int, int], pairs: bool
) -> tuple[tuple[DriverScenario, ...], PairsLeftOut | None]:
    """The cases of a turn longer than ``PAIRS_UP_TO``: the scenario, then each quirk alone,
    none of them encoded here. Telling them apart beforehand encoded the turn once per quirk
    (32 times for 50 MB of arguments: a third of the run), then again as each case ran; so
    each case carries the stream as written (``written``: its chunks, bytes and digest), and its
    replay, which encodes it anyway, skips it when the quirk leaves that stream as it is
    (``same_stream``). Two quirks that rework this turn alike both run. The pairs left out are
    counted without knowing which events each quirk changes: every pair of the single quirks,
    at most."""
    out = [scenario]
    out.extend(
        _case(scenario, codec, (quirk,), written)
        for quirk in codec.quirks
        if quirk not in scenario.quirks and _expressible(scenario, codec, (quirk,))
    )
    alone = len(out) - 1
    left = alone * (alone - 1) // 2 if pairs and not scenario.quirks else 0
    return tuple(out), PairsLeftOut(written[1], left, PAIRS_UP_TO) if left else None


def _by_event(chunks: Sequence[WireChunk]) -> tuple[dict[int, int], int, int]:
    """A digest of the chunks of each event of the turn, the stream's bytes and chunks: two
    cases are told apart by these, so that finding them holds one encoding at a time (a turn
    can be tens of megabytes). Python's own hash of each chunk's text, folded with its length
    into its event's: it reads the text where it is, with no encoded copy, and hashing a copy
    with SHA-1 was half of finding the cases of a large turn. 64 bits that tell streams apart,
    not a defence: two streams made to collide would lose a case, no more."""
    size = 0
    by_event: dict[int, int] = {}
    for chunk in chunks:
        data = chunk.data
        length = _bytes(data)
        by_event[chunk.origin] = hash((by_event.get(chunk.origin), length, data))
        size += length
    return by_event, size, len(chunks)


def _digest(by_event: dict[int, int]) -> int:
    """One digest of a whole stream, of its events' (``_by_event``)."""
    return hash(tuple(by_event.items()))


def _bytes(data: str) -> int:
    return len(data) if data.isascii() else len(data.encode("utf-8", "surrogatepass"))


def same_stream(chunks: Sequence[WireChunk], written: tuple[int, int, int]) -> bool:
    """These chunks are the stream as written that a long turn's quirk case carries
    (``DriverScenario.written_stream``: its chunks, bytes and digest). Counted first, hashed
    only when the counts agree: a quirk that changes the stream almost always changes them, and
    hashing every case's fresh text was a tenth of a run of 50 MB of arguments."""
    count, size, digest = written
    if len(chunks) != count or sum(_bytes(chunk.data) for chunk in chunks) != size:
        return False
    return _digest(_by_event(chunks)[0]) == digest


def select_cases(
    scenario: DriverScenario, codec: Codec, selection: Selection = ALL
) -> tuple[DriverScenario, ...]:
    """The cases ``selection`` asks for: ``"all"``, ``"none"`` (the scenario as written), or a
    tuple of quirks: the one case adding them (none if the codec cannot carry it). An unknown
    quirk is a ``ValueError`` naming the codec's quirks."""
    if selection == ALL:
        return driver_cases(scenario, codec)
    if selection == NONE or not selection:
        return (scenario,) if _carried(scenario, codec) else ()
    unknown = [q for q in selection if q not in codec.quirks]
    if unknown:
        raise ValueError(
            f"{codec.name} has no quirk {', '.join(map(repr, unknown))} "
            f"(its quirks: {', '.join(codec.quirks) or 'none'})"
        )
    added = tuple(q for q in selection if q not in scenario.quirks)
    if scenario.raw_wire or not _carried(scenario, codec):
        return ()
    if not added:
        return (scenario,)
    return (_case(scenario, codec, added),) if _expressible(scenario, codec, added) else ()


def _expressible(scenario: DriverScenario, codec: Codec, added: Sequence[str]) -> bool:
    """The codec carries the turn with these quirks, and the stream is still long enough for the
    scenario's cancellation (a quirk that joins chunks can make it shorter)."""
    quirks = (*scenario.quirks, *added)
    if codec.can_express(scenario.turn, quirks) is not None:
        return False
    cancel = scenario.cancel_after_reads
    return cancel is None or cancel < len(codec.encode(scenario.turn, quirks))


def _case(
    scenario: DriverScenario,
    codec: Codec,
    added: Sequence[str],
    written: tuple[int, int, int] | None = None,
) -> DriverScenario:
    tags = scenario.tags
    if GATEWAY_TAG not in tags and any(gateway_only(codec, q) for q in added):
        tags = (*tags, GATEWAY_TAG)
    return dataclasses.replace(
        scenario,
        quirks=(*scenario.quirks, *added),
        variant="+".join((codec.name, *added)),
        tags=tags,
        written_stream=written,
    )
