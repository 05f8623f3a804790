"""Root causes across a run: one bug that fails many quirk cases of a scenario is one cause.

A case's causes are its root violations (those no other violation of the case follows from,
``ScenarioResult.root_causes``). Two cases of one scenario share a cause when a root violation
of each breaks the same rule at the same event of the scenario's canonical turn (or trace),
whatever quirks the cases add and however the message words the values; an error is a cause
of its own, by what the error says with its numbers left out. The cases that show a cause are
counted, the smallest of them (fewest quirks added) stands for it, and the quirks the smallest
ones add are what trigger it.

>>> Cause.key_of("parallel-calls", "parallel-apart", 12)
'parallel-calls:parallel-apart@12'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.replay.result import ScenarioResult
from harness.rules.registry import Violation
from harness.scenario.cases import first_party

Origin = Literal["first-party", "gateway"]

#: a cause found by an error, not a violation, is "rule" ``error``
ERROR = "error"


#: what a library or framework makes up anew on each run: uuids, random hex ids (pydantic-ai's
#: ``pyd_ai_...``, a Responses reasoning item's), the AI SDK's ``generateId`` (16 letters and
#: digits, quoted whole, with a digit or a capital)
_MADE_UP = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24,}"
    r"|(?<=')(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{16}(?=')"
)


def mask_made_up(text: str) -> str:
    """``text`` with each id made up anew on every run said as ``<made-up>``, for what is
    committed and must come out the same on every run (the conformance matrix).

    >>> mask_made_up("call 'pyd_ai_6bef2570d59b45ce8a8d8785c94e3ab0' and 'Ukjdp0IEKmXScsls'")
    "call 'pyd_ai_<made-up>' and '<made-up>'"
    """
    return _MADE_UP.sub("<made-up>", text)


def origin(result: ScenarioResult) -> Origin:
    """Who sends the case's shape: the dialect's own servers, or only gateways and proxies (the
    scenario is tagged ``gateway``, or its quirk case adds a quirk only gateways send)."""
    return "first-party" if first_party(result.scenario) else "gateway"


def added_quirks(result: ScenarioResult) -> tuple[str, ...]:
    """The quirks (a driver case) or variations (a session case) the case adds to its scenario
    as written (none for a scenario as written)."""
    return result.scenario.added


@dataclass(frozen=True)
class Cause:
    """One root cause of a run's failures, and every case that shows it."""

    #: stable across runs, for baselines and other tools: ``SCENARIO:RULE@EVENT``, or
    #: ``SCENARIO:error@WHAT`` for an adapter that erred
    key: str
    scenario: str
    rule: str
    #: the event of the scenario the root violation is at (-1 for an error)
    event_index: int
    #: the cases that show it, the smallest first
    cases: tuple[ScenarioResult, ...]
    #: the root violation in the smallest case (None for an error)
    violation: Violation | None

    @staticmethod
    def key_of(scenario: str, rule: str, where: int | str) -> str:
        return f"{scenario}:{rule}@{where}"

    @property
    def smallest(self) -> ScenarioResult:
        return self.cases[0]

    @property
    def message(self) -> str:
        """What the smallest case shows: its violation's message, or its error."""
        if self.violation is not None:
            return self.violation.message
        return self.smallest.error or ""

    @property
    def origin(self) -> Origin:
        """first-party when any of its cases is: a first-party server can make it happen."""
        return "first-party" if any(origin(c) == "first-party" for c in self.cases) else "gateway"

    @property
    def triggers(self) -> tuple[tuple[str, ...], ...]:
        """What brings it out: the quirks its smallest cases add (``((),)``: the scenario as
        written shows it; ``(("no_index",), ("same_index",))``: either quirk alone does)."""
        return smallest_sets([added_quirks(c) for c in self.cases])

    def trigger_text(self) -> str:
        """``as written``, or ``under no_index or same_index``, ``under a+b``."""
        return trigger_text(self.triggers)

    def to_json(self) -> dict[str, object]:
        return {
            "cause": self.key,
            "scenario": self.scenario,
            "rule": self.rule,
            "origin": self.origin,
            "cases": len(self.cases),
            "triggers": [list(t) for t in self.triggers],
            "smallest_case": getattr(self.smallest.scenario, "case_id", self.scenario),
            "message": self.message,
        }


