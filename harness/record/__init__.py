"""Recording provider traffic into cassettes: scrubbed, refused if a secret remains, with
streamed bodies kept as their events.

>>> import harness.record
>>> harness.record.PLACEHOLDER
'<scrubbed>'

``recording(path, mode=...)`` is the API; ``harness record`` the command; the pytest plugin
adds the ``harness_record`` marker and fixture (``harness.record.plugin``).
"""

from __future__ import annotations

from harness.record._vcr import (
    RECORD_MODES,
    CassetteNotWritten,
    Filter,
    NothingRecorded,
    recording,
    register,
)
from harness.record.scrub import (
    BUILTIN_PATTERNS,
    PLACEHOLDER,
    Finding,
    Scrubber,
    SecretPattern,
    SecretRefused,
)
from harness.record.serializer import split_body

__all__ = [
    "BUILTIN_PATTERNS",
    "PLACEHOLDER",
    "RECORD_MODES",
    "CassetteNotWritten",
    "Filter",
    "Finding",
    "NothingRecorded",
    "Scrubber",
    "SecretPattern",
    "SecretRefused",
    "recording",
    "register",
    "split_body",
]
