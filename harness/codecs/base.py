"""What every codec is (``Codec``), and the shape check the decoders share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from harness._errors import WireError
from harness.model.driver import TurnEvent, WireChunk


class Codec(Protocol):
    """One wire dialect: how a provider streams a canonical turn (``harness.model.driver``).

    A minimal codec, for a gateway that sends one JSON object per line::

        class GatewayCodec:
            name = "gateway-ndjson"            # what a driver adapter's ``dialect`` names
            quirks = {"heartbeats": "a heartbeat line after every event"}

            def can_express(self, turn, quirks=()):
                return None                    # every turn fits

            def encode(self, turn, quirks=()):
                return tuple(WireChunk(json.dumps(...) + "\\n", i) for i, e in enumerate(turn))

            def decode(self, body, *, source):
                return tuple(...)              # the canonical events, ``line=`` set

    A codec may also say ``stream_outlives_turn = True``: its stream goes on after the turn (an
    agent's event stream rather than one response body), so a driver that reads past the turn's
    end would wait for the next turn. By default the body ends with the turn, and reading on to
    its end is how a driver finds it.

    A codec may also say ``per_message_quirks``: the quirks whose streams give no true signal
    of when a call is complete (the fragments of parallel calls interleave), so their cases are
    judged only for drivers that pass calls on per message (``emits_calls``); a per-call
    driver skips them with the reason.

    A codec whose servers may change a call's id mid-stream may offer
    ``later_ids(chunks) -> {first id: last id}`` and name the quirks that do it in
    ``changes_ids``: a driver may keep either id (the rules accept both), and the replay asks
    for them on a recorded stream or a case with one of those quirks.

    A codec may name ``reason_quirks``: quirk -> (the turn's stop reason, the one the wire
    sends instead), so that a driver reporting the reason it was sent is not judged wrong.

    A codec may name ``requested_quirks``: quirk -> the request option without which its
    servers never send that shape (Gemini's streamed function-call arguments). A case with such
    a quirk runs only for a driver adapter that declares its requests ask for the option
    (``asks_for``); for any other the shape is one its server would not send.

    A codec may also say ``content_type``: the media type of the HTTP body it writes, for
    ``harness serve`` (default ``text/event-stream``).

    Register it with ``harness.register_codec(GatewayCodec())``, or pass it to one replay with
    ``replay(scenario, adapter, codecs=[GatewayCodec()])``. One instance serves every replay,
    from worker threads too: keep an encoding's state local to the call.
    """

    @property
    def name(self) -> str:
        """The dialect's name, unique among codecs; scenarios' ``dialects:`` use it."""

    @property
    def quirks(self) -> Mapping[str, str]:
        """Quirk name -> one sentence saying which real server behaves so. A scenario's
        ``quirks:`` may name them; ``encode`` gets the scenario's whole list and ignores names
        it does not know (they belong to other dialects)."""

    def encode(
        self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        """The chunks a driver reads for this turn, in order, as the body carries them (one
        event or line each, with its framing). Each chunk's ``origin`` is the index in ``turn``
        of the event it came from; ``carries=False`` marks one that holds nothing of the turn
        (a keep-alive). Only called for a turn ``can_express`` accepted."""

    def decode(self, body: str, *, source: str) -> tuple[TurnEvent, ...]:
        """The canonical turn of a recorded body, each event's ``line`` set to where it starts
        in ``body``. Input that is not this dialect is a ``harness.wire.WireError`` naming
        ``source`` and the line."""

    def can_express(self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        """None, or one sentence saying why this dialect cannot carry the turn (with these
        quirks); the replay skips the scenario in this dialect with that reason."""


def need(value: Any, kind: type, what: str, source: str, line: int) -> Any:
    """``value`` if it is a ``kind`` (a bool is not an int), else a located ``WireError``."""
    if not isinstance(value, kind) or isinstance(value, bool):
        raise WireError(source, line, f"{what} should be {kind.__name__}, got {value!r}")
    return value


def misshapen(exc: Exception, what: str, source: str, line: int) -> WireError:
    """The located error for an event that reading it (``exc``) showed is not of the dialect's
    shape; ``what`` says so in one sentence."""
    return WireError(source, line, f"{what} ({type(exc).__name__}: {exc})")
