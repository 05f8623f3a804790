"""Transport faults: a stream's transport misbehaving as networks and servers do, written as
``harness serve`` and driver scenarios (``transport:``) both write them.

``stall:N:SECONDS``, ``cut:N``, ``end:N``, ``drop:N`` and ``split:N`` (``parse_fault``), with
chunks counted from 1 as ``harness run`` failures count them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

from harness._errors import UsageError

__all__ = ["Cut", "Drop", "Fault", "Split", "Stall", "parse_fault"]


def _number(value: object, what: str, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise UsageError(f"{what} must be a whole number of at least {minimum}, got {value!r}")


@dataclass(frozen=True, slots=True)
class Stall:
    """Pause ``seconds`` before sending chunk ``chunk`` (headers and earlier chunks are out)."""

    chunk: int
    seconds: float

    def __post_init__(self) -> None:
        _number(self.chunk, "a stall's chunk", 1)
        seconds = self.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise UsageError(f"a stall's seconds must be a number, got {seconds!r}")
        if not math.isfinite(seconds) or seconds < 0:
            raise UsageError(f"a stall's seconds must be finite and not negative, got {seconds}")

    def __str__(self) -> str:
        return f"stall:{self.chunk}:{self.seconds:g}"


@dataclass(frozen=True, slots=True)
class Cut:
    """The body stops after ``after`` chunks, before the stream's own end. ``cut:N`` closes the
    connection without the terminating zero-length chunk (the client's HTTP library sees a
    truncated body); ``end:N`` (``clean``) sends the terminating chunk, as a proxy that lost its
    upstream may: the body is whole to HTTP, and only the stream's missing end event tells.
    A consumer reading the chunks in process sees the same chunks end either way."""

    after: int
    clean: bool = False

    def __post_init__(self) -> None:
        _number(self.after, "a cut's chunk count", 0)

    def __str__(self) -> str:
        return f"{'end' if self.clean else 'cut'}:{self.after}"


@dataclass(frozen=True, slots=True)
class Drop:
    """Never send chunk ``chunk``."""

    chunk: int

    def __post_init__(self) -> None:
        _number(self.chunk, "a drop's chunk", 1)

    def __str__(self) -> str:
        return f"drop:{self.chunk}"


@dataclass(frozen=True, slots=True)
class Split:
    """Send chunk ``chunk`` as two HTTP chunks cut in its middle: a boundary inside an event."""

    chunk: int

    def __post_init__(self) -> None:
        _number(self.chunk, "a split's chunk", 1)

    def __str__(self) -> str:
        return f"split:{self.chunk}"


Fault: TypeAlias = Stall | Cut | Drop | Split
FORMS = {
    "stall": "stall:N:SECONDS",
    "cut": "cut:N",
    "end": "end:N",
    "drop": "drop:N",
    "split": "split:N",
}


def parse_fault(text: str) -> Fault:
    """A fault from its command-line form; bad syntax is a ``UsageError`` naming the forms.

    >>> parse_fault("stall:3:0.5")
    Stall(chunk=3, seconds=0.5)
    """
    kind, *args = text.strip().split(":")
    form = FORMS.get(kind)
    if form is None:
        raise UsageError(f"unknown fault {text!r}; the faults are {', '.join(FORMS.values())}")
    if len(args) != form.count(":"):
        raise UsageError(f"fault {text!r} should be written {form}")
    try:
        chunk = int(args[0])
        if kind == "stall":
            return Stall(chunk, float(args[1]))
    except ValueError:
        raise UsageError(f"fault {text!r} should be written {form}, with numbers") from None
    if kind in ("cut", "end"):
        return Cut(chunk, clean=kind == "end")
    return Drop(chunk) if kind == "drop" else Split(chunk)
