"""The per-call time limit: what counts against it, and what a timeout says the adapter was doing."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from textwrap import dedent

import pytest

from harness.adapters.registry import AdapterInfo, resolve_adapter
from harness.model.driver import DriverOutput, TextOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "scenarios/session/tool-first-turn.yaml"
DRIVER = ROOT / "scenarios/driver/recorded-anthropic-tool-use.yaml"


def slow_library(tmp_path: Path, modules: int, seconds: float) -> str:
    """A fresh package whose import loads ``modules`` modules taking ``seconds`` each."""
    name = f"slowlib_{uuid.uuid4().hex}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(
        "".join(f"from {name} import part{i}  # noqa\n" for i in range(modules))
    )
    for i in range(modules):
        (package / f"part{i}.py").write_text(f"import time\ntime.sleep({seconds})\n")
    return name


def adapter_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    """An adapter module on the path, written as a user would, imported (as ``--adapter``
    does) before any replay; its factory is what the replay calls."""
    name = f"adapter_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:make_adapter"


@pytest.mark.slow
def test_a_factory_importing_its_library_is_not_timed_out(tmp_path, monkeypatch):
    library = slow_library(tmp_path, modules=10, seconds=0.15)  # 1.5 s in all, 0.15 s a module
    reference = adapter_module(
        tmp_path,
        monkeypatch,
        f"""\
        from harness.adapters.session.reference import ReferenceSessionConsumer

        def make_adapter():
            import {library}  # the library is imported when the adapter is made, like require()
            return ReferenceSessionConsumer()
        """,
    )
    result = replay(load_scenario(SESSION), resolve_adapter(reference), timeout=0.6)
    assert (result.status, result.error) == ("pass", None)


@pytest.mark.slow
def test_a_driver_importing_its_library_on_its_first_call_is_not_timed_out(tmp_path, monkeypatch):
    library = slow_library(tmp_path, modules=10, seconds=0.15)
    reference = adapter_module(
        tmp_path,
        monkeypatch,
        f"""\
        from harness.adapters.driver.reference import AnthropicDriver

        class Driver(AnthropicDriver):
            def drive(self, chunks):
                import {library}  # as an SDK wrapper does on its first stream
                yield from super().drive(chunks)

        def make_adapter():
            return Driver()
        """,
    )
    result = replay(load_scenario(DRIVER), resolve_adapter(reference), timeout=0.6)
    assert (result.status, result.error) == ("pass", None)


def test_a_module_that_never_finishes_loading_is_still_a_hang(tmp_path, monkeypatch):
    library = slow_library(tmp_path, modules=1, seconds=4)
    reference = adapter_module(
        tmp_path,
        monkeypatch,
        f"""\
        def make_adapter():
            import {library}
        """,
    )
    result = replay(load_scenario(SESSION), resolve_adapter(reference), timeout=0.3)
    assert result.status == "error"
    assert result.error == "the adapter did not return within 0.3s: creating the adapter"


class Stalls:
    """A driver that stops (on an event nobody sets) after reading ``reads`` chunks."""

    layers = ("driver",)
    dialect = "anthropic"

    def __init__(self, reads: int) -> None:
        self.before_stalling = reads  # not ``reads``: that says how the driver reads

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        for _ in range(self.before_stalling):
            next(chunks)
        threading.Event().wait(2)
        yield TextOut("late")
        yield TurnEnd("end_turn")


def stalls(reads: int) -> Callable[[], object]:
    return lambda: Stalls(reads)


@pytest.mark.parametrize(
    ("reads", "says"),
    [
        (0, "drive() had not read a chunk: it neither asked for the first nor yielded"),
        (3, "drive() was handling chunk 3 of the stream (it had read 3 chunks"),
    ],
)
def test_a_timeout_says_where_in_the_stream_the_driver_stopped(reads, says):
    info = AdapterInfo("stalls", "driver", "external", stalls(reads))
    result = replay(load_scenario(DRIVER), info, timeout=0.3)
    assert result.status == "error" and result.error is not None
    assert says in result.error
    assert "-1" not in result.error
