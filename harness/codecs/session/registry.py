"""Which session codecs exist: the bundled UI protocols, imported on first use, plus the ones
users register. A third protocol is one new module with a codec class, and one line below."""

from __future__ import annotations

import importlib

from harness._errors import UsageError
from harness._registry import Registry
from harness.codecs.session.base import SessionCodec

#: module and class of each bundled session codec, in the order ``session_codecs()`` lists them
BUNDLED_SESSION_CODECS: tuple[tuple[str, str], ...] = (
    ("harness.codecs.session.ag_ui", "AGUISessionCodec"),
    ("harness.codecs.session.ai_sdk_ui", "AISDKUISessionCodec"),
)

_bundled: dict[str, SessionCodec] | None = None
_registered: Registry[SessionCodec] = Registry("session codec")


def _bundled_codecs() -> dict[str, SessionCodec]:
    global _bundled
    if _bundled is None:
        made = [getattr(importlib.import_module(m), c)() for m, c in BUNDLED_SESSION_CODECS]
        _bundled = {codec.name: codec for codec in made}
    return _bundled


def session_codecs() -> dict[str, SessionCodec]:
    """Every known session codec by dialect name: the bundled ones, then the registered ones.
    A new dict each call."""
    return {**_bundled_codecs(), **_registered}


def register_session_codec(codec: SessionCodec) -> SessionCodec:
    """Make a UI protocol known as a session dialect: an adapter whose ``session_dialect`` is
    the codec's ``name`` is then fed the session library encoded by it. A name already known is
    a ``UsageError``; ``harness.scoped_registrations()`` forgets it at the end of a block."""
    name = getattr(codec, "name", None)
    if not isinstance(name, str) or not name:
        raise UsageError(
            f"{codec!r} is not a session codec: its 'name' should be a non-empty string"
        )
    missing = [
        m for m in ("can_express", "project", "encoder") if not callable(getattr(codec, m, None))
    ]
    if missing or not isinstance(getattr(codec, "profile", None), dict):
        raise UsageError(
            f"the session codec {name!r} needs a 'profile' dict and the methods can_express, "
            f"project and encoder (missing: {', '.join(missing) or 'profile'})"
        )
    if name in _bundled_codecs():
        raise UsageError(f"a session codec for the dialect {name!r} is bundled already")
    return _registered.add(name, codec)


def session_codec(name: str) -> SessionCodec:
    """The session codec of a dialect; a ``UsageError`` naming the known ones otherwise."""
    known = session_codecs()
    codec = known.get(name)
    if codec is None:
        raise UsageError(
            f"no session dialect {name!r}; the session dialects are {', '.join(known) or 'none'}"
        )
    return codec
