"""Codecs: a canonical turn to a provider's wire chunks and back.

A wire chunk is the raw text of one server-sent event as the HTTP body carries it; a driver
under test reads them one by one. Each chunk remembers the canonical event it came from, so a
rule can say which event a driver was at.

Quirks are data: names a scenario lists, each a behaviour real servers have (``QUIRKS`` says
which dialect knows which).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from harness.model.driver import TurnEvent, WireChunk


class Codec(Protocol):
    name: str
    quirks: dict[str, str]

    def encode(
        self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]: ...

    def decode(self, body: str, *, source: str) -> tuple[TurnEvent, ...]: ...

    def can_express(self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        """None, or why this dialect cannot carry the turn (with these quirks)."""


def need(value: Any, kind: type, what: str, source: str, line: int) -> Any:
    """``value`` if it is a ``kind`` (a bool is not an int), else a located ``WireError``."""
    if not isinstance(value, kind) or isinstance(value, bool):
        from harness.wire import WireError

        raise WireError(source, line, f"{what} should be {kind.__name__}, got {value!r}")
    return value


def dialects() -> dict[str, Codec]:
    from harness.codecs.ag_ui import AGUICodec
    from harness.codecs.anthropic import AnthropicCodec
    from harness.codecs.gemini import GeminiArrayCodec, GeminiSSECodec
    from harness.codecs.openai_chat import OpenAIChatCodec
    from harness.codecs.openai_responses import OpenAIResponsesCodec

    codecs: tuple[Codec, ...] = (
        AnthropicCodec(),
        OpenAIChatCodec(),
        OpenAIResponsesCodec(),
        GeminiSSECodec(),
        GeminiArrayCodec(),
        AGUICodec(),
    )
    return {codec.name: codec for codec in codecs}


__all__ = ["Codec", "WireChunk", "dialects", "need"]
