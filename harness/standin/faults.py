"""Faults: the stand-in's transport misbehaving as networks and servers do.

``stall:N:SECONDS``, ``cut:N``, ``drop:N`` and ``split:N`` (``parse_fault``), with chunks
counted from 1 as ``harness run`` failures count them. ``_schedule`` turns a streamed
response's chunks and the faults into what the server writes, in order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
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
    """Close the connection after ``after`` chunks, without the terminating zero-length chunk:
    the client sees a truncated body."""

    after: int

    def __post_init__(self) -> None:
        _number(self.after, "a cut's chunk count", 0)

    def __str__(self) -> str:
        return f"cut:{self.after}"


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
_FORMS = {"stall": "stall:N:SECONDS", "cut": "cut:N", "drop": "drop:N", "split": "split:N"}


def parse_fault(text: str) -> Fault:
    """A fault from its command-line form; bad syntax is a ``UsageError`` naming the forms.

    >>> parse_fault("stall:3:0.5")
    Stall(chunk=3, seconds=0.5)
    """
    kind, *args = text.strip().split(":")
    form = _FORMS.get(kind)
    if form is None:
        raise UsageError(f"unknown fault {text!r}; the faults are {', '.join(_FORMS.values())}")
    if len(args) != form.count(":"):
        raise UsageError(f"fault {text!r} should be written {form}")
    try:
        chunk = int(args[0])
        if kind == "stall":
            return Stall(chunk, float(args[1]))
    except ValueError:
        raise UsageError(f"fault {text!r} should be written {form}, with numbers") from None
    return Cut(chunk) if kind == "cut" else Drop(chunk) if kind == "drop" else Split(chunk)


def _checked(faults: Iterable[str | Fault], longest: int) -> tuple[Fault, ...]:
    """``faults`` (each a fault or its command-line form), each checked to fall within a stream
    of ``longest`` chunks, the longest one served."""
    chosen = tuple(parse_fault(f) if isinstance(f, str) else f for f in faults)
    for fault in chosen:
        if not isinstance(fault, (Stall, Cut, Drop, Split)):
            raise UsageError(
                f"{fault!r} is not a fault; the faults are {', '.join(_FORMS.values())}"
            )
        number = fault.after if isinstance(fault, Cut) else fault.chunk
        if number > longest:
            raise UsageError(f"fault {fault}: the stream served has only {longest} chunks")
    return chosen


def _schedule(chunks: Sequence[bytes], faults: Sequence[Fault]) -> tuple[list[bytes | float], bool]:
    """What to write, in order (HTTP chunk bodies, and pauses in seconds), and whether the body
    ends properly."""
    cut = min((f.after for f in faults if isinstance(f, Cut)), default=None)
    out: list[bytes | float] = []
    for number, chunk in enumerate(chunks, start=1):
        if cut is not None and number > cut:
            break
        out.extend(float(f.seconds) for f in faults if isinstance(f, Stall) and f.chunk == number)
        if any(isinstance(f, Drop) and f.chunk == number for f in faults):
            continue
        if len(chunk) > 1 and any(isinstance(f, Split) and f.chunk == number for f in faults):
            out.extend((chunk[: len(chunk) // 2], chunk[len(chunk) // 2 :]))
        else:
            out.append(chunk)
    return out, cut is None
