"""The cases a driver scenario runs as: the quirk cross product.

A scenario written once runs in every dialect that can carry it, as its own quirks ask (the base
case), then once more under each other quirk of the dialect that changes what the driver reads,
and, for a scenario that asks for no quirk itself, under each pair of such quirks whose stream
differs from both alone. Each case is a ``DriverScenario`` named ``id[dialect+quirk]``; a case
under a quirk only gateways send is tagged ``gateway``, as a written scenario with it is.

A recorded stream (``wire:``) is fed as it was recorded and has no other case.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

from harness.codecs import Codec
from harness.scenario.types import DriverScenario

#: the word a quirk's description starts its senders with when no first-party server sends it
GATEWAY_ONLY = "gateway-only"
GATEWAY_TAG = "gateway"

#: which cases to run: every one, only the scenarios as written, or the one case adding these quirks
Selection = str | tuple[str, ...]
ALL, NONE = "all", "none"


def gateway_only(codec: Codec, quirk: str) -> bool:
    """Only gateways, proxies and other vendors' compatible servers send ``quirk``."""
    return GATEWAY_ONLY in codec.quirks.get(quirk, "")


def driver_cases(
    scenario: DriverScenario, codec: Codec, *, pairs: bool = True
) -> tuple[DriverScenario, ...]:
    """The base case, then every single-quirk case, then every pair case, in the codec's order of
    quirks. Cases whose stream is the same as one already listed are left out: they would test
    nothing new. Empty when the codec cannot carry the scenario at all (the replay of the
    scenario as written then says why)."""
    if scenario.dialects and codec.name not in scenario.dialects:
        return ()
    if scenario.raw_wire:
        return (scenario,)
    if not _expressible(scenario, codec, ()):
        return ()

    def stream(added: Sequence[str]) -> tuple[object, ...]:
        return tuple(c.data for c in codec.encode(scenario.turn, (*scenario.quirks, *added)))

    out = [scenario]
    base = stream(())
    singles: list[tuple[str, tuple[object, ...]]] = []
    for quirk in codec.quirks:
        if quirk in scenario.quirks or not _expressible(scenario, codec, (quirk,)):
            continue
        seen = stream((quirk,))
        if seen != base:
            singles.append((quirk, seen))
            out.append(_case(scenario, codec, (quirk,)))
    if pairs and not scenario.quirks:
        for (a, seen_a), (b, seen_b) in itertools.combinations(singles, 2):
            if not _expressible(scenario, codec, (a, b)):
                continue
            seen = stream((a, b))
            if seen not in (seen_a, seen_b):
                out.append(_case(scenario, codec, (a, b)))
    return tuple(out)


def select_cases(
    scenario: DriverScenario, codec: Codec, selection: Selection = ALL
) -> tuple[DriverScenario, ...]:
    """The cases ``selection`` asks for: ``"all"``, ``"none"`` (the scenario as written), or a
    tuple of quirks: the one case adding them (none if the codec cannot carry it). An unknown
    quirk is a ``ValueError`` naming the codec's quirks."""
    if selection == ALL:
        return driver_cases(scenario, codec)
    if selection == NONE or not selection:
        return driver_cases(scenario, codec, pairs=False)[:1]
    unknown = [q for q in selection if q not in codec.quirks]
    if unknown:
        raise ValueError(
            f"{codec.name} has no quirk {', '.join(map(repr, unknown))} "
            f"(its quirks: {', '.join(codec.quirks) or 'none'})"
        )
    added = tuple(q for q in selection if q not in scenario.quirks)
    if scenario.raw_wire or not driver_cases(scenario, codec, pairs=False):
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


def _case(scenario: DriverScenario, codec: Codec, added: Sequence[str]) -> DriverScenario:
    tags = scenario.tags
    if GATEWAY_TAG not in tags and any(gateway_only(codec, q) for q in added):
        tags = (*tags, GATEWAY_TAG)
    return dataclasses.replace(
        scenario,
        quirks=(*scenario.quirks, *added),
        variant="+".join((codec.name, *added)),
        tags=tags,
    )
