"""The reference Chat Completions driver with a bug in the id it gives a call whose id changes
mid-stream: it may keep the first id or the last, but not one of its own making."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import OpenAIChatDriver
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput

mutant = mutant_registrar("driver")


@mutant(
    "openai-chat-joins-changed-ids",
    "Every id a call's chunks carry is appended to the call's id (as a string accumulator "
    "does), so a call whose id changes or repeats mid-stream gets an id the server never gave.",
)
class JoinsChangedIds(OpenAIChatDriver):
    def call_delta(self, call: dict[str, Any]) -> Iterator[DriverOutput]:
        key = call.get("index")
        known = self.by_index.get(key) if key is not None else self.current
        yield from super().call_delta(call)
        function = call.get("function") or {}
        if (
            known is not None
            and known is self.current
            and call.get("id")
            and not function.get("name")
        ):
            known["id"] += call["id"]  # the bug: the continuation's id joined onto the first
