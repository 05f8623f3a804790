"""Exploration: generated scenarios against an adapter until a rule breaks, then the smallest
breaking scenario hypothesis can shrink it to, written as a YAML scenario to keep.

``harness explore`` and the plugin's ``--harness-explore`` are thin over ``explore``. The search
is ``hypothesis.find`` over the layer's strategy (``harness.strategies``): deterministic for a
seed, bounded by ``max_examples``, under the loaded hypothesis profile, and remembering what it
found in hypothesis's example database, so a second run starts from the last counterexample.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import random
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, NoSuchExample

from harness._errors import UsageError
from harness._files import write_output
from harness.adapters.registry import (
    AdapterInfo,
    adapter_dialect,
    declared,
    declared_layers,
    resolve_adapter,
)
from harness.codecs import dialects
from harness.replay import replay
from harness.replay.result import ScenarioResult
from harness.scenario import load_scenario
from harness.scenario.cases import gateway_only
from harness.strategies.documents import dump_document, scenario_from_document

#: examples tried when no budget is given: enough for every bundled mutant, seconds per adapter
DEFAULT_EXAMPLES = 300
#: seconds one generated replay may take (a generated scenario is small)
EXAMPLE_TIMEOUT = 5.0
#: lines of the difference between two runs of an adapter that is not deterministic shown
SHOWN_DIFFERENCE = 40


@dataclass(frozen=True)
class Exploration:
    adapter: str
    layer: str
    seed: int
    max_examples: int
    #: the shrunk counterexample's replay, None when nothing was found
    found: ScenarioResult | None = None
    #: where it was written
    path: Path | None = None
    #: the same scenario replayed again, when that passed: the adapter is not deterministic
    rerun: ScenarioResult | None = None

    @property
    def command(self) -> str:
        """The command that replays the written scenario (as written: no quirk cases added)."""
        if self.path is None:
            return ""
        quirks = " --quirks=none" if self.layer == "driver" else ""
        return f"harness run {shlex.quote(str(self.path))} --adapter {shlex.quote(self.adapter)}{quirks}"

    def _unsteady(self, first: ScenarioResult, second: ScenarioResult) -> list[str]:
        out = [
            f"found: the adapter is not deterministic: a generated scenario of "
            f"{len(first.scenario.events)} events failed, then passed when replayed unchanged",
            *(f"first run: {said}" for said in _said(first)),
            *(f"second run: {said}" for said in _said(second)),
        ]
        before, after = _shown(first), _shown(second)
        if before == after:
            out.append("what the adapter showed at the end was the same both times")
        else:
            difference = [
                line
                for line in difflib.unified_diff(before, after, lineterm="", n=0)
                if line[:1] in "-+" and line[:3] not in ("---", "+++")
            ]
            out.append("what the adapter showed, first run (-) against second run (+):")
            out += [f"    {line}" for line in difference[:SHOWN_DIFFERENCE]]
            if len(difference) > SHOWN_DIFFERENCE:
                out.append(f"    ... {len(difference) - SHOWN_DIFFERENCE} more lines")
        if self.path is not None:
            out += [f"written to {self.path}", f"replay it: {self.command}"]
        return out

    def lines(self) -> list[str]:
        head = (
            f"explored {self.adapter} ({self.layer} layer): up to {self.max_examples} "
            f"generated scenarios, seed {self.seed}"
        )
        if self.found is None:
            return [head, "nothing found"]
        result = self.found
        if self.rerun is not None:
            return [head, *self._unsteady(result, self.rerun)]
        out = [head]
        if result.status == "error":
            out.append(f"found: the adapter misbehaved: {result.error}")
        for violation in result.root_causes:
            out.append(
                f"found: [{violation.rule}] event {violation.event_index}: {violation.message}"
            )
        out += [
            f"shrunk to {len(result.scenario.events)} events, written to {self.path}",
            f"replay it: {self.command}",
        ]
        return out


def explore(
    adapter: str | AdapterInfo,
    *,
    max_examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    out: str | Path = "harness-explored",
    timeout: float = EXAMPLE_TIMEOUT,
    first_party: bool = False,
) -> Exploration:
    """Replay generated scenarios of the adapter's layer against it; on the first that fails or
    errors, shrink it, write it to ``out`` and replay the written file once more to be sure it
    reproduces on its own. ``first_party``: driver streams only as the dialect's own servers
    send them, without the quirks only gateways and proxies send."""
    info = resolve_adapter(adapter) if isinstance(adapter, str) else adapter
    declared = declared_layers(info)
    if info.layer not in declared:  # e.g. an exec: process or a factory function: what it says
        info = dataclasses.replace(info, layer=declared[0])
    if max_examples < 1:
        raise UsageError(f"the budget must be at least one example, got {max_examples}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    documents = strategy_for(info, first_party=first_party)
    failed: dict[str, ScenarioResult] = {}  # each document that broke, by its JSON text
    unsteady: list[tuple[ScenarioResult, ScenarioResult]] = []  # the latest that then passed

    def breaks(document: dict[str, Any]) -> bool:
        result = replay(scenario_from_document(document), info, timeout=timeout)
        key = json.dumps(document, sort_keys=True, default=repr)
        if result.status in ("fail", "error"):
            failed.setdefault(key, result)
            return True
        if key in failed:
            unsteady[:] = [(failed[key], result)]
        return False

    budget = settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    exploration = Exploration(info.name, info.layer, seed, max_examples)
    try:
        document = find(
            documents,
            breaks,
            settings=budget,
            random=random.Random(seed),
            database_key=f"harness-explore:{info.name}:{info.layer}:{first_party}".encode(),
        )
    except NoSuchExample:
        return exploration
    except Flaky as exc:  # hypothesis replayed its smallest failing example, and it passed
        if not unsteady:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UsageError(f"{info.name}: the search was not deterministic: {first}") from None
        first_run, second_run = unsteady[0]
        return dataclasses.replace(exploration, found=first_run, rerun=second_run)
    return _written(exploration, info, document, Path(out), timeout)


def strategy_for(
    info: AdapterInfo, *, first_party: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    """The documents to try on this adapter: its layer's, in its dialect and reading mode."""
    from harness import strategies

    if info.layer == "driver":
        dialect = adapter_dialect(info)
        if dialect is None:
            raise UsageError(f"{info.name} names no dialect: a driver adapter has a 'dialect'")
        codec = dialects().get(dialect)
        quirks: bool | list[str] = True
        if first_party and codec is not None:
            quirks = [q for q in codec.quirks if not gateway_only(codec, q)]
        try:
            return strategies.driver_documents(
                dialect=dialect, quirks=quirks, byte_cuts=declared(info, "reads") == "bytes"
            )
        except Exception as exc:  # an unknown dialect: hypothesis's InvalidArgument
            raise UsageError(f"{info.name}: {exc}") from None
    make: Callable[..., st.SearchStrategy[dict[str, Any]]] | None = getattr(
        strategies, "session_documents", None
    )
    if make is None:
        raise UsageError(f"no strategy generates {info.layer} scenarios yet")
    return make(layer=info.layer)


