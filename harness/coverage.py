"""How thinly the scenario library covers the rules, the bundled mutants, the quirks and the
variations (``harness coverage``).

A scenario *exercises* a rule when some bundled mutant breaks that rule in it: the scenario is
then known to be able to make the rule fail. The aims: every rule exercised by at least
``RULE_AIM`` scenarios, every mutant caught by at least ``MUTANT_AIM`` scenarios (its quirk
cases and variation cases count as one: the scenario they came from). A variation that makes
no case of a scenario says why, and the reasons are counted.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.adapters.registry import adapter_dialect
from harness.codecs import dialects
from harness.demo import Row
from harness.rules import RULES
from harness.scenario import DriverScenario, SessionScenario
from harness.scenario.variations import VARIATIONS, why_not

RULE_AIM = 3
MUTANT_AIM = 2


@dataclass(frozen=True)
class Coverage:
    #: rule -> the scenarios that exercise it, and the mutants it catches
    rules: dict[str, tuple[frozenset[str], frozenset[str]]]
    #: mutant -> the scenarios that catch it, and the cases
    mutants: dict[str, tuple[frozenset[str], int]]
    #: (dialect, quirk) -> the scenarios that run under it
    quirks: dict[tuple[str, str], frozenset[str]]
    #: (layer, variation) -> the scenarios that have a case of it, and the mutants some case of
    #: it catches in a scenario whose case as written the mutant passes
    variations: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = field(
        default_factory=dict
    )
    #: (layer, variation) -> why it makes no case of the other scenarios: reason -> scenarios
    not_applied: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)

    @property
    def thin_rules(self) -> list[str]:
        return [r for r, (scenarios, _) in self.rules.items() if len(scenarios) < RULE_AIM]

    @property
    def thin_mutants(self) -> list[str]:
        return [m for m, (scenarios, _) in self.mutants.items() if len(scenarios) < MUTANT_AIM]

    def lines(self) -> list[str]:
        width = max(map(len, [*self.rules, *self.mutants, "rule"]))
        out = ["rule" + " " * (width - 4) + "  scenarios  mutants caught"]
        for rule, (scenarios, mutants) in self.rules.items():
            mark = "  <- thin" if len(scenarios) < RULE_AIM else ""
            out.append(f"{rule:<{width}}  {len(scenarios):>9}  {len(mutants):>14}{mark}")
        out += ["", "mutant" + " " * (width - 6) + "  scenarios  cases"]
        for mutant, (scenarios, cases) in self.mutants.items():
            mark = "  <- thin" if len(scenarios) < MUTANT_AIM else ""
            out.append(f"{mutant:<{width}}  {len(scenarios):>9}  {cases:>5}{mark}")
        out += ["", "quirk (dialect)" + " " * max(0, width - 15) + "  scenarios"]
        for (dialect, quirk), scenarios in sorted(self.quirks.items()):
            out.append(f"{f'{quirk} ({dialect})':<{width}}  {len(scenarios):>9}")
        if self.variations:
            head = "variation (layer)" + " " * max(0, width - 17)
            out += ["", head + "  scenarios  mutants caught beyond as written"]
            for (layer, name), (scenarios, only) in self.variations.items():
                out.append(f"{f'{name} ({layer})':<{width}}  {len(scenarios):>9}  {len(only):>28}")
                for reason, count in self.not_applied.get((layer, name), Counter()).most_common():
                    out.append(f"    not in {count}: {reason}")
        out += [
            "",
            f"rules exercised by fewer than {RULE_AIM} scenarios: "
            + (", ".join(self.thin_rules) or "none"),
            f"mutants caught by fewer than {MUTANT_AIM} scenarios: "
            + (", ".join(self.thin_mutants) or "none"),
        ]
        return out


def measure(rows: Sequence[Row]) -> Coverage:
    """From the conformance matrix's rows (``harness.demo.run_matrix``)."""
    layers = {row.adapter.layer for row in rows}
    exercised: dict[str, set[str]] = defaultdict(set)
    catching: dict[str, set[str]] = defaultdict(set)
    mutants: dict[str, tuple[frozenset[str], int]] = {}
    quirks: dict[tuple[str, str], set[str]] = defaultdict(set)
    varied: dict[tuple[str, str], set[str]] = defaultdict(set)
    only: dict[tuple[str, str], set[str]] = defaultdict(set)
    written: dict[str, SessionScenario] = {}  # the session and history scenarios as written
    for row in rows:
        if row.adapter.kind == "reference":
            dialect = adapter_dialect(row.adapter) or ""
            for result in row.results:
                scenario = result.scenario
                if isinstance(scenario, DriverScenario) and result.status != "skip":
                    for quirk in scenario.quirks:
                        quirks[dialect, quirk].add(scenario.id)
                elif isinstance(scenario, SessionScenario) and result.status != "skip":
                    if scenario.variant:
                        for name in scenario.added:
                            varied[scenario.layer, name].add(scenario.id)
                    else:
                        written.setdefault(scenario.id, scenario)
            continue
        plain_failed = {
            r.scenario.id for r in row.results if r.status == "fail" and not r.scenario.added
        }
        for result in row.results:
            scenario = result.scenario
            if (
                isinstance(scenario, SessionScenario)
                and result.status == "fail"
                and scenario.id not in plain_failed
            ):
                for name in scenario.added:
                    only[scenario.layer, name].add(row.adapter.name)
        failed = [r for r in row.results if r.status == "fail"]
        mutants[row.adapter.name] = (frozenset(r.scenario.id for r in failed), len(failed))
        for result in failed:
            for rule in result.rules_broken:
                exercised[rule].add(result.scenario.id)
                catching[rule].add(row.adapter.name)
    for name, codec in dialects().items():  # a quirk no scenario runs under is listed too
        for quirk in codec.quirks:
            quirks.setdefault((name, quirk), set())
    rules = {
        rule.id: (frozenset(exercised[rule.id]), frozenset(catching[rule.id]))
        for rule in RULES.values()
        if rule.layer in layers
    }
    session_layers = sorted({s.layer for s in written.values()})
    variations = {
        (layer, name): (frozenset(varied[layer, name]), frozenset(only[layer, name]))
        for layer in session_layers
        for name in VARIATIONS
    }
    not_applied: dict[tuple[str, str], Counter[str]] = {}
    for scenario in written.values():
        for name in VARIATIONS:
            if scenario.id not in varied[scenario.layer, name]:
                reason = why_not(scenario, name) or "its case is one another variation made already"
                # the numbers in a reason (events in a trace) differ from scenario to scenario
                not_applied.setdefault((scenario.layer, name), Counter())[
                    re.sub(r"\d+", "N", reason)
                ] += 1
    return Coverage(
        rules, mutants, {k: frozenset(v) for k, v in quirks.items()}, variations, not_applied
    )
