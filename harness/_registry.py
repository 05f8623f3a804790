"""The one shape of every table that code registers into: rules, codecs, session steps, mutants.

A name is registered once (a second registration is a ``UsageError`` naming both), and what is
registered inside ``scoped()`` is forgotten when it ends, so a test or a ``conftest.py`` fixture
can add a rule or a codec without it leaking into the next test:

>>> from harness._registry import Registry
>>> shapes = Registry[int]("shape")
>>> shapes.add("circle", 1)
1
>>> with Registry.scoped():
...     shapes.add("square", 4)
...     sorted(shapes)
4
['circle', 'square']
>>> sorted(shapes)
['circle']
>>> shapes.add("circle", 2)
Traceback (most recent call last):
...
harness._errors.UsageError: a shape named 'circle' is already registered
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import ClassVar, Generic, TypeVar

from harness._errors import UsageError

_V = TypeVar("_V")


class Registry(dict[str, _V], Generic[_V]):
    """A table of registered things by name: a dict, with ``add`` refusing a name twice."""

    #: every registry made, for ``scoped``
    _all: ClassVar[list[Registry[object]]] = []

    def __init__(self, what: str, *, hint: Callable[[str, _V], str] | None = None) -> None:
        super().__init__()
        #: what one entry is, for messages ("rule", "codec", "session step")
        self.what = what
        #: a sentence added to the refusal of a name known already (how to go on)
        self._hint = hint
        Registry._all.append(self)  # type: ignore[arg-type]  # a registry of anything

    def add(self, name: str, value: _V) -> _V:
        """Register ``value`` as ``name``; a name registered already is a ``UsageError``."""
        if name in self:
            hint = f"; {self._hint(name, self[name])}" if self._hint else ""
            raise UsageError(f"a {self.what} named {name!r} is already registered{hint}")
        self[name] = value
        return value

    def remove(self, name: str) -> None:
        if name not in self:
            names = ", ".join(self) or "none"
            raise UsageError(f"no {self.what} named {name!r} was registered (registered: {names})")
        del self[name]

    @staticmethod
    @contextlib.contextmanager
    def scoped() -> Iterator[None]:
        """Every registry as it is now, again when the block ends, whatever was registered or
        removed inside it (also when it raises)."""
        saved = [(registry, dict(registry)) for registry in Registry._all]
        try:
            yield
        finally:
            for registry, entries in saved:
                registry.clear()
                registry.update(entries)
