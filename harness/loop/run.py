"""One run of a loop scenario: the stand-in serving its responses, the program run against it,
and the requests it sent judged by the loop rules (``LoopResult``).

::

    from harness.loop import run_loop
    from harness.scenario import load_scenario

    result = run_loop(load_scenario("scenarios/loop/two-tool-cycles.yaml"),
                      ["python", "my_agent.py"], dialect="openai-chat")
    result.status     # "pass", "fail", "skip" (the program speaks another dialect) or "error"
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from harness.codecs import dialects
from harness.loop.program import run_program
from harness.model.loop import LoopRequest, ProgramOutcome
from harness.results.attribution import attribute_causes
from harness.rules.loop import LoopFacts
from harness.rules.registry import Violation, rules_for
from harness.scenario import LoopScenario
from harness.standin.loop import DEFAULT_SETTLE, carried, serving_loop

#: seconds a program may take for a whole scenario, by default
DEFAULT_LOOP_TIMEOUT = 30.0

Status = Literal["pass", "fail", "skip"]


@dataclass(frozen=True)
class LoopResult:
    """The outcome of one run: ``scenario`` is the one run, its ``variant`` the dialect it was
    served in (``two-tool-cycles[openai-chat]``); ``command`` the program (None: a test was the
    client, through the ``harness_loop`` fixture)."""

    scenario: LoopScenario
    command: tuple[str, ...] | None
    status: Status
    violations: tuple[Violation, ...] = ()
    skip_reason: str | None = None
    requests: tuple[LoopRequest, ...] = ()
    outcome: ProgramOutcome | None = None
    seconds: float = 0.0
    rules_checked: tuple[str, ...] = ()

    @property
    def dialect(self) -> str:
        return self.scenario.variant

    @property
    def rules_broken(self) -> tuple[str, ...]:
        return tuple(sorted({v.rule for v in self.violations}))

    @property
    def root_causes(self) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.cause is None)

    def line_of(self, violation: Violation) -> int:
        return self.scenario.event_line(violation.event_index)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "scenario": self.scenario.id,
            "dialect": self.dialect or None,
            "command": list(self.command) if self.command is not None else None,
            "status": self.status,
            "violations": [
                {
                    "rule": v.rule,
                    "event_index": v.event_index,
                    "file": self.scenario.path,
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
            "requests": [
                {
                    "number": r.number,
                    "method": r.method,
                    "path": r.path,
                    "response": r.response,
                    "early": r.early,
                    **({"refused": r.refused} if r.refused else {}),
                }
                for r in self.requests
            ],
            "file": self.scenario.path,
            "seconds": round(self.seconds, 3),
        }
        if self.outcome is not None:
            data["exit_status"] = self.outcome.status
            data["timed_out"] = self.outcome.timed_out
        if self.skip_reason is not None:
            data["skip_reason"] = self.skip_reason
        return data


def judge(
    scenario: LoopScenario,
    facts: LoopFacts,
    *,
    command: Sequence[str] | None = None,
    only_rules: Iterable[str] = (),
    skip_rules: Iterable[str] = (),
    seconds: float = 0.0,
) -> LoopResult:
    """The loop rules on what one run showed."""
    rules = rules_for("loop", disabled=(*scenario.disable_rules, *skip_rules), only=only_rules)
    found = attribute_causes(v for r in rules for v in r.check(facts))
    return LoopResult(
        dataclasses.replace(scenario, variant=facts.dialect),
        tuple(command) if command is not None else None,
        "fail" if found else "pass",
        found,
        requests=facts.requests,
        outcome=facts.outcome,
        seconds=seconds,
        rules_checked=tuple(r.id for r in rules),
    )


def run_loop(
    scenario: LoopScenario,
    command: Sequence[str],
    *,
    dialect: str | None = None,
    timeout: float = DEFAULT_LOOP_TIMEOUT,
    settle: float = DEFAULT_SETTLE,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    only_rules: Iterable[str] = (),
    skip_rules: Iterable[str] = (),
) -> LoopResult:
    """Serve ``scenario`` on loopback, run ``command`` with its SDKs pointed there (see
    ``LoopStand.env``), stop it after ``timeout`` seconds at the latest, and judge the requests
    it sent. ``dialect``: serve only this one; None: the one the program's first request
    speaks (a program that speaks a dialect the scenario does not run in is a skip)."""
    started = time.monotonic()
    if dialect is not None:
        why = (
            f"it runs in {', '.join(scenario.dialects)}, not {dialect}"
            if dialect not in scenario.dialects
            else carried(scenario, dialect, dialects())
        )
        if why is not None:
            return LoopResult(
                dataclasses.replace(scenario, variant=dialect),
                tuple(command),
                "skip",
                skip_reason=why,
            )
    with serving_loop(scenario, dialect=dialect, settle=settle) as stand:
        outcome = run_program(
            command, env=stand.env(os.environ if env is None else env), timeout=timeout, cwd=cwd
        )
        stand.wait_streams(1.0)
        unserved = stand.unserved
        facts = stand.facts(outcome)
    if unserved is not None and not any(r.response is not None for r in facts.requests):
        return LoopResult(
            dataclasses.replace(scenario, variant=facts.dialect),
            tuple(command),
            "skip",
            skip_reason=unserved,
            requests=facts.requests,
            outcome=outcome,
            seconds=time.monotonic() - started,
        )
    return judge(
        scenario,
        facts,
        command=command,
        only_rules=only_rules,
        skip_rules=skip_rules,
        seconds=time.monotonic() - started,
    )