def smallest_sets(quirk_sets: Sequence[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """The quirk sets with the fewest quirks, each once, in order."""
    fewest = min(map(len, quirk_sets))
    return tuple(dict.fromkeys(q for q in quirk_sets if len(q) == fewest))


def trigger_text(triggers: Sequence[tuple[str, ...]]) -> str:
    """``as written`` (the scenario as written shows it), or ``under no_index or same_index``."""
    if () in triggers:
        return "as written"
    return "under " + " or ".join("+".join(t) for t in triggers)


def result_json(result: ScenarioResult) -> dict[str, object]:
    """``result.to_json()`` with who sends its shape (``origin``) and the keys of the causes it
    shows (``causes``), as ``harness run --format json`` writes each result."""
    return {**result.to_json(), "origin": origin(result), "causes": list(case_causes(result))}


def _error_key(error: str) -> str:
    """What an error says, its first line with numbers left out (chunk 5, chunk 7: one cause)."""
    first = error.strip().splitlines()[0] if error.strip() else "no message"
    return re.sub(r"\d+", "N", first)


def _case_causes(result: ScenarioResult) -> dict[str, tuple[str, int]]:
    """The causes one failed or erred case shows, in the order it shows them: key -> the rule
    and the event (-1 for an error)."""
    scenario = result.scenario.id
    if result.status == "error":
        return {Cause.key_of(scenario, ERROR, _error_key(result.error or "")): (ERROR, -1)}
    if result.status != "fail":
        return {}
    # a variation reworks the trace: a violation is keyed by the scenario's event it came from
    source = result.scenario.source_event
    return {
        Cause.key_of(scenario, v.rule, source(v.event_index)): (v.rule, source(v.event_index))
        for v in result.root_causes
    }


def case_causes(result: ScenarioResult) -> tuple[str, ...]:
    """The keys of the causes one case shows (none for a pass or a skip)."""
    return tuple(_case_causes(result))


def _size(result: ScenarioResult) -> tuple[int, int, str]:
    case_id: str = getattr(result.scenario, "case_id", result.scenario.id)
    return (len(added_quirks(result)), len(case_id), case_id)


def group_causes(results: Iterable[ScenarioResult]) -> list[Cause]:
    """The root causes of the failed and erred results: first-party ones first, each group in
    the order the run first met them."""
    found: dict[str, tuple[str, int, list[ScenarioResult]]] = {}
    for result in results:
        for key, (rule, event) in _case_causes(result).items():
            found.setdefault(key, (rule, event, []))[2].append(result)
    causes = [_cause(key, *found[key]) for key in found]
    return sorted(causes, key=lambda c: c.origin != "first-party")  # stable: run order kept


def _cause(key: str, rule: str, event: int, cases: Sequence[ScenarioResult]) -> Cause:
    ordered = tuple(sorted(cases, key=_size))
    smallest = ordered[0]
    violation = next(
        (
            v
            for v in smallest.root_causes
            if v.rule == rule and smallest.scenario.source_event(v.event_index) == event
        ),
        None,
    )
    return Cause(key, smallest.scenario.id, rule, event, ordered, violation)


# -- causes gathered from records: what each case, replayed elsewhere, said of its causes -------


def cause_records(result: ScenarioResult, **extra: object) -> list[dict[str, Any]]:
    """What one failed or erred case says of each root cause it shows, as JSON-able records
    (for a process that gathers the cases of many others: the pytest plugin under xdist), each
    with ``extra`` (e.g. the command that replays the case)."""
    if result.status not in ("fail", "error"):
        return []
    quirks = list(added_quirks(result))
    return [{**c.to_json(), "quirks": quirks, **extra} for c in group_causes([result])]


def merged_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each cause once from the records of its cases (``cause_records``), as ``group_causes``
    makes it of the results: counted, the smallest case's record standing for it, first-party
    if any case is, the quirk sets of its smallest cases its trigger (``trigger``); first-party
    causes first, each group in the order met."""
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_key.setdefault(str(record["cause"]), []).append(record)
    out = []
    for key, cases in by_key.items():
        ordered = sorted(cases, key=lambda c: (len(c["quirks"]), len(str(c["smallest_case"]))))
        trigger = trigger_text(smallest_sets([tuple(c["quirks"]) for c in ordered]))
        first = any(c["origin"] == "first-party" for c in cases)
        out.append(
            {
                **ordered[0],
                "cause": key,
                "cases": len(cases),
                "origin": "first-party" if first else "gateway",
                "trigger": trigger,
            }
        )
    return sorted(out, key=lambda c: c["origin"] != "first-party")
