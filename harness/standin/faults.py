"""Faults: the stand-in's transport misbehaving as networks and servers do.

``stall:N:SECONDS``, ``cut:N``, ``end:N``, ``drop:N`` and ``split:N`` (``parse_fault``, in
``harness.wire.faults``: driver scenarios write the same faults), with chunks counted from 1 as
``harness run`` failures count them. ``_schedule`` turns a streamed response's chunks and the
faults into what the server writes, in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness._errors import UsageError
from harness.wire.faults import FORMS, Cut, Drop, Fault, Split, Stall, parse_fault

__all__ = ["Cut", "Drop", "Fault", "Split", "Stall", "parse_fault"]


def _checked(faults: Iterable[str | Fault], longest: int) -> tuple[Fault, ...]:
    """``faults`` (each a fault or its command-line form), each checked to fall within a stream
    of ``longest`` chunks, the longest one served."""
    chosen = tuple(parse_fault(f) if isinstance(f, str) else f for f in faults)
    for fault in chosen:
        if not isinstance(fault, (Stall, Cut, Drop, Split)):
            raise UsageError(
                f"{fault!r} is not a fault; the faults are {', '.join(FORMS.values())}"
            )
        number = fault.after if isinstance(fault, Cut) else fault.chunk
        if number > longest:
            raise UsageError(f"fault {fault}: the stream served has only {longest} chunks")
    return chosen


def _schedule(chunks: Sequence[bytes], faults: Sequence[Fault]) -> tuple[list[bytes | float], bool]:
    """What to write, in order (HTTP chunk bodies, and pauses in seconds), and whether the body
    ends properly."""
    first = min((f for f in faults if isinstance(f, Cut)), key=lambda f: f.after, default=None)
    cut = first.after if first is not None else None
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
    return out, first is None or first.clean
