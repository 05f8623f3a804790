"""Exploration: generated scenarios against an adapter until a rule breaks, then the smallest
breaking scenario hypothesis can shrink it to, written as a YAML scenario to keep.

``harness explore`` and the plugin's ``--harness-explore`` are thin over ``explore``. The search
is ``hypothesis.find`` over the layer's strategy (``harness.strategies``): deterministic for a
seed, bounded by ``max_examples``, under the loaded hypothesis profile, and remembering what it
found in hypothesis's example database, so a second run starts from the last counterexample.
"""

from __future__ import annotations

import dataclasses
import random
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from harness._errors import UsageError
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

    @property
    def command(self) -> str:
        """The command that replays the written scenario (as written: no quirk cases added)."""
        if self.path is None:
            return ""
        quirks = " --quirks=none" if self.layer == "driver" else ""
        return f"harness run {shlex.quote(str(self.path))} --adapter {shlex.quote(self.adapter)}{quirks}"

    def lines(self) -> list[str]:
        head = (
            f"explored {self.adapter} ({self.layer} layer): up to {self.max_examples} "
            f"generated scenarios, seed {self.seed}"
        )
        if self.found is None:
            return [head, "nothing found"]
        result = self.found
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

    def breaks(document: dict[str, Any]) -> bool:
        return replay(scenario_from_document(document), info, timeout=timeout).status in (
            "fail",
            "error",
        )

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
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_document(document, comments=comments), encoding="utf-8")
    again = replay(load_scenario(path), info, timeout=timeout)
    if again.status not in ("fail", "error"):
        raise UsageError(
            f"{path} failed while shrinking but passes when replayed on its own: the adapter "
            "does not answer the same scenario the same way twice"
        )
    return Exploration(
        info.name, info.layer, exploration.seed, exploration.max_examples, again, path
    )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:60] or "adapter"
