"""Baselines: the known causes of a consumer's failures, so that a run fails only on new ones.

A baseline is a small YAML file, one entry per root cause (``results.causes``), written by
``harness run ... --write-baseline FILE`` and read by ``--baseline FILE`` and the pytest option
``--harness-baseline FILE``. Only each entry's ``cause`` is read; the rest says what the cause
was when it was written, for the reviewer, and a ``reason:`` a person adds is kept when the file
is written again. Judged against a run, each cause is *known* (in the baseline) or *new*, and an
entry is *fixed* when its scenario ran and no case showed it (strict by default, as pytest's
``xfail_strict``: a fixed entry fails the run until it is removed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness._errors import Problem, ScenarioError
from harness._files import read_text, scenario_error, write_output
from harness._yaml import LocatedDict, LocatedList, load_yaml
from harness.results.causes import Cause

#: the first key of every baseline file, and its format's version
MARKER = "harness-baseline"
VERSION = 1

_HEADER = """\
# Known failures, one entry per root cause: a run with --baseline (pytest: --harness-baseline)
# passes while only these causes fail, fails on any other, and fails on an entry whose scenario
# ran without it (fixed: remove the entry, or write the file again with --write-baseline).
# Only 'cause' is read; add a 'reason' to say why a cause is accepted (kept when rewritten).
"""


@dataclass(frozen=True)
class Entry:
    """One known cause."""

    cause: str
    #: what a person wrote of why it is accepted ("" if nothing)
    reason: str = ""
    #: the case that stood for it when written (``id[dialect+quirks]``), "" if not said
    smallest: str = ""
    #: the line of the file it is at (0 for an entry not read from a file)
    line: int = 0

    @property
    def scenario(self) -> str:
        return self.cause.partition(":")[0]


@dataclass(frozen=True)
class Baseline:
    path: str
    entries: Mapping[str, Entry] = field(default_factory=dict)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def for_scenario(self, scenario: str) -> list[Entry]:
        return [e for e in self.entries.values() if e.scenario == scenario]

    def judge(self, causes: Sequence[Cause], ran: Iterable[str]) -> Judgement:
        """Each cause known or new; the entries whose scenario (an id in ``ran``) showed no such
        cause, fixed."""
        seen = {c.key for c in causes}
        ran = set(ran)
        return Judgement(
            self,
            known=[c for c in causes if c.key in self.entries],
            new=[c for c in causes if c.key not in self.entries],
            fixed=[e for e in self.entries.values() if e.scenario in ran and e.cause not in seen],
        )


@dataclass(frozen=True)
class Judgement:
    baseline: Baseline
    known: list[Cause]
    new: list[Cause]
    fixed: list[Entry]

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.baseline.path,
            "known": [c.key for c in self.known],
            "new": [c.key for c in self.new],
            "fixed": [e.cause for e in self.fixed],
        }

    def lines(self) -> list[str]:
        """What the run's summary says of the baseline."""
        path = self.baseline.path
        out = [
            f"baseline {path}: {len(self.known)} known "
            f"{'cause' if len(self.known) == 1 else 'causes'}, {len(self.new)} new, "
            f"{len(self.fixed)} fixed"
        ]
        for entry in self.fixed:
            out.append(
                f"  fixed: {path}:{entry.line}: {entry.cause} no longer fails: remove the entry"
            )
        return out


def read_baseline(path: str | os.PathLike[str]) -> Baseline:
    """The baseline in ``path``; a malformed one is a ``ScenarioError`` naming file and line."""
    where = os.fspath(path)
    text = read_text(where, what="baseline", error=scenario_error)
    if not text.strip():
        raise _problem(where, 1, f"the baseline is empty; a baseline starts '{MARKER}: {VERSION}'")
    data = load_yaml(text, where)
    if not isinstance(data, LocatedDict) or data.get(MARKER) != VERSION:
        raise _problem(
            where, _line(data), f"not a baseline: a baseline starts '{MARKER}: {VERSION}'"
        )
    causes = data.get("causes") or LocatedList()
    if not isinstance(causes, LocatedList):
        raise _problem(where, data.line_of("causes"), "'causes' should be a list")
    entries: dict[str, Entry] = {}
    problems: list[Problem] = []
    for number, item in enumerate(causes):
        line = causes.line_of(number) if causes.item_lines else data.line_of("causes")
        key = item.get("cause") if isinstance(item, dict) else None
        if not isinstance(key, str) or ":" not in key or "@" not in key:
            problems.append(
                Problem(where, line, "each entry needs 'cause: SCENARIO:RULE@EVENT' (a string)")
            )
            continue
        if key in entries:
            problems.append(
                Problem(where, line, f"{key} is listed twice (first at line {entries[key].line})")
            )
            continue
        reason, smallest = item.get("reason", ""), item.get("smallest", "")
        entries[key] = Entry(key, str(reason), str(smallest), line)
    if problems:
        raise ScenarioError(problems)
    return Baseline(where, entries)


def render_baseline(causes: Sequence[Cause], keep: Baseline | None = None) -> str:
    """The baseline text for these causes; reasons written in ``keep`` are kept."""
    entries: list[dict[str, Any]] = []
    for cause in causes:
        entry: dict[str, Any] = {
            "cause": cause.key,
            "origin": cause.origin,
            "cases": len(cause.cases),
            "smallest": getattr(cause.smallest.scenario, "case_id", cause.scenario),
            "message": cause.message,
        }
        kept = keep.entries.get(cause.key) if keep is not None else None
        if kept is not None and kept.reason:
            entry["reason"] = kept.reason
        entries.append(entry)
    body = yaml.safe_dump(
        {MARKER: VERSION, "causes": entries},
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    return _HEADER + body


def write_baseline(path: str | os.PathLike[str], causes: Sequence[Cause]) -> None:
    """Write the baseline of ``causes`` to ``path``, keeping the reasons an existing baseline
    there gives (an unreadable one is replaced)."""
    keep: Baseline | None = None
    if os.path.isfile(path):
        try:
            keep = read_baseline(path)
        except ScenarioError:
            keep = None
    write_output(Path(path), render_baseline(causes, keep), what="the baseline")


def _problem(path: str, line: int, message: str) -> ScenarioError:
    return ScenarioError([Problem(path, line, message)])


def _line(value: object) -> int:
    return getattr(value, "line", 1) or 1
