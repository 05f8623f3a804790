"""pytest: record or replay a test's HTTP traffic into a scrubbed cassette.

Mark a test ``@pytest.mark.harness_record`` (or ask for the ``harness_recording`` fixture) and
its traffic goes to ``cassettes/{module}/{test}.yaml`` beside the test file, as with
pytest-recording. The record mode, first match wins: ``--record-mode`` on the command line; the
marker's ``record_mode=``; ``record_mode`` in a ``vcr_config`` fixture; ``none``, so that CI
never reaches the network by accident.

With pytest-recording installed this plugin does not add a second ``--record-mode`` (it reads
that one), merges its ``vcr_config`` fixture into each recording (its filters run first; ours
still scrub and refuse) and registers the ``harness`` serializer on its VCR, so that
``@pytest.mark.vcr`` tests may write the events format too (``serializer: "harness"``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from harness.record import _vcr

#: pytest-recording's record modes (``rewrite``: delete the cassette, then record new episodes)
RECORD_MODES = (*_vcr.RECORD_MODES, "rewrite")
#: pytest-recording's plugin names (its entry point; its module when given with -p)
_RECORDING_PLUGINS = ("recording", "pytest_recording.plugin")


def _pytest_recording_present(pluginmanager: pytest.PytestPluginManager) -> bool:
    """Whether pytest-recording is (or is about to be) registered, so owns ``--record-mode``."""
    if any(pluginmanager.has_plugin(name) for name in _RECORDING_PLUGINS):
        return True
    if any(pluginmanager.is_blocked(name) for name in _RECORDING_PLUGINS):
        return False
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False  # then only -p loads it, and -p plugins are registered before this one
    return any(point.name == "recording" for point in entry_points(group="pytest11"))


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if _pytest_recording_present(pluginmanager):
        return
    parser.getgroup("recording").addoption(
        "--record-mode",
        action="store",
        default=None,
        choices=RECORD_MODES,
        help='record mode of harness_record tests (default "none": replay only)',
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "harness_record(path=None, *, record_mode=None, patterns=(), filters=(), "
        "scrub_headers=(), scrub_query=()): record or replay the test's HTTP traffic into a "
        "scrubbed cassette (default cassettes/{module}/{test}.yaml beside the test file)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # pytest-recording's autouse ``vcr`` fixture needs a module (its cassette folder is
    # module-scoped); items collected from YAML scenarios have none, and record nothing
    for item in items:
        names = getattr(item, "fixturenames", None)
        if names is None or "vcr" not in names or item.getparent(pytest.Module) is not None:
            continue
        for name in ("vcr", "vcr_cassette_dir"):
            if name in names:
                names.remove(name)


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    """pytest-recording's hook: its VCR learns the ``harness`` serializer."""
    from harness.record._vcr import register

    register(vcr)


@pytest.fixture(autouse=True)
def _harness_record_marker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("harness_record") is not None:
        request.getfixturevalue("harness_recording")


@pytest.fixture
def harness_recording(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Records or replays the test's HTTP traffic; yields vcrpy's ``Cassette``. The
    ``harness_record`` marker's arguments configure it."""
    from harness.record._vcr import recording

    marker = request.node.get_closest_marker("harness_record")
    options = dict(marker.kwargs) if marker is not None else {}
    try:
        vcr_config = dict(request.getfixturevalue("vcr_config"))
    except pytest.FixtureLookupError:
        vcr_config = {}
    mode = (
        request.config.getoption("record_mode", None)
        or options.pop("record_mode", None)
        or vcr_config.get("record_mode")
        or "none"
    )
    options.pop("record_mode", None)
    path = Path(marker.args[0]) if marker is not None and marker.args else default_path(request)
    if not path.is_absolute():
        path = Path(request.node.path).parent / path
    if mode == "rewrite":
        path.unlink(missing_ok=True)
        mode = "new_episodes"
    with recording(path, mode=mode, vcr_config=vcr_config, **options) as cassette:
        yield cassette


def default_path(request: pytest.FixtureRequest) -> Path:
    """``cassettes/{module}/{test}.yaml`` beside the test file (a class's tests as
    ``Class.test``), named as pytest-recording names its cassettes."""
    name = request.node.name
    if request.cls is not None:
        name = f"{request.cls.__name__}.{name}"
    for char in "<>?%*:|\"'/\\":
        name = name.replace(char, "-")
    test_file = Path(request.node.path)
    return test_file.parent / "cassettes" / test_file.stem / f"{name}.yaml"
