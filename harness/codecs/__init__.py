"""Codecs: a canonical turn to a provider's wire chunks and back.

A wire chunk is the raw text of one server-sent event as the HTTP body carries it; a driver
under test reads them one by one. Each chunk remembers the canonical event it came from, so a
rule can say which event a driver was at.

Quirks are data: names a scenario lists, each a behaviour real servers have (each codec's
``quirks`` says which it knows).

The bundled codecs are imported on first use of ``dialects()``; ``register_codec`` adds one of
your own (``examples/custom-dialect`` is a complete project doing so).
"""

from harness.codecs.base import Codec, need
from harness.codecs.registry import dialects, register_codec, unregister_codec
from harness.model.driver import WireChunk

__all__ = ["Codec", "WireChunk", "dialects", "need", "register_codec", "unregister_codec"]
