"""The per-message Chat Completions reference driver with one bug about parallel calls whose
argument fragments interleave across indices."""

from __future__ import annotations

from typing import Any

from harness.adapters.driver.reference import OpenAIChatMessageDriver
from harness.adapters.registry import mutant_registrar

mutant = mutant_registrar("driver")


@mutant(
    "openai-fragment-to-last-call",
    "A delta with a call id starts a call and every fragment without one is appended to the "
    "call started last, whatever its index (the calls are passed on when the message ends), "
    "so when parallel calls' fragments interleave the earlier calls' arguments go to the last.",
)
class FragmentToLastCall(OpenAIChatMessageDriver):
    def gather(self, call: dict[str, Any]) -> None:
        if not call.get("id"):
            call = {k: v for k, v in call.items() if k != "index"}  # the bug: to the last call
        super().gather(call)
