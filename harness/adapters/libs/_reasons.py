"""A library's stop reason as a turn end: mapped onto the canonical reasons where it names one,
and 'unknown' where the library gives none (rather than a reason made up for it)."""

from __future__ import annotations

from collections.abc import Mapping

from harness.model.driver import UNKNOWN_REASON, TurnEnd


def turn_end(reason: object, names: Mapping[str, str]) -> TurnEnd:
    """The turn end for the library's ``reason``: its canonical name, the reason as it is for
    one ``names`` does not know, or the unknown reason when the library says nothing."""
    if reason is None or reason == "":
        return TurnEnd(UNKNOWN_REASON)
    text = str(getattr(reason, "value", reason))
    return TurnEnd(names.get(text, text))
