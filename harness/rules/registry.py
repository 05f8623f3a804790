"""Rules are small functions registered by id; each yields findings for one checkpoint.

A check knows only where a problem is and what it is (a ``Finding``); the registry names the rule,
so a check never retypes its own id, and ``Rule.check`` hands its callers finished violations.

A rule also says how fundamental it is (``precedence``) and whether its findings follow from
the others' (``derived``): ``harness.results.attribution`` ranks one replay's violations by
them, each under its root cause.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeVar, overload

from harness._registry import Registry

if TYPE_CHECKING:
    from harness.rules.driver_timing import DriverTimeline
    from harness.rules.history import HistoryFacts
    from harness.rules.loop import LoopFacts
    from harness.rules.session import SessionFacts

Needs = Literal["notifications", "transcript"]


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule: which rule, at which event of the expanded trace, and what was expected."""

    rule: str
    event_index: int
    message: str
    #: what the violation is about (the ids of the tool calls it concerns, separated by
    #: spaces), or "" for the run as a whole
    subject: str = ""
    #: the root cause this violation follows from: (rule, event index), or None for a root
    cause: tuple[str, int] | None = None


class Finding(NamedTuple):
    """What a check yields: the event of the expanded trace at fault, what was expected, and
    what it is about (a tool call's id; "" for the run as a whole)."""

    event_index: int
    message: str
    subject: str = ""


#: what a rule reads at a checkpoint: ``SessionFacts``, ``HistoryFacts``, ``DriverTimeline`` or
#: ``LoopFacts``
Context = TypeVar("Context")
#: a rule's check: the findings it makes of one checkpoint's facts
Check = Callable[[Context], Iterable[Finding]]
C = TypeVar("C", bound=Callable[[Any], Iterable[Finding]])
SessionCheck = TypeVar("SessionCheck", bound="Callable[[SessionFacts], Iterable[Finding]]")
HistoryCheck = TypeVar("HistoryCheck", bound="Callable[[HistoryFacts], Iterable[Finding]]")
DriverCheck = TypeVar("DriverCheck", bound="Callable[[DriverTimeline], Iterable[Finding]]")
LoopCheck = TypeVar("LoopCheck", bound="Callable[[LoopFacts], Iterable[Finding]]")


@dataclass(frozen=True, slots=True)
class Rule(Generic[Context]):
    """A registered rule: its id, layer and statement, where it comes from, and its check."""

    id: str
    layer: str
    statement: str
    source: str
    #: "notifications" rules also run at the light checkpoints where only notifications are
    #: read, and judge only the notifications: they find nothing when exactly the expected ones
    #: show, and the replay does not run them then (tests/test_rules.py holds them to it).
    needs: Needs
    find: Check[Context]
    #: how fundamental a violation of it is: of two about the same subject, the lower is the cause
    precedence: int = 50
    #: its findings follow from the other rules' (the order of the outputs): a consequence of the
    #: first root cause, when there is one
    derived: bool = False

    def check(self, context: Context) -> Iterator[Violation]:
        """The rule's findings for one checkpoint, each named with the rule's id."""
        rule_id = self.id
        for event_index, message, subject in self.find(context):
            yield Violation(rule_id, event_index, message, subject)


RULES: Registry[Rule[Any]] = Registry("rule")


@overload
def rule(
    rule_id: str,
    *,
    layer: Literal["session"],
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[SessionCheck], SessionCheck]: ...


@overload
def rule(
    rule_id: str,
    *,
    layer: Literal["history"],
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[HistoryCheck], HistoryCheck]: ...


@overload
def rule(
    rule_id: str,
    *,
    layer: Literal["driver"],
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[DriverCheck], DriverCheck]: ...


@overload
def rule(
    rule_id: str,
    *,
    layer: Literal["loop"],
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[LoopCheck], LoopCheck]: ...


@overload
def rule(
    rule_id: str,
    *,
    layer: str,
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[C], C]: ...


def rule(
    rule_id: str,
    *,
    layer: str,
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[C], C]:
    """Register a check under a stable id, for every replay of ``layer`` from then on (inside
    ``harness.scoped_registrations()``, until the block ends). The check reads the layer's facts
    at each checkpoint and yields a ``Finding`` for each problem::

        @rule("no-empty-messages", layer="session", statement="...", source="our UI spec")
        def no_empty_messages(facts: SessionFacts) -> Iterator[Finding]: ...

    A check for a layer is typed with that layer's facts (``SessionFacts``, ``HistoryFacts``,
    ``DriverTimeline``): a type checker refuses a check of another layer's facts. An id already
    registered is a ``UsageError``."""

    def register(check: C) -> C:
        RULES.add(
            rule_id, Rule(rule_id, layer, statement, source, needs, check, precedence, derived)
        )
        return check

    return register


def rules_for(
    layer: str, *, disabled: Iterable[str] = (), only: Iterable[str] = ()
) -> list[Rule[Any]]:
    disabled, only = set(disabled), set(only)
    return [
        r
        for r in RULES.values()
        if r.layer == layer and r.id not in disabled and (not only or r.id in only)
    ]
