"""What the library tests share to run an adapter: a driver scenario replayed as written, and an
adapter driven over a body one SSE event per read, each output with the reads made when it came
out."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from harness.adapters.registry import resolve_adapter
from harness.replay import replay
from harness.scenario import load_scenario

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"


def replayed(name: str, adapter: str) -> tuple[str, set[str]]:
    """The status of the driver scenario ``name`` replayed through ``adapter`` (its factory's
    dotted path), and the rules it broke."""
    result = replay(load_scenario(DRIVER / f"{name}.yaml"), resolve_adapter(adapter))
    return result.status, {v.rule for v in result.violations}


def driven_by_reads(reference: str, data: bytes) -> list[tuple[Any, int]]:
    """What the adapter ``reference`` names yields over ``data`` served one SSE event per read,
    each output with the reads made when it came out (an adapter whose ``drive`` is async is
    given the reads asynchronously)."""
    adapter: Any = resolve_adapter(reference).factory()
    reads = 0

    def counted() -> Iterator[bytes]:
        nonlocal reads
        for event in data.split(b"\n\n")[:-1]:
            reads += 1
            yield event + b"\n\n"

    if not inspect.isasyncgenfunction(adapter.drive):
        return [(output, reads) for output in adapter.drive(counted())]

    async def counted_async() -> AsyncIterator[bytes]:
        for event in counted():
            yield event

    async def run() -> list[tuple[Any, int]]:
        return [(output, reads) async for output in adapter.drive(counted_async())]

    return asyncio.run(run())
