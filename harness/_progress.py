"""Progress of a long command on the terminal: one line rewritten in place, then cleared.

Only where the output is a terminal: piped or redirected output, a CI log, gets none of it.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO


class TerminalProgress:
    """``with TerminalProgress() as progress: progress.update("scenario 3/118")`` shows
    ``scenario 3/118  1.2s`` on the terminal, at most ten times a second, and clears it when
    the block ends, so what is printed next starts on a clean line."""

    def __init__(self, stream: TextIO | None = None, *, interval: float = 0.1) -> None:
        self.stream = sys.stdout if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.shown = bool(isatty and isatty())
        self.interval = interval
        self.started = time.monotonic()
        self._last: float | None = None

    def update(self, text: str) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        if self._last is not None and now - self._last < self.interval:
            return
        self._last = now
        self.stream.write(f"\r\033[K{text}  {now - self.started:.1f}s")
        self.stream.flush()

    def clear(self) -> None:
        if self.shown and self._last is not None:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._last = None

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.clear()
