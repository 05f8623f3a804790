"""A session trace that keeps generator steps compact and expands them again on every pass.

A ``burst`` of a million events is a seed and a few numbers; holding its expansion would cost
hundreds of megabytes, and every reader of the trace (the checks, the ledger, the replay) reads
it front to back anyway. So the trace is a sequence of *runs*: literal events kept as a tuple,
and ``LazyRun``s that remember how to make their events. Iterating expands run after run.
Indexing stays possible (violations and reports name events by index) but costs a run's
expansion, except for an event's kind and line, which every run keeps per event.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from harness.model import session as ev

_TYPES: tuple[type[ev.SessionEvent], ...] = tuple(ev.EVENT_TYPES.values())
_CODES: dict[type[ev.SessionEvent], int] = {cls: n for n, cls in enumerate(_TYPES)}
_OTHER_MESSAGE, _RESUME = _CODES[ev.UserMessage], _CODES[ev.Resume]


class LazyRun:
    """Events a generator step expands to, made again by ``make()`` on every pass.

    ``make`` must be deterministic (a seeded generator): every pass sees the same events. One
    pass at construction counts them and keeps each one's kind (a byte an event) and the
    parents of the sub-sessions it starts.
    """

    __slots__ = ("kinds", "line", "make", "messages", "parents")

    def __init__(
        self,
        make: Callable[[], Iterator[ev.SessionEvent]],
        line: int,
        *,
        kinds: bytes | None = None,
        parents: dict[str, str | None] | None = None,
    ) -> None:
        self.make = make
        self.line = line
        #: the (session, message id) of every message the run starts, in order, when its
        #: deltas and ends name only those: the load checks the run by these, not again by
        #: its events (None: check its events)
        self.messages: tuple[tuple[str, str], ...] | None = None
        if kinds is None:
            codes = bytearray()
            found: dict[str, str | None] = {}
            codes_of, start = _CODES, _CODES[ev.SubsessionStart]
            opened, started = _CODES[ev.MessageStart], set()
            closing = (_CODES[ev.MessageDelta], _CODES[ev.MessageEnd])
            order: list[tuple[str, str]] = []
            whole = True
            for event in make():
                code = codes_of[type(event)]
                codes.append(code)
                if code == start:
                    found[event.session_id] = event.parent_session_id
                elif code == opened:
                    key = (event.session_id, event.message_id)  # type: ignore[attr-defined]
                    whole = whole and key not in started
                    started.add(key)
                    order.append(key)
                elif code in closing:
                    key = (event.session_id, event.message_id)  # type: ignore[attr-defined]
                    whole = whole and key in started
                elif code in (_OTHER_MESSAGE, _RESUME):
                    whole = False
            kinds, parents = bytes(codes), found
            if whole:
                self.messages = tuple(order)
        self.kinds = kinds
        self.parents = parents or {}

    def __len__(self) -> int:
        return len(self.kinds)

    def mapped(self, change: Callable[[ev.SessionEvent], ev.SessionEvent]) -> LazyRun:
        """The same run with every event passed through ``change`` (which keeps its kind)."""
        make = self.make
        return LazyRun(lambda: map(change, make()), self.line, kinds=self.kinds)


Run = tuple[ev.SessionEvent, ...] | LazyRun


class Trace(Sequence[ev.SessionEvent]):
    """The events of a session scenario, as literal runs and lazily expanded ones."""

    __slots__ = ("_length", "_runs", "_starts")

    def __init__(self, items: Iterable[ev.SessionEvent | LazyRun] = ()) -> None:
        runs: list[Run] = []
        literal: list[ev.SessionEvent] = []
        for item in items:
            if isinstance(item, LazyRun):
                if literal:
                    runs.append(tuple(literal))
                    literal = []
                if len(item):
                    runs.append(item)
            else:
                literal.append(item)
        if literal:
            runs.append(tuple(literal))
        self._runs = tuple(runs)
        self._starts = list(itertools.accumulate((len(r) for r in runs), initial=0))
        self._length = self._starts[-1]

    @property
    def runs(self) -> tuple[Run, ...]:
        return self._runs

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[ev.SessionEvent]:
        return itertools.chain.from_iterable(
            r.make() if isinstance(r, LazyRun) else r for r in self._runs
        )

    def batches(self, size: int = 4096) -> Iterator[tuple[ev.SessionEvent, ...]]:
        """The events in order, as tuples of at most ``size``: a literal run's slices, a lazy
        run's events made a few hundred at a time (events held longer outlive the collector's
        young generation, and a million of them made the collections of the older ones take
        as long as the replay). The replay hands them on without a layer of iterators per
        event."""
        for run in self._runs:
            if isinstance(run, LazyRun):
                made, at_once = run.make(), min(size, 256)
                while batch := tuple(itertools.islice(made, at_once)):
                    yield batch
            elif len(run) <= size:
                yield run
            else:
                for start in range(0, len(run), size):
                    yield run[start : start + size]

    @overload
    def __getitem__(self, index: int) -> ev.SessionEvent: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ev.SessionEvent, ...]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step != 1:
                return tuple(self)[index]
            if start >= stop:
                return ()
            return tuple(itertools.islice(self._iter_from(start), stop - start))
        run, offset = self._locate(index)
        if isinstance(run, LazyRun):
            return next(itertools.islice(run.make(), offset, None))
        return run[offset]

    def _iter_from(self, index: int) -> Iterator[ev.SessionEvent]:
        """The events from ``index`` on, making no run that ends before it."""
        n = bisect.bisect_right(self._starts, index) - 1
        runs = itertools.chain.from_iterable(
            r.make() if isinstance(r, LazyRun) else r for r in self._runs[n:]
        )
        return itertools.islice(runs, index - self._starts[n], None)

    def _locate(self, index: int) -> tuple[Run, int]:
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("trace index out of range")
        n = bisect.bisect_right(self._starts, index) - 1
        return self._runs[n], index - self._starts[n]

    def kind_at(self, index: int) -> str:
        """The kind of event ``index``, without expanding its run."""
        run, offset = self._locate(index)
        if isinstance(run, LazyRun):
            return _TYPES[run.kinds[offset]].kind
        return run[offset].kind

    def line_at(self, index: int) -> int:
        """The scenario line event ``index`` came from, without expanding its run."""
        run, offset = self._locate(index)
        return run.line if isinstance(run, LazyRun) else run[offset].line

    def mapped(self, change: Callable[[ev.SessionEvent], ev.SessionEvent]) -> Trace:
        """Every event passed through ``change`` (which keeps its kind), as lazily as now."""
        out = Trace()
        out._runs = tuple(
            r.mapped(change) if isinstance(r, LazyRun) else tuple(map(change, r))
            for r in self._runs
        )
        out._starts, out._length = self._starts, self._length
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Trace, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        lazy = sum(len(r) for r in self._runs if isinstance(r, LazyRun))
        return f"Trace({self._length} events, {lazy} of them expanded on demand)"
