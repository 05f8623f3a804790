"""Extension by registration: a codec of one's own through ``register_codec`` or ``codecs=``, the
bundled codecs and adapters loaded on first use, and what ``import harness`` leaves unimported."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from textwrap import dedent
from typing import ClassVar

import pytest

import harness
from harness import (
    BUNDLED,
    AdapterInfo,
    ScenarioError,
    TurnEvent,
    UsageError,
    WireChunk,
    register_codec,
    replay,
    unregister_codec,
)
from harness.adapters.driver.reference import AnthropicDriver
from harness.adapters.registry import mutant_registrar
from harness.codecs import dialects
from harness.codecs.anthropic import AnthropicAgentCodec, AnthropicCodec
from harness.scenario import load_scenario, parse_scenario
from tests.scenarios_for_tests import parse_driver

ROOT = Path(__file__).resolve().parent.parent


PROXY_QUIRKS = {"proxy_banner": "a ': proxied' comment line before every event"}


class ProxyCodec:
    """A gateway in front of an agent's Anthropic event stream that prefixes every event with a
    comment line."""

    name = "anthropic-proxy"
    quirks = PROXY_QUIRKS

    def __init__(self) -> None:
        self.inner = AnthropicAgentCodec()

    def can_express(self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        return self.inner.can_express(turn, quirks)

    def encode(
        self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        banner = ": proxied\n" if "proxy_banner" in quirks else ""
        return tuple(
            WireChunk(banner + c.data, c.origin, c.carries) for c in self.inner.encode(turn, quirks)
        )

    def decode(self, body: str, *, source: str) -> tuple[TurnEvent, ...]:
        return self.inner.decode(body, source=source)


class ProxyDriver(AnthropicDriver):
    dialect = "anthropic-proxy"


class ProxyDriverEndingEarly(ProxyDriver):
    """Bug: the turn ends at the first message_stop, whatever the stop reason."""

    def drive(self, chunks: Iterator[str]) -> Iterator[harness.DriverOutput]:
        for output in super().drive(chunks):
            yield output
            if isinstance(output, harness.ToolCallOut):
                yield harness.TurnEnd("end_turn")
                return


PROXY = AdapterInfo("proxy-reference", "driver", "reference", ProxyDriver)
MULTI_CYCLE = ROOT / "scenarios" / "driver" / "multi-cycle-turn.yaml"
PINNED = dedent(
    """\
    id: proxied
    title: t
    description: d
    source: tests
    layer: driver
    dialects: [anthropic-proxy]
    quirks: [proxy_banner]
    trace:
      - cycle: {blocks: [{tool_use: {id: toolu_1, name: ls, input: {path: .}}}]}
      - cycle: {blocks: [{text: done}]}
    """
)


@pytest.fixture
def proxy_registered() -> Iterator[ProxyCodec]:
    codec = register_codec(ProxyCodec())
    yield codec
    unregister_codec(codec.name)


def test_a_registered_codec_is_known_to_the_loader_and_the_replay(
    proxy_registered: ProxyCodec,
) -> None:
    assert list(dialects())[-1] == "anthropic-proxy"
    assert dialects()["anthropic-proxy"] is proxy_registered
    scenario = parse_driver(PINNED, "proxied.yaml")
    assert scenario.quirks == ("proxy_banner",)
    assert replay(scenario, PROXY).status == "pass"
    caught = replay(scenario, AdapterInfo("early", "driver", "mutant", ProxyDriverEndingEarly))
    assert "turn-lifetime" in caught.rules_broken


def test_unregistering_forgets_the_codec() -> None:
    register_codec(ProxyCodec())
    unregister_codec("anthropic-proxy")
    assert "anthropic-proxy" not in dialects()
    with pytest.raises(ScenarioError, match="unknown dialect 'anthropic-proxy'"):
        parse_scenario(PINNED, "proxied.yaml")
    result = replay(load_scenario(MULTI_CYCLE), PROXY)
    assert result.status == "skip"
    assert (
        result.skip_reason and "no known dialect (dialect='anthropic-proxy'" in result.skip_reason
    )


def test_a_name_registered_twice_is_an_error_unless_replacing(proxy_registered: ProxyCodec) -> None:
    with pytest.raises(UsageError, match=r"'anthropic-proxy' is already known .*replace=True"):
        register_codec(ProxyCodec())
    again = register_codec(ProxyCodec(), replace=True)
    assert dialects()["anthropic-proxy"] is again


def test_replacing_a_bundled_codec_keeps_its_place_and_unregistering_restores_it() -> None:
    bundled = dialects()["anthropic"]
    order = list(dialects())
    with pytest.raises(UsageError, match=r"harness\.codecs\.anthropic\.AnthropicCodec"):
        register_codec(AnthropicCodec())
    mine = register_codec(AnthropicCodec(), replace=True)
    try:
        assert dialects()["anthropic"] is mine
        assert list(dialects()) == order
    finally:
        unregister_codec("anthropic")
    assert dialects()["anthropic"] is bundled


def test_unregistering_what_was_never_registered_is_an_error() -> None:
    with pytest.raises(UsageError, match="no codec named 'anthropic' was registered"):
        unregister_codec("anthropic")


class _NoDecode:
    name = "half"
    quirks: ClassVar[dict[str, str]] = {}

    def encode(self) -> None: ...

    def can_express(self) -> None: ...


@pytest.mark.parametrize(
    ("codec", "message"),
    [
        (object(), "its 'name' should be a non-empty string"),
        (type("Nameless", (), {"name": ""})(), "its 'name' should be a non-empty string"),
        (type("NoQuirks", (), {"name": "x"})(), "'quirks': a mapping of quirk name"),
        (_NoDecode(), "the codec 'half' has no decode method"),
    ],
)
def test_something_that_is_not_a_codec_is_refused(codec: object, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        # not a Codec on purpose: the refusal's message is what is checked
        register_codec(codec)  # type: ignore[type-var]
    with pytest.raises(UsageError, match=message):
        replay(load_scenario(MULTI_CYCLE), PROXY, codecs=[codec])  # type: ignore[list-item]
    assert list(dialects()) == [
        "anthropic",
        "anthropic-agent",
        "openai-chat",
        "openai-responses",
        "gemini-sse",
        "gemini-json-array",
        "ag-ui",
    ]


def test_codecs_given_to_one_replay_leave_no_trace() -> None:
    scenario = load_scenario(MULTI_CYCLE)
    assert replay(scenario, PROXY, codecs=[ProxyCodec()]).status == "pass"
    assert "anthropic-proxy" not in dialects()
    assert replay(scenario, PROXY).status == "skip"


def test_a_codec_given_to_a_replay_replaces_the_known_one_of_its_name() -> None:
    class Silent(AnthropicCodec):
        def can_express(self, turn: Sequence[TurnEvent], quirks: Iterable[str] = ()) -> str | None:
            return "this replay's anthropic codec carries nothing"

    result = replay(load_scenario(MULTI_CYCLE), "driver-anthropic-reference", codecs=[Silent()])
    assert (result.status, result.skip_reason) == (
        "skip",
        "this replay's anthropic codec carries nothing",
    )


# -- lazy loading ---------------------------------------------------------------------------------


def test_import_harness_imports_no_codec_and_no_mutant() -> None:
    code = "import harness, sys; print(sorted(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    modules = set(eval(done.stdout))  # a printed list of str
    assert "harness" in modules
    # the protocols and registries of both kinds of codec, and no codec
    assert {m for m in modules if m.startswith("harness.codecs.")} <= {
        "harness.codecs.base",
        "harness.codecs.registry",
        "harness.codecs.session",
        "harness.codecs.session.base",
        "harness.codecs.session.registry",
    }
    assert not {m for m in modules if m.startswith("harness.") and m.endswith(".mutants")}


def test_the_bundled_table_lists_each_layer_references_first() -> None:
    layers = [(info.layer, info.kind) for info in BUNDLED.values()]
    order = [("session", "reference"), ("session", "mutant"), ("history", "reference")]
    order += [("history", "mutant"), ("driver", "reference"), ("driver", "mutant")]
    assert sorted(layers, key=order.index) == layers
    assert set(layers) == set(order)
    drivers = [n for n, i in BUNDLED.items() if i.layer == "driver" and i.kind == "reference"]
    events = [f"driver-{name}-reference" for name in dialects()]
    events.append("driver-openai-chat-per-message-reference")  # a second driver of a dialect
    assert drivers == events + [n.replace("-reference", "-bytes-reference") for n in events]
    assert all(i.bug for i in BUNDLED.values() if i.kind == "mutant")
    assert all(name == info.name for name, info in BUNDLED.items())


def test_a_mutant_registrar_is_for_a_bundled_layer() -> None:
    with pytest.raises(UsageError, match="layer='transport' is not a layer"):
        mutant_registrar("transport")
