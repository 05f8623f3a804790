"""What a session codec is: a UI protocol as a dialect of the session layer.

A driver codec (``harness.codecs.base.Codec``) renders a canonical turn into a provider's wire
stream. A session codec renders a canonical session trace into the events a UI protocol's
consumer reads (AG-UI events, the AI SDK's UI message stream chunks), and maps what that
consumer shows, in the protocol's own terms (AG-UI messages, UI messages with their parts),
back to the notifications and transcript the session rules read::

    canonical trace --project--> the trace as the protocol carries it (one event for one)
                    --encode---> the protocol's events, fed to the consumer one by one
    the consumer's view --decode--> notifications and transcript, checked by the rules

Each protocol has a rule profile: which session rules apply to it and what each one means
there (``RuleUse``), and the facts of the protocol a consumer must know, with their sources
(``quirks``). A scenario the protocol cannot carry is skipped with the reason
(``SessionCodec.can_express``), never passed.

Real producers of a protocol do not all send the same shapes for the same thing: one sends a
text message as ``TEXT_MESSAGE_CHUNK`` events, another as START/CONTENT/END; one streams a
tool's input, another sends it whole. A codec's *producer variants* (``variants``: name -> one
sentence with its source) are those shapes, which a consumer must read alike: its encoder
applies one when asked (``encoder(trace, variant)``), and the replayer runs a session scenario
once more under each variant that changes what the consumer is fed, as the case
``SCENARIO[VARIANT]`` (``harness.replay.dialects``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from harness.model import session as ev
from harness.model.observation import Notification, Transcript


class CannotExpress(Exception):
    """Raised by an encoder for an event its protocol cannot carry; the message says why."""


@dataclass(frozen=True, slots=True)
class RuleUse:
    """How one session rule reads in a protocol: whether it applies, and what it means there
    (or why it does not apply)."""

    applies: bool
    statement: str


class SessionEncoder(Protocol):
    """One replay's encoding: stateful, made afresh for every replay of a scenario."""

    def encode(self, event: ev.SessionEvent) -> Sequence[Mapping[str, Any]]:
        """The protocol events that carry ``event``, in order (none for an event the protocol
        has no word for). ``CannotExpress`` for one it cannot carry at all."""

    def decode(self, view: Any) -> tuple[tuple[Notification, ...], Transcript]:
        """What the consumer's view (the protocol's own observation) shows, as the session
        rules read it. ``harness.model.observation.MalformedObservation`` for a view that is
        not the protocol's shape."""


class SessionCodec(Protocol):
    """A UI protocol as a session dialect. Register it with ``register_session_codec``; an
    adapter that says ``session_dialect = NAME`` is then fed the protocol's events."""

    @property
    def name(self) -> str:
        """The dialect's name, what an adapter's ``session_dialect`` says."""

    @property
    def profile(self) -> Mapping[str, RuleUse]:
        """Every session rule's use in this protocol, by rule id."""

    @property
    def quirks(self) -> Mapping[str, str]:
        """Facts of the protocol a consumer must know, each a sentence with its source."""

    def can_express(self, trace: Sequence[ev.SessionEvent]) -> str | None:
        """None, or one sentence saying why the protocol cannot carry the (projected) trace."""

    def project(self, event: ev.SessionEvent) -> ev.SessionEvent:
        """The event as the protocol carries it, in canonical terms (the event itself when the
        protocol carries all of it): the rules' expectations are derived from the projected
        trace."""

    def encoder(self, trace: Sequence[ev.SessionEvent]) -> SessionEncoder:
        """A fresh encoder for one replay of the (projected) trace. A codec with producer
        variants (a ``variants`` mapping: name -> a sentence with its source; optional) takes
        the variant to send as a second argument, ``encoder(trace, variant)``."""


def producer_variants(codec: SessionCodec) -> Mapping[str, str]:
    """The codec's producer variants (none for a codec that declares no ``variants``)."""
    found = getattr(codec, "variants", None)
    return found if isinstance(found, Mapping) else {}


def encoder_for(
    codec: SessionCodec, trace: Sequence[ev.SessionEvent], variant: str = ""
) -> SessionEncoder:
    """The codec's encoder for one replay, under ``variant`` when one is given (a codec without
    variants is asked as it always was)."""
    if not variant:
        return codec.encoder(trace)
    return codec.encoder(trace, variant)  # type: ignore[call-arg]


def dry_run(codec: SessionCodec, trace: Sequence[ev.SessionEvent]) -> str | None:
    """Why the codec's encoder cannot carry the trace, found by encoding all of it; None when
    it can. What ``can_express`` of a codec whose limits show only while encoding returns."""
    encoder = codec.encoder(trace)
    for event in trace:
        if isinstance(event, ev.Checkpoint):
            continue  # never delivered
        try:
            encoder.encode(event)
        except CannotExpress as exc:
            return str(exc)
    return None


def fed_events(
    codec: SessionCodec, trace: Sequence[ev.SessionEvent], variant: str = ""
) -> list[list[Any]]:
    """What the consumer is fed for each delivered event of the (projected) trace, under
    ``variant``: two variants feed the consumer the same when these are equal."""
    encoder = encoder_for(codec, trace, variant)
    return [list(encoder.encode(e)) for e in trace if not isinstance(e, ev.Checkpoint)]
