"""The public surface: ``harness.__all__``, and the adapter protocols the bundled adapters follow."""

from __future__ import annotations

import inspect
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest

import harness
from harness import (
    AsyncDriverAdapter,
    AsyncHistoryAdapter,
    AsyncSessionAdapter,
    DriverAdapter,
    DriverOutput,
    HistoryAdapter,
    SessionAdapter,
    TextOut,
)
from harness.adapters.history.reference import ReferenceHistoryStore
from harness.adapters.protocol import UIProtocolAdapter, adapter_layers
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.library import library_path
from harness.model.session import SessionEvent
from harness.replay import replay
from harness.scenario import load_scenario
from tests.adapters_for_tests import AsyncReference


def _isort_key(name: str) -> tuple[int, str]:
    """The order ruff keeps ``__all__`` in: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted() -> None:
    assert harness.__all__ == sorted(harness.__all__, key=_isort_key)


def test_every_name_in_all_resolves_and_every_public_name_is_in_it() -> None:
    for name in harness.__all__:
        assert getattr(harness, name) is not None, name
    public = {
        name
        for name, value in vars(harness).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(harness.__all__)


def test_a_driver_can_emit_with_the_exported_types() -> None:
    from harness.model.driver import coerce_output

    for item in (
        harness.TextOut("hi"),
        harness.ToolCallOut("c1", "f", "{}", True),
        harness.TurnEnd("end_turn"),
    ):
        assert coerce_output(item, 0) is item


SYNC = {"session": SessionAdapter, "history": HistoryAdapter, "driver": DriverAdapter}
ASYNC = {
    "session": AsyncSessionAdapter,
    "history": AsyncHistoryAdapter,
    "driver": AsyncDriverAdapter,
}
REFERENCES = [info for info in BUNDLED.values() if info.kind == "reference"]


@pytest.mark.parametrize("info", REFERENCES, ids=lambda info: info.name)
def test_each_bundled_reference_satisfies_its_layers_protocol(info) -> None:
    adapter = info.factory()
    assert adapter_layers(adapter) == (info.layer,)
    if getattr(adapter, "session_dialect", None) is not None:  # a UI protocol's consumer
        assert isinstance(adapter, UIProtocolAdapter)
        assert not inspect.iscoroutinefunction(adapter.feed)
        return
    assert isinstance(adapter, SYNC[info.layer])
    # isinstance sees only that the methods exist; the sync form is what the replayer sees too
    method = getattr(adapter, "drive" if info.layer == "driver" else "feed")
    assert not inspect.iscoroutinefunction(method)
    assert not inspect.isasyncgenfunction(method)
    others = {protocol for layer, protocol in SYNC.items() if layer != info.layer}
    assert not any(isinstance(adapter, protocol) for protocol in others)


class AsyncEcho:
    layers = ("driver",)
    dialect = "anthropic"

    async def drive(self, chunks: AsyncIterator[str]) -> AsyncIterator[DriverOutput]:
        async for chunk in chunks:
            yield TextOut(chunk)


class AsyncStore:
    """The reference store behind async methods (``request`` stays sync: either form is fine)."""

    layers = ("history",)

    def __init__(self) -> None:
        self.inner = ReferenceHistoryStore()

    async def feed(self, event: SessionEvent) -> None:
        self.inner.feed(event)

    async def history(self, session_id: str) -> list[dict[str, Any]]:
        return self.inner.history(session_id)

    def request(self, session_id: str) -> list[dict[str, Any]]:
        return self.inner.request(session_id)

    async def rebuild(self, session_id: str) -> list[Any]:
        return self.inner.rebuild(session_id)


def test_the_async_forms_are_what_the_replayer_takes_as_async() -> None:
    session, store, driver = AsyncReference(), AsyncStore(), AsyncEcho()
    for adapter, protocol in zip((session, store, driver), ASYNC.values(), strict=True):
        assert isinstance(adapter, protocol)
    assert inspect.iscoroutinefunction(session.feed)
    assert inspect.iscoroutinefunction(store.feed)
    assert inspect.isasyncgenfunction(driver.drive)
    scenario = load_scenario(library_path() / "history" / "cancel-parallel-one-completed.yaml")
    info = AdapterInfo("async-store", "history", "external", AsyncStore)
    assert replay(scenario, info).status == "pass"