def _written(
    exploration: Exploration,
    info: AdapterInfo,
    document: dict[str, Any],
    out: Path,
    timeout: float,
) -> Exploration:
    name = f"explored-{_slug(info.name)}-{exploration.seed}"
    path = out / f"{name}.yaml"
    first = replay(scenario_from_document(document, path=str(path)), info, timeout=timeout)
    rules = list(first.rules_broken)
    what = ", ".join(rules) if rules else "the adapter misbehaved"
    trace = document["trace"]
    document = {
        **{k: v for k, v in document.items() if k != "trace"},
        "id": name,
        "title": f"Found by harness explore against {info.name}: {what}",
        "description": " ".join(
            [f"[{v.rule}] event {v.event_index}: {v.message}" for v in first.root_causes]
            or [first.error or ""]
        ),
        "source": f"harness explore --adapter {info.name} --seed {exploration.seed}",
        **({"rules": rules} if rules else {}),
        "trace": trace,
    }
    command = Exploration(info.name, info.layer, exploration.seed, 1, path=path).command
    comments = [
        f"Found by: harness explore --adapter {info.name} --seed {exploration.seed} "
        f"--max-examples {exploration.max_examples}",
        f"Breaks: {what}",
        f"Replay: {command}",
    ]
    write_output(path, dump_document(document, comments=comments), what="the counterexample")
    again = replay(load_scenario(path), info, timeout=timeout)
    if again.status not in ("fail", "error"):  # the adapter does not answer it the same way twice
        return dataclasses.replace(exploration, found=first, path=path, rerun=again)
    return Exploration(
        info.name, info.layer, exploration.seed, exploration.max_examples, again, path
    )


def _said(result: ScenarioResult) -> list[str]:
    """What a replay found, a line each."""
    if result.status == "error":
        return [f"the adapter misbehaved: {result.error}"]
    if result.status != "fail":
        return [f"{'passed' if result.status == 'pass' else result.status}, no rule broken"]
    return [f"[{v.rule}] event {v.event_index}: {v.message}" for v in result.root_causes]


def _shown(result: ScenarioResult) -> list[str]:
    """What the adapter showed at the end of a replay (its observation, or for the history
    layer what it stored), a line per value, each named by where it is."""
    shown: object = result.observation
    if shown is None and result.histories is not None:
        shown = {name: session.raw_stored for name, session in result.histories.items()}
    return _flat(shown, "")


def _flat(value: object, path: str) -> list[str]:
    items: list[tuple[str, object]]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
        items = [(f"{path}.{name}" if path else name, item) for name, item in items]
    elif isinstance(value, Mapping):
        items = [(f"{path}[{key!r}]", item) for key, item in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"{path}[{n}]", item) for n, item in enumerate(value)]
    else:
        shown = repr(value)
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        return [f"{path or 'it'} = {shown}"]
    if not items:
        return [f"{path or 'it'} = {value!r}"]
    return [line for name, item in items for line in _flat(item, name)]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:60] or "adapter"
