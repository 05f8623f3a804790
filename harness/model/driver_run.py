"""The run record of the driver layer: what one driver did with one encoded turn.

The driver replay (``harness.replay.driver``) makes a ``DriverRun`` of what it fed the driver
and what came out after which read; the driver rules (through ``harness.rules.driver_timing``)
and the reports read it. Like ``model/observation.py`` on the session side, it is an
observation, with no verdict in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness.model.driver import DriverOutput, Read, TurnFacts

#: When a driver passes a tool call on, as its adapter declares it (``emits_calls``): each call
#: as soon as it is complete, or all of a model message's calls when the message ends (as
#: consumers that act on the whole message do). Each is checked strictly; the safety rules
#: (wrong, lost, merged, duplicated or corrupt calls, the turn's lifetime) hold for both.
CONTRACTS = ("per-call", "per-message")


def declared_contract(adapter: object) -> object:
    """The contract a driver adapter declares (``emits_calls``); per-call if it says nothing."""
    return getattr(adapter, "emits_calls", CONTRACTS[0])


@dataclass(frozen=True)
class DriverRun:
    """What one driver did with one encoded turn."""

    dialect: str
    #: what each read gave the driver: a whole chunk, or (``reads = "bytes"``) a slice of the
    #: body; every count below is in reads
    chunks: tuple[Read, ...]
    facts: TurnFacts
    #: each output with the number of chunks read when it came out
    outputs: tuple[tuple[DriverOutput, int], ...]
    #: chunks read in all, and whether the driver asked for more than the turn holds
    reads: int
    overread: bool
    upstream_closed: bool
    cancel_after: int | None
    cancelled: bool
    raised: str | None
    #: the driver asked for the read that was cancelled (it may end before that point)
    cancel_reached: bool = True
    #: when the driver passes calls on: one of CONTRACTS
    contract: str = "per-call"
    #: the dialect's stream goes on after the turn (an agent's stream), so reading past the
    #: turn's end waits for the next turn; otherwise the body ends with the turn
    stream_outlives_turn: bool = False
    #: each call whose later chunks carry another id: its first id -> the last one (a driver
    #: may keep either)
    later_ids: Mapping[str, str] = field(default_factory=dict)
    #: the body was cut after this many chunks (a transport fault), before the turn ended
    body_cut: int | None = None
