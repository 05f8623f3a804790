"""The cyclic garbage collector in a test process that has run many tests before this one."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    """In the block, a collection walks only what the block made: what existed before it is
    left out (``gc.freeze``) until the block ends. A worker's heap holds what every test it ran
    before kept (the library, cached results), and one full collection of it takes seconds on
    a loaded machine: too long for a test that collects after each step, or a bench that
    collects before each timed run."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
