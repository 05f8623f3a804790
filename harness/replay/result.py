"""The outcome of replaying one scenario against one adapter."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from harness.model.driver import DriverObservation
from harness.model.driver_run import DriverRun
from harness.model.observation import Observation
from harness.rules.history import StoredSession
from harness.rules.registry import Violation
from harness.scenario import Scenario

Status = Literal["pass", "fail", "skip", "error"]


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    scenario: Scenario
    adapter: str
    status: Status
    violations: tuple[Violation, ...] = ()
    error: str | None = None
    skip_reason: str | None = None
    seconds: float = 0.0
    #: what the consumer showed at the end, or what a driver emitted (None if the replay did
    #: not get that far, or for the history layer)
    observation: Observation | DriverObservation | None = None
    #: the rules that were checked
    rules_checked: tuple[str, ...] = ()
    #: for a skip because the adapter lacks the scenario's layer: the layers it implements
    adapter_layers: tuple[str, ...] | None = None
    #: of ``seconds``, the harness's own work (deriving expectations, encoding the stream,
    #: checking observations against the rules), which no time limit of the adapter's counts
    harness_seconds: float = 0.0
    #: a driver replay's reads, outputs and where each came out, as the rules saw them (the
    #: HTML report draws them); None for the other layers
    driver_run: DriverRun | None = field(default=None, compare=False, repr=False)
    #: the history layer: what the adapter stored (and rebuilt) for each top-level session at
    #: the end, or None if the replay did not get that far
    histories: Mapping[str, StoredSession] | None = field(default=None, compare=False, repr=False)

    def slim(self) -> ScenarioResult:
        """The result without what the consumer showed (``observation``, ``driver_run``,
        ``histories``): what a run of many cases keeps of a case it will not draw, so that its
        memory does not grow with every case's outputs (a turn can be tens of megabytes)."""
        return dataclasses.replace(self, observation=None, driver_run=None, histories=None)

    @property
    def adapter_seconds(self) -> float:
        """The rest of ``seconds``: the adapter's calls, and the replay loop making them."""
        return max(0.0, self.seconds - self.harness_seconds)

    @property
    def rules_broken(self) -> tuple[str, ...]:
        return tuple(sorted({v.rule for v in self.violations}))

    @property
    def rule_statuses(self) -> dict[str, str]:
        """pass, fail or skip for every rule checked (skip: the replay skipped or erred)."""
        broken = set(self.rules_broken)
        return {
            rule: "skip"
            if self.status in ("skip", "error")
            else "fail"
            if rule in broken
            else "pass"
            for rule in self.rules_checked
        }

    @property
    def root_causes(self) -> tuple[Violation, ...]:
        """The violations no other one explains; the rest follow from one of these."""
        return tuple(v for v in self.violations if v.cause is None)

    def line_of(self, violation: Violation) -> int:
        return self.scenario.event_line(violation.event_index)

    def file_of(self, violation: Violation) -> str:
        """The file ``line_of`` counts in: the scenario's, or the recording its turn was read from."""
        return self.scenario.event_location(violation.event_index)[0]

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "scenario": self.scenario.id,
            "adapter": self.adapter,
            "status": self.status,
            "violations": [
                {
                    "rule": v.rule,
                    "event_index": v.event_index,
                    "file": self.file_of(v),
                    "line": self.line_of(v),
                    "message": v.message,
                    **(
                        {"cause": {"rule": v.cause[0], "event_index": v.cause[1]}}
                        if v.cause
                        else {}
                    ),
                }
                for v in self.violations
            ],
            "file": self.scenario.path,
            "seconds": {
                "adapter": round(self.adapter_seconds, 6),
                "harness": round(self.harness_seconds, 6),
            },
        }
        variant = getattr(self.scenario, "variant", "")
        if variant:
            data["case"] = variant  # the quirk case: ``dialect+quirk``
        if self.error is not None:
            data["error"] = self.error
        if self.skip_reason is not None:
            data["skip_reason"] = self.skip_reason
        return data
