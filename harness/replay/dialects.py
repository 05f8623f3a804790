"""A session scenario in a UI protocol: the case an adapter with a ``session_dialect`` replays.

The case is the scenario's trace as the protocol carries it (``SessionCodec.project``, one event
for one, so every index and origin stays), or the reason the protocol cannot carry it, made
once per scenario and dialect. Like a variation's case, it does not carry the scenario's pinned
``expect`` entries: they were written for the canonical trace.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref

from harness._errors import UsageError
from harness.adapters.registry import AdapterInfo
from harness.codecs.session.base import SessionCodec
from harness.codecs.session.registry import session_codec
from harness.scenario import SessionScenario

_CASES: weakref.WeakKeyDictionary[SessionScenario, dict[str, SessionScenario | str]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()


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
