"""Bundled adapters by name, and ``MODULE:FACTORY`` references to users' adapters."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harness._errors import UsageError
from harness.adapters.driver.ag_ui import AGUIDriver
from harness.adapters.driver.gemini import GeminiDriver, GeminiJSONArrayDriver
from harness.adapters.driver.mutants import DRIVER_MUTANTS
from harness.adapters.driver.openai_responses import OpenAIResponsesDriver
from harness.adapters.driver.reference import AnthropicDriver, OpenAIChatDriver
from harness.adapters.history.mutants import HISTORY_MUTANTS
from harness.adapters.history.reference import ReferenceHistoryStore
from harness.adapters.session.mutants import SESSION_MUTANTS
from harness.adapters.session.reference import ReferenceSessionConsumer

Kind = Literal["reference", "mutant", "external"]


@dataclass(frozen=True, slots=True)
class AdapterInfo:
    name: str
    layer: str
    kind: Kind
    factory: Callable[[], object]
    bug: str | None = None

    def to_json(self) -> dict[str, str]:
        data = {"name": self.name, "layer": self.layer, "kind": self.kind}
        if self.bug is not None:
            data["bug"] = self.bug
        return data


def _bundled() -> dict[str, AdapterInfo]:
    out = {
        "session-reference": AdapterInfo(
            "session-reference", "session", "reference", ReferenceSessionConsumer
        )
    }
    for name, (cls, bug) in SESSION_MUTANTS.items():
        full = f"session-mutant-{name}"
        out[full] = AdapterInfo(full, "session", "mutant", cls, bug)
    out["history-reference"] = AdapterInfo(
        "history-reference", "history", "reference", ReferenceHistoryStore
    )
    for name, (history_cls, bug) in HISTORY_MUTANTS.items():
        full = f"history-mutant-{name}"
        out[full] = AdapterInfo(full, "history", "mutant", history_cls, bug)
    drivers = (
        AnthropicDriver,
        OpenAIChatDriver,
        OpenAIResponsesDriver,
        GeminiDriver,
        GeminiJSONArrayDriver,
        AGUIDriver,
    )
    for driver in drivers:
        full = f"driver-{driver.dialect}-reference"
        out[full] = AdapterInfo(full, "driver", "reference", driver)
    for name, (driver_cls, bug) in DRIVER_MUTANTS.items():
        full = f"driver-mutant-{name}"
        out[full] = AdapterInfo(full, "driver", "mutant", driver_cls, bug)
    return out


BUNDLED: dict[str, AdapterInfo] = _bundled()


def resolve_adapter(reference: str) -> AdapterInfo:
    """A bundled adapter's name, ``package.module:factory`` naming a callable, or
    ``exec:COMMAND`` for a consumer in another process (see ``harness.adapters.process``)."""
    if reference in BUNDLED:
        return BUNDLED[reference]
    if reference.startswith("exec:"):
        from harness.adapters.process import process_factory

        return AdapterInfo(reference, "session", "external", process_factory(reference[5:]))
    if ":" not in reference:
        known = ", ".join(sorted(BUNDLED))
        raise UsageError(
            f"unknown adapter {reference!r}: give a bundled adapter's name ({known}), "
            "MODULE:FACTORY (e.g. my_project.testing:make_adapter) or exec:COMMAND"
        )
    module_name, _, attr = reference.partition(":")
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import the adapter module {module_name!r}: {exc}") from None
    except Exception as exc:
        raise UsageError(
            f"importing the adapter module {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise UsageError(f"the module {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise UsageError(f"{reference} is not callable; it should make an adapter")
    layer = getattr(target, "layers", ("session",))
    return AdapterInfo(
        reference, layer[0] if isinstance(layer, tuple) else str(layer), "external", target
    )
