"""Session codecs: UI protocols (AG-UI, the AI SDK UI message stream) as dialects of the session
layer. ``base.py`` says what one is; ``registry.py`` which exist."""

from harness.codecs.session.base import CannotExpress, RuleUse, SessionCodec, SessionEncoder
from harness.codecs.session.registry import (
    register_session_codec,
    session_codec,
    session_codecs,
)

__all__ = [
    "CannotExpress",
    "RuleUse",
    "SessionCodec",
    "SessionEncoder",
    "register_session_codec",
    "session_codec",
    "session_codecs",
]
