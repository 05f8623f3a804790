"""Adapters: the bundled reference consumers and mutants, and the contract users implement."""

from harness.adapters.protocol import SessionAdapter, adapter_layers
from harness.adapters.registry import BUNDLED, AdapterInfo, resolve_adapter
from harness.adapters.session.reference import ReferenceSessionConsumer

__all__ = [
    "BUNDLED",
    "AdapterInfo",
    "ReferenceSessionConsumer",
    "SessionAdapter",
    "adapter_layers",
    "resolve_adapter",
]
