"""Which codecs exist: the bundled dialects, imported on first use, plus the ones users register."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import TypeVar

from harness._errors import UsageError
from harness._registry import Registry
from harness.codecs.base import Codec

#: module and class of each bundled codec, in the order ``dialects()`` lists them
BUNDLED_CODECS: tuple[tuple[str, str], ...] = (
    ("harness.codecs.anthropic", "AnthropicCodec"),
    ("harness.codecs.anthropic", "AnthropicAgentCodec"),
    ("harness.codecs.openai_chat", "OpenAIChatCodec"),
    ("harness.codecs.openai_responses", "OpenAIResponsesCodec"),
    ("harness.codecs.gemini", "GeminiSSECodec"),
    ("harness.codecs.gemini", "GeminiArrayCodec"),
    ("harness.codecs.ag_ui", "AGUICodec"),
)

_C = TypeVar("_C", bound=Codec)
_bundled: dict[str, Codec] | None = None
#: the codecs users registered (``replace=True`` may shadow a bundled name, which ``add`` cannot
#: know of: ``register_codec`` checks the names itself)
_registered: Registry[Codec] = Registry("codec")


def _bundled_codecs() -> dict[str, Codec]:
    global _bundled
    if _bundled is None:
        codecs = [getattr(importlib.import_module(m), c)() for m, c in BUNDLED_CODECS]
        _bundled = {codec.name: codec for codec in codecs}
    return _bundled


def registered() -> tuple[str, ...]:
    """The names of the codecs registered in this process (not bundled ones)."""
    return tuple(_registered)


def dialects() -> dict[str, Codec]:
    """Every known codec by dialect name: the bundled ones, then the registered ones (a codec
    registered with ``replace=True`` over a bundled one takes its place). A new dict each call."""
    return {**_bundled_codecs(), **_registered}


def register_codec(codec: _C, *, replace: bool = False) -> _C:
    """Make a dialect known to the scenario loader, the replayer and the pytest plugin.

    Register before scenarios are loaded (a scenario's ``dialects:`` and ``quirks:`` are checked
    when it is loaded), e.g. at the top of your ``conftest.py``::

        from harness import register_codec
        from my_project.testing import GatewayCodec

        register_codec(GatewayCodec())

    A driver adapter whose ``dialect`` is the codec's ``name`` is then fed the library's driver
    scenarios encoded by it. A name already known is a ``UsageError``; ``replace=True`` replaces
    that codec (bundled or registered). Returns the codec; ``unregister_codec(name)`` undoes it.
    """
    name = _checked(codec).name
    known = dialects().get(name)
    if known is not None and not replace:
        raise UsageError(
            f"a codec for the dialect {name!r} is already known "
            f"({type(known).__module__}.{type(known).__qualname__}); "
            "pass replace=True to replace it, or give your codec another name"
        )
    _registered[name] = codec
    return codec


def unregister_codec(name: str) -> None:
    """Forget a codec ``register_codec`` added (a bundled dialect it replaced comes back)."""
    _registered.remove(name)


def with_codecs(codecs: Iterable[Codec] | None) -> dict[str, Codec]:
    """``dialects()`` with these codecs added, each replacing a known one of the same name."""
    known = dialects()
    for codec in codecs or ():
        known[codec.name] = _checked(codec)
    return known


def _checked(codec: object) -> Codec:
    name = getattr(codec, "name", None)
    if not isinstance(name, str) or not name:
        raise UsageError(f"{codec!r} is not a codec: its 'name' should be a non-empty string")
    quirks = getattr(codec, "quirks", None)
    if not isinstance(quirks, Mapping) or not all(isinstance(q, str) for q in quirks):
        raise UsageError(
            f"the codec {name!r} should have 'quirks': a mapping of quirk name to description"
        )
    missing = [
        m for m in ("encode", "decode", "can_express") if not callable(getattr(codec, m, None))
    ]
    if missing:
        raise UsageError(f"the codec {name!r} has no {', '.join(missing)} method")
    return codec  # type: ignore[return-value]
