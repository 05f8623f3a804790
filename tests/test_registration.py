"""Extension by registration: every table refuses a name twice with a ``UsageError``, forgets
what a scope registered, and library adapters come from one table plus an entry-point group."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys
from pathlib import Path

import pytest

from harness._errors import UsageError
from harness._registry import Registry
from harness.adapters.driver.framing import BytesReading, JSONArrayFramer, SSEFramer, bytes_reading
from harness.adapters.driver.gemini import GeminiJSONArrayDriver
from harness.adapters.driver.reference import OpenAIChatDriver
from harness.adapters.libs import ENTRY_POINT_GROUP, LIBRARIES, Library, libraries
from harness.adapters.registry import BUNDLED, mutant_registrar
from harness.codecs import dialects, register_codec
from harness.codecs.anthropic import AnthropicCodec
from harness.rules import RULES, rule
from harness.scenario.session_steps import SESSION_STEPS, session_step


def test_each_table_refuses_a_name_twice_with_a_usage_error() -> None:
    with Registry.scoped():
        with pytest.raises(UsageError, match="a rule named 'backward-attachment' is already"):
            rule("backward-attachment", layer="session", statement="s", source="s")(lambda c: ())
        with pytest.raises(UsageError, match="a session step named 'message_start' is already"):
            session_step("message_start")(lambda r, f: [])
        with pytest.raises(UsageError, match="a codec for the dialect 'anthropic' is already"):
            register_codec(AnthropicCodec())
        assert "driver-mutant-anthropic-lenient-json" in BUNDLED  # its module loaded
        mutant = mutant_registrar("driver")
        with pytest.raises(UsageError, match="a driver mutant named 'driver-mutant-anthropic-"):
            mutant("anthropic-lenient-json", "again")(OpenAIChatDriver)
        with pytest.raises(UsageError, match="layer='transport' is not a layer"):
            mutant_registrar("transport")


def test_a_scope_forgets_what_was_registered_in_it_even_when_it_raises() -> None:
    before = (set(RULES), set(SESSION_STEPS), set(dialects()))

    class Renamed(AnthropicCodec):
        name = "anthropic-scoped"

    with pytest.raises(RuntimeError), Registry.scoped():
        rule("scoped-rule", layer="session", statement="s", source="s")(lambda c: ())
        session_step("scoped_step")(lambda r, f: [])
        register_codec(Renamed())
        assert "scoped-rule" in RULES and "anthropic-scoped" in dialects()
        raise RuntimeError
    assert (set(RULES), set(SESSION_STEPS), set(dialects())) == before


def test_a_scope_puts_back_what_was_removed_in_it() -> None:
    with Registry.scoped():
        del RULES["backward-attachment"]
    assert RULES["backward-attachment"].id == "backward-attachment"


def test_the_bytes_reading_references_are_made_from_the_events_reading_ones() -> None:
    twin = bytes_reading(OpenAIChatDriver)
    assert twin is bytes_reading(OpenAIChatDriver)  # made once
    assert twin.__name__ == "OpenAIChatBytesDriver" and issubclass(twin, OpenAIChatDriver)
    assert BUNDLED["driver-openai-chat-bytes-reference"].factory is twin
    # each frames what its dialect's codec writes
    assert type(twin().framer()) is SSEFramer
    assert type(bytes_reading(GeminiJSONArrayDriver)().framer()) is JSONArrayFramer


def test_a_bytes_reading_driver_frames_by_its_codecs_media_type() -> None:
    class Lines(AnthropicCodec):
        name = "anthropic-lines"
        content_type = "application/x-ndjson"

    class Odd(BytesReading, OpenAIChatDriver):
        dialect = "no-such-dialect"

    assert type(Odd().framer()) is SSEFramer  # no codec says otherwise
    with Registry.scoped():
        register_codec(Lines())
        Odd.dialect = "anthropic-lines"
        with pytest.raises(UsageError, match=r"no framer for .*'anthropic-lines'.*x-ndjson"):
            Odd().framer()


def test_every_bundled_mutant_module_is_loaded_without_a_bottom_import() -> None:
    source = Path("harness/adapters/driver/mutants.py").read_text(encoding="utf-8")
    assert "framing_mutants" not in source
    assert "driver-mutant-gemini-decodes-each-read" in BUNDLED


def test_the_sdk_replay_table_is_read_off_the_libraries() -> None:
    from harness.wirereplay import SDKS

    routed = {library.replays.dialect: library for library in LIBRARIES if library.replays}
    assert set(SDKS) == set(routed) == {"anthropic", "openai-chat", "openai-responses"}
    for dialect, sdk in SDKS.items():
        assert sdk.module == routed[dialect].adapter.partition(":")[0]


def _installed_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A distribution on sys.path whose entry point in our group names ``value``."""
    (tmp_path / "extra_libraries.py").write_text(
        "from harness.adapters.libs import Library\n"
        "ONE = Library('my-client', 'extra_libraries:make', ('json',), ('pytest',))\n"
        "TWO = [Library('a-client', 'x:y', ('json',), ('pytest',)), ONE]\n"
        "CLASH = Library('anthropic', 'z:w', ('json',), ('pytest',))\n"
        "NOT_ONE = 42\n",
        encoding="utf-8",
    )
    info = tmp_path / "extra_libraries-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: extra-libraries\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nmine = extra_libraries:{value}\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "extra_libraries", raising=False)


def test_a_library_kept_outside_the_package_joins_through_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert libraries() == LIBRARIES
    _installed_package(tmp_path, monkeypatch, "TWO")
    found = libraries()
    assert found[: len(LIBRARIES)] == LIBRARIES
    assert [lib.name for lib in found[len(LIBRARIES) :]] == ["a-client", "my-client"]
    assert found[-1].version() == importlib.metadata.version("pytest")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NOT_ONE", r"'mine' \(extra_libraries:NOT_ONE\) should name a .*Library.*it names int"),
        ("CLASH", "two libraries are named 'anthropic'"),
        ("MISSING", r"'mine' \(extra_libraries:MISSING\) cannot be loaded: AttributeError"),
    ],
)
def test_a_wrong_entry_point_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    _installed_package(tmp_path, monkeypatch, value)
    with pytest.raises(UsageError, match=message):
        libraries()


def test_a_node_library_is_installed_when_node_resolves_its_packages() -> None:
    if shutil.which("node") is None and not os.environ.get("CI"):
        pytest.skip("node is not installed (CI installs it)")
    builtin = Library("n", "exec:node x.mjs", ("node:fs",), ("node:fs",), runtime="node")
    missing = Library("m", "exec:node x.mjs", ("no-such-package-anywhere",), ("x",), runtime="node")
    assert builtin.installed()
    assert not missing.installed() and missing.version() is None
