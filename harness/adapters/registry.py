"""Bundled adapters by name, and ``MODULE:FACTORY`` references to users' adapters."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from harness._errors import UsageError
from harness._registry import Registry

Kind = Literal["reference", "mutant", "external"]
_T = TypeVar("_T", bound=type)
_A = TypeVar("_A")


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


#: Per layer, in the order ``harness adapters`` lists them: the reference consumers
#: (``module:Class``); for the driver layer each of them again reading the body's bytes
#: (``framing.bytes_reading``); then the mutants that ``@mutant`` registers in the layer's
#: ``_MUTANT_MODULES``.
_REFERENCES: dict[str, tuple[str, ...]] = {
    "session": (
        "harness.adapters.session.reference:ReferenceSessionConsumer",
        # consumers of UI protocols (session dialects): named after the protocol
        "harness.adapters.session.ag_ui_reference:ReferenceAGUIConsumer",
        "harness.adapters.session.ai_sdk_ui_reference:ReferenceAISDKUIConsumer",
    ),
    "history": (
        "harness.adapters.history.reference:ReferenceHistoryStore",
        "harness.adapters.history.reference:OpenAIReferenceHistoryStore",
    ),
    "driver": (
        "harness.adapters.driver.reference:AnthropicDriver",
        "harness.adapters.driver.reference:AnthropicAgentDriver",
        "harness.adapters.driver.reference:OpenAIChatDriver",
        "harness.adapters.driver.openai_responses:OpenAIResponsesDriver",
        "harness.adapters.driver.gemini:GeminiDriver",
        "harness.adapters.driver.gemini:GeminiJSONArrayDriver",
        "harness.adapters.driver.ag_ui:AGUIDriver",
        # a second driver of a dialect: named after what it does differently
        "harness.adapters.driver.reference:OpenAIChatMessageDriver",
    ),
}

#: Per layer, the modules whose ``@mutant`` classes are its bundled mutants, in listing order
_MUTANT_MODULES: dict[str, tuple[str, ...]] = {
    "session": (
        "harness.adapters.session.mutants",
        "harness.adapters.session.flag_mutants",
        "harness.adapters.session.collision_mutants",
        "harness.adapters.session.comparison_mutants",
        "harness.adapters.session.ag_ui_mutants",
        "harness.adapters.session.ai_sdk_ui_mutants",
    ),
    "history": (
        "harness.adapters.history.mutants",
        "harness.adapters.history.request_mutants",
        "harness.adapters.history.comparison_mutants",
    ),
    "driver": (
        "harness.adapters.driver.mutants",
        "harness.adapters.driver.framing_mutants",
        "harness.adapters.driver.chunk_mutants",
        "harness.adapters.driver.text_mutants",
        "harness.adapters.driver.interleave_mutants",
        "harness.adapters.driver.turn_end_mutants",
        "harness.adapters.driver.id_mutants",
        "harness.adapters.driver.error_mutants",
    ),
}

#: layer -> the mutants registered so far by name, in definition order
_MUTANTS: dict[str, Registry[AdapterInfo]] = {
    layer: Registry(f"{layer} mutant") for layer in _REFERENCES
}


def mutant_registrar(layer: str) -> Callable[[str, str], Callable[[_T], _T]]:
    """The ``@mutant(name, bug)`` decorator of one layer's mutants module: the class becomes
    the bundled adapter ``LAYER-mutant-NAME``, whose bug is that one sentence."""
    if layer not in _MUTANTS:
        raise UsageError(f"{layer=} is not a layer with bundled adapters")

    def mutant(name: str, bug: str) -> Callable[[_T], _T]:
        def register(cls: _T) -> _T:
            full = f"{layer}-mutant-{name}"
            _MUTANTS[layer].add(full, AdapterInfo(full, layer, "mutant", cls, bug))
            return cls

        return register

    return mutant


def _load_bundled() -> dict[str, AdapterInfo]:
    out: dict[str, AdapterInfo] = {}
    for layer, references in _REFERENCES.items():
        classes = [_imported(reference) for reference in references]
        if layer == "driver":
            from harness.adapters.driver.framing import bytes_reading

            classes += [bytes_reading(cls) for cls in classes]
        for cls in classes:
            dialect = getattr(cls, "dialect", None) or getattr(cls, "session_dialect", None)
            reads = getattr(cls, "reads", "events")
            emits = getattr(cls, "emits_calls", "per-call")
            if dialect and emits != "per-call":
                dialect = f"{dialect}-{emits}"  # a driver passing calls on later
            if dialect and reads != "events":
                dialect = f"{dialect}-{reads}"  # the same driver reading bytes
            name = f"{layer}-{dialect}-reference" if dialect else f"{layer}-reference"
            out[name] = AdapterInfo(name, layer, "reference", cls)
        for module in _MUTANT_MODULES[layer]:
            importlib.import_module(module)
        out.update(_MUTANTS[layer])
    return out


def _imported(reference: str) -> type:
    module, _, attr = reference.partition(":")
    cls: type = getattr(importlib.import_module(module), attr)
    return cls


class _Bundled(Mapping[str, AdapterInfo]):
    """The bundled adapters by name; their modules are imported the first time it is read."""

    def __init__(self) -> None:
        self._table: dict[str, AdapterInfo] | None = None

    @property
    def table(self) -> dict[str, AdapterInfo]:
        if self._table is None:
            self._table = _load_bundled()
        return self._table

    def __getitem__(self, name: str) -> AdapterInfo:
        return self.table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return f"BUNDLED({', '.join(self.table)})"


BUNDLED: Mapping[str, AdapterInfo] = _Bundled()


def resolve_adapter(reference: str) -> AdapterInfo:
    """A bundled adapter's name, ``package.module:factory`` naming a callable, or
    ``exec:COMMAND`` for a consumer in another process (see ``harness.adapters.process``)."""
    if reference.startswith("exec:"):
        from harness.adapters.process import process_factory

        return AdapterInfo(reference, "session", "external", process_factory(reference[5:]))
    if ":" not in reference:  # a bundled name never has one: users' adapters load none of them
        if reference in BUNDLED:
            return BUNDLED[reference]
        close = difflib.get_close_matches(reference, list(BUNDLED), n=1)
        if close:
            raise UsageError(f"unknown adapter {reference!r}; did you mean {close[0]!r}?")
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


def check_adapter(info: AdapterInfo, timeout: float = 10.0) -> None:
    """Raise ``UsageError`` when the adapter cannot be used at all: an ``exec:`` process that
    exits, hangs or answers nonsense at hello. Every scenario would fail alike, so the command
    line and the plugin say it once, before anything runs."""
    from harness.adapters.process import ProcessFactory

    if isinstance(info.factory, ProcessFactory):
        info.factory.check(timeout)


def adapter_dialect(info: AdapterInfo) -> str | None:
    """The dialect a driver adapter reads (its ``dialect``); None when it names none, or when
    making one fails: the replay then says why, case by case."""
    return declared(info, "dialect")


def declared_layers(info: AdapterInfo) -> tuple[str, ...]:
    """The layers the adapter declares (``layers``), asked of its factory or, for a factory
    function, which says nothing of them until it makes one, of one adapter it makes;
    ``(info.layer,)`` when neither answers."""
    from harness.adapters.protocol import adapter_layers

    if getattr(info.factory, "layers", None) is not None:  # a class, or an exec: process's hello
        return adapter_layers(info.factory) or (info.layer,)
    return _asked_of_one(info, adapter_layers) or (info.layer,)


def declared(info: AdapterInfo, name: str) -> str | None:
    """A string attribute the adapter declares (``dialect``, ``reads``): its factory's when that
    is a class attribute, else one instance's; None when it has none, or making one fails."""
    value = getattr(info.factory, name, None)
    if not isinstance(value, str) and not info.name.startswith("exec:"):
        value = _asked_of_one(info, lambda adapter: getattr(adapter, name, None))
    return value if isinstance(value, str) else None


def declared_requests(info: AdapterInfo) -> frozenset[str]:
    """The request options a driver adapter declares its requests ask for (``asks_for``), which
    make servers send shapes they send only on request; none when it declares none."""
    value = getattr(info.factory, "asks_for", None)
    if value is None and not info.name.startswith("exec:"):
        value = _asked_of_one(info, lambda adapter: getattr(adapter, "asks_for", None))
    return asked_for(value)


def asked_for(value: object) -> frozenset[str]:
    """An ``asks_for`` declaration as a set of request options (a lone string is one)."""
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, (tuple, list, set, frozenset)):
        return frozenset(v for v in value if isinstance(v, str))
    return frozenset()


def _asked_of_one(info: AdapterInfo, question: Callable[[object], _A]) -> _A | None:
    """What ``question`` answers of one adapter the factory makes, closed again afterwards;
    None when making it fails (the replay says what making it raised)."""
    try:
        instance = info.factory()
    except Exception:
        return None
    try:
        return question(instance)
    finally:
        close = getattr(instance, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
