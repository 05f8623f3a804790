"""A session scenario in a UI protocol: the case an adapter with a ``session_dialect`` replays.

The case is the scenario's trace as the protocol carries it (``SessionCodec.project``, one event
for one, so every index and origin stays), or the reason the protocol cannot carry it, made
once per scenario and dialect. Like a variation's case, it does not carry the scenario's pinned
``expect`` entries: they were written for the canonical trace.

Real producers of a protocol send the same things in other shapes (the codec's producer
variants, ``SessionCodec.variants``: AG-UI's chunk events, an AI SDK call whose input is not
streamed, ...). A session scenario replayed for a consumer of the protocol runs once as written
and once more under each variant that changes what the consumer is fed (``producer_cases``):
the case ``SCENARIO[VARIANT]``, named, selected (``--variations VARIANT``), reproduced and
counted in causes as a variation's case is. A variant that feeds the consumer the same events
for a scenario makes no case of it.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from typing import Any

from harness._errors import UsageError
from harness.adapters.registry import AdapterInfo
from harness.codecs.session.base import SessionCodec, fed_events, producer_variants
from harness.codecs.session.registry import session_codec
from harness.model.driver_run import CONTRACTS, declared_contract
from harness.scenario import SessionScenario

_CASES: weakref.WeakKeyDictionary[SessionScenario, dict[str, SessionScenario | str]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()
#: scenario -> dialect -> its producer variants' cases (the scenario itself not kept, or it
#: would never leave the cache)
_PRODUCER_CASES: weakref.WeakKeyDictionary[
    SessionScenario, dict[str, tuple[SessionScenario, ...]]
] = weakref.WeakKeyDictionary()


def adapter_session_dialect(info: AdapterInfo, timeout: float) -> SessionCodec | None:
    """The session codec of the dialect the adapter declares (``session_dialect``, on its class,
    on its factory function, or in an exec: process's hello), or None when it declares none (it
    is fed canonical events). An unknown dialect is a ``UsageError``."""
    # asked of the factory, never of an adapter made for the asking: making one can take as
    # long as the replay's time limit allows, and only the replay's watchdog may wait for it;
    # a process is asked for its hello within the replay's time limit
    declared = getattr(info.factory, "declared", None)
    if callable(declared):
        name = declared(timeout).get("session_dialect")
    else:
        name = getattr(info.factory, "session_dialect", None)
    return session_codec(name) if isinstance(name, str) else None


def adapter_contract(info: AdapterInfo, timeout: float) -> str:
    """The contract a driver adapter declares (``emits_calls``), asked as its session dialect
    is: of an exec: process's factory, within ``timeout`` (``AdapterError`` when it cannot say
    hello); of an in-process adapter, by making one."""
    declared = getattr(info.factory, "declared", None)
    if callable(declared):
        return str(declared(timeout).get("emits_calls", CONTRACTS[0]))
    made = info.factory()
    try:
        return str(declared_contract(made))
    finally:  # whatever it holds (a client, a socket)
        close = getattr(made, "close", None)
        if callable(close):
            close()


def dialect_case(scenario: SessionScenario, codec: SessionCodec) -> SessionScenario | str:
    """The scenario as ``codec``'s protocol carries it, or why it cannot (a skip reason)."""
    with _LOCK:
        made = _CASES.setdefault(scenario, {})
        if codec.name not in made:
            made[codec.name] = _made(scenario, codec)
        return made[codec.name]


def _made(scenario: SessionScenario, codec: SessionCodec) -> SessionScenario | str:
    where = f"the {codec.name} session dialect cannot carry it: "
    if scenario.unlabelled_subsessions:
        return (
            where
            + "its sub-sessions reach the consumer unlabelled, and a UI protocol names each event's agent"
        )
    projected = scenario.trace.mapped(codec.project)
    try:
        reason = codec.can_express(projected)
    except UsageError:
        raise
    if reason is not None:
        return where + reason
    return dataclasses.replace(scenario, trace=projected, expectations=())


def producer_cases(scenario: SessionScenario, codec: SessionCodec) -> tuple[SessionScenario, ...]:
    """The scenario (as written, or a case of its variations) under each of the codec's
    producer variants that changes what the consumer is fed, in the codec's order; none when
    the protocol cannot carry it. Found once per scenario and dialect."""
    with _LOCK:
        known = _PRODUCER_CASES.setdefault(scenario, {})
        found = known.get(codec.name)
    if found is None:
        carried = dialect_case(scenario, codec)
        base = None if isinstance(carried, str) else fed_events(codec, carried.trace)
        found = tuple(
            case
            for name in producer_variants(codec)
            if (case := producer_case(scenario, codec, name, base)) is not None
        )
        with _LOCK:
            _PRODUCER_CASES[scenario][codec.name] = found
    return found


def producer_case(
    scenario: SessionScenario, codec: SessionCodec, name: str, base: list[Any] | None = None
) -> SessionScenario | None:
    """The case of the scenario under the producer variant ``name``, or None when the protocol
    cannot carry the scenario or the variant feeds its consumer what the codec's own shapes do.
    An unknown variant is a ``ValueError`` naming the codec's."""
    known = producer_variants(codec)
    if name not in known:
        raise ValueError(
            f"the {codec.name} session dialect has no producer variant {name!r} (its variants: "
            f"{', '.join(known) or 'none'})"
        )
    carried = dialect_case(scenario, codec)
    if isinstance(carried, str) or scenario.producer:
        return None
    if base is None:
        base = fed_events(codec, carried.trace)
    if fed_events(codec, carried.trace, name) == base:
        return None
    variant = f"{scenario.variant}+{name}" if scenario.variant else name
    return dataclasses.replace(scenario, variant=variant, producer=name)


def all_producer_variants() -> dict[str, str]:
    """Every producer variant of the known session dialects: name -> its dialect."""
    from harness.codecs.session.registry import session_codecs

    return {
        name: codec.name for codec in session_codecs().values() for name in producer_variants(codec)
    }
