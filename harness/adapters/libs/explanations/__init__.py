"""What each library gets wrong, in plain words: one explanation per bug, covering every root
cause of the matrix that bug makes.

A library's module here (its name is the library's adapter module's, e.g. ``openai_chat``)
registers its explanations with ``explain``. An explanation says what the library did, what its
user sees and the upstream report where one exists, and it names the causes it covers by what
they share: the scenarios, the rules broken, the quirks that bring them out. A cause (see
``harness.results.causes``) is explained by the first of its library's explanations that covers
it, in the order they were registered, so a narrow explanation goes before a broad one.

Each explanation is reproduced without the harness by ``docs/reproductions/LIBRARY/ID.py`` (or
``ID.mjs``, run by node, for a Node.js library), a script that exits 0 when the library still
does what the explanation says. ``harness matrix
--check`` fails on a cause no explanation covers and on an explanation of an installed library
that covers no cause; ``tests/libs/test_reproductions.py`` runs the scripts and fails on an
explanation without its script, or a script without its explanation.

>>> e = Explanation(quirks=frozenset({"name_every_chunk"}), library="x", id="glued-names")
>>> e.covers("s", "strict-assembly", (("name_every_chunk",),))
True
>>> e.covers("s", "strict-assembly", ((),))
False
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: where the scripts that reproduce each explanation live: ``REPRODUCTIONS/LIBRARY/ID.py``
REPRODUCTIONS = Path("docs") / "reproductions"
#: a reproduction's file name ends as the runtime of its library wants: ``ID.py``, ``ID.mjs``
SCRIPT_SUFFIXES = {"python": ".py", "node": ".mjs"}

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Match:
    """Which causes one bug makes: each field given narrows them, all must hold."""

    #: the causes' scenarios (None: any)
    scenarios: frozenset[str] | None = None
    #: the rules the causes break (None: any)
    rules: frozenset[str] | None = None
    #: each of the cause's smallest quirk sets holds one of these (None: any, including the
    #: scenario as written)
    quirks: frozenset[str] | None = None
    #: the cause shows on the scenario as written (True), only under quirks (False), or either
    as_written: bool | None = None

    def covers(self, scenario: str, rule: str, triggers: Sequence[tuple[str, ...]]) -> bool:
        if self.scenarios is not None and scenario not in self.scenarios:
            return False
        if self.rules is not None and rule not in self.rules:
            return False
        written = () in triggers
        if self.as_written is not None and written != self.as_written:
            return False
        if self.quirks is not None:
            return not written and all(self.quirks & set(t) for t in triggers)
        return True


def _set(values: Collection[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class Explanation(Match):
    """One bug of one library, and which causes it makes: those its own fields match (see
    ``Match``), and those any of its ``alternatives`` match (one bug seen as a scenario as
    written and, elsewhere, under a quirk)."""

    library: str = ""
    #: unique within the library, lowercase words joined by hyphens: the name of its
    #: reproduction script
    id: str = ""
    #: what the library did, what its user sees, the upstream report
    text: str = ""
    alternatives: tuple[Match, ...] = ()

    @property
    def reproduction(self) -> Path:
        """The script that reproduces it, relative to the project's root: a Python script, or
        an ES module for node if its library runs on Node.js."""
        return REPRODUCTIONS / self.library / f"{self.id}{SCRIPT_SUFFIXES[_runtime(self.library)]}"

    def covers(self, scenario: str, rule: str, triggers: Sequence[tuple[str, ...]]) -> bool:
        """Whether a cause of ``scenario`` breaking ``rule``, brought out by the quirk sets
        ``triggers`` (``((),)``: as written), is this bug."""
        return super().covers(scenario, rule, triggers) or any(
            m.covers(scenario, rule, triggers) for m in self.alternatives
        )


def _runtime(library: str) -> str:
    """What runs the library named (Python for one the matrix does not know, as in tests)."""
    from harness.adapters.libs import libraries

    return next((known.runtime for known in libraries() if known.name == library), "python")


_REGISTERED: dict[str, list[Explanation]] = {}


def explain(
    libraries: str | Iterable[str],
    id: str,
    text: str,
    *,
    scenarios: Collection[str] | None = None,
    rules: Collection[str] | None = None,
    quirks: Collection[str] | None = None,
    as_written: bool | None = None,
    also: Sequence[Match] = (),
) -> None:
    """Register one bug of each of ``libraries`` (several when libraries share the code that
    has it, e.g. two adapters over one SDK), covering the causes ``scenarios``, ``rules``,
    ``quirks`` and ``as_written`` match together, and those any ``Match`` in ``also`` matches.
    ``text`` is written as a paragraph; its line breaks and indentation are folded into single
    spaces."""
    names = [libraries] if isinstance(libraries, str) else list(libraries)
    if not _ID.match(id):
        raise ValueError(f"explanation id {id!r}: lowercase words joined by hyphens")
    for library in names:
        known = _REGISTERED.setdefault(library, [])
        if any(e.id == id for e in known):
            raise ValueError(f"{library}: two explanations are named {id!r}")
        known.append(
            Explanation(
                _set(scenarios),
                _set(rules),
                _set(quirks),
                as_written,
                library=library,
                id=id,
                text=" ".join(text.split()),
                alternatives=tuple(also),
            )
        )


_loaded = False


def _load() -> None:
    """Import every module of this package once: each registers its library's explanations."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        importlib.import_module(f"{__name__}.{module}")


def explanations(library: str) -> tuple[Explanation, ...]:
    """The library's explanations, in the order they were registered."""
    _load()
    return tuple(_REGISTERED.get(library, ()))


def all_explanations() -> tuple[Explanation, ...]:
    _load()
    return tuple(e for known in _REGISTERED.values() for e in known)


def explanation_of(
    library: str, scenario: str, rule: str, triggers: Sequence[tuple[str, ...]]
) -> Explanation | None:
    """The first of the library's explanations that covers the cause, or None."""
    return next((e for e in explanations(library) if e.covers(scenario, rule, triggers)), None)
