"""What each framework's loop gets wrong on the loop scenarios, in plain words: one explanation
per behaviour, covering the failed runs it makes.

A run is one loop scenario in one dialect; an explanation covers a failed run of its loop when
the run's scenario (and dialect, where it names some) is among its own and the run broke exactly
its ``rules``: a run that breaks one rule more is not explained until someone says why. The
evidence is the run itself: the matrix shows its violations and the ``harness loop`` command
that runs it again.

``verdict`` says whose the failure is: ``framework`` (the framework does what the rule forbids,
and its user pays for it) or ``harness`` (the framework's choice is a reasonable one the rule
does not allow, or the stand-in serves something other than the scenario says: the rule or the
stand-in is in question, not the framework).

>>> e = LoopExplanation("x", "stops-early", "It stops.", frozenset({"s"}), None, frozenset({"r"}))
>>> e.covers("s", "openai-chat", ("r",)), e.covers("s", "openai-chat", ("r", "q"))
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["framework", "harness"]
VERDICTS: tuple[Verdict, ...] = ("framework", "harness")

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class LoopExplanation:
    loop: str
    id: str
    #: what the framework did, what its user sees, the upstream report where one exists
    text: str
    scenarios: frozenset[str]
    #: None: every dialect
    dialects: frozenset[str] | None
    #: the rules a covered run breaks, all of them
    rules: frozenset[str]
    verdict: Verdict = "framework"

    def covers(self, scenario: str, dialect: str, rules: Collection[str]) -> bool:
        return (
            scenario in self.scenarios
            and (self.dialects is None or dialect in self.dialects)
            and frozenset(rules) == self.rules
        )


_REGISTERED: dict[str, list[LoopExplanation]] = {}


def explain_loop(
    loops: str | Iterable[str],
    id: str,
    text: str,
    *,
    scenarios: Collection[str],
    rules: Collection[str],
    dialects: Collection[str] | None = None,
    verdict: Verdict = "framework",
) -> None:
    """Register one behaviour of each of ``loops`` (several when they share the code that has
    it). ``text`` is written as a paragraph; its line breaks and indentation fold into spaces."""
    if not _ID.match(id):
        raise ValueError(f"explanation id {id!r}: lowercase words joined by hyphens")
    if verdict not in VERDICTS:
        raise ValueError(f"verdict {verdict!r}: one of {', '.join(VERDICTS)}")
    for loop in [loops] if isinstance(loops, str) else loops:
        known = _REGISTERED.setdefault(loop, [])
        if any(e.id == id for e in known):
            raise ValueError(f"{loop}: two explanations are named {id!r}")
        known.append(
            LoopExplanation(
                loop,
                id,
                " ".join(text.split()),
                frozenset(scenarios),
                None if dialects is None else frozenset(dialects),
                frozenset(rules),
                verdict,
            )
        )


def loop_explanations(loop: str) -> tuple[LoopExplanation, ...]:
    """The loop's explanations, in the order they were registered."""
    return tuple(_REGISTERED.get(loop, ()))


def all_loop_explanations() -> tuple[LoopExplanation, ...]:
    return tuple(e for known in _REGISTERED.values() for e in known)


def explanation_of_run(
    loop: str, scenario: str, dialect: str, rules: Collection[str]
) -> LoopExplanation | None:
    """The first of the loop's explanations that covers the failed run, or None."""
    return next((e for e in loop_explanations(loop) if e.covers(scenario, dialect, rules)), None)


# -- the explanations ----------------------------------------------------------------------------
