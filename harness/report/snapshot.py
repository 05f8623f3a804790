"""A readable syrupy snapshot format (YAML) for what a consumer showed.

    def test_my_consumer(harness_snapshot):   # = snapshot.use_extension(ScenarioSnapshotExtension)
        result = replay(load_scenario("scenarios/session/tool-first-turn.yaml"), "my_pkg:make")
        assert result.observation == harness_snapshot

``--snapshot-update`` writes or refreshes the files; unused ones are reported as syrupy does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from harness.model.driver import DriverObservation
from harness.model.observation import Observation


class ScenarioSnapshotExtension(SingleFileSnapshotExtension):
    """One YAML file per snapshot; volatile values (timings, made-up ids) are left out."""

    file_extension = "yaml"
    _write_mode = WriteMode.TEXT

    def serialize(self, data: Any, **_: Any) -> str:
        observation = getattr(data, "observation", data)
        if isinstance(observation, Observation | DriverObservation):
            data = observation.to_data()
        return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        # Scenario items of the built-in library live in site-packages: their snapshots are kept
        # in the user's repository instead, in <rootdir>/__snapshots__/harness/.
        if _is_scenario_item(test_location):
            return str(Path(test_location.item.config.rootpath, "__snapshots__", "harness"))
        return super().dirname(test_location=test_location)

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        # syrupy relates a snapshot to its test through the test file's name and folder, which
        # a scenario's snapshot (named after the scenario, in the rootdir) cannot share
        if _is_scenario_item(test_location):
            folder = Path(cls.dirname(test_location=test_location))
            return Path(snapshot_location).parent == folder
        return super().matches_test_location(
            test_location=test_location, snapshot_location=snapshot_location
        )


class _Dumper(yaml.SafeDumper):
    """Multi-line text as literal blocks, so a snapshot reads like the text it holds."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _is_scenario_item(test_location: PyTestLocation) -> bool:
    item = test_location.item
    if hasattr(item, "get_closest_marker"):
        return item.get_closest_marker("harness") is not None
    # under xdist the controller sees items rebuilt from the workers' reports, without markers:
    # scenario and recording items run functions of the plugin's own modules
    return test_location.modulename in ("harness.pytest_plugin", "harness.report.recordings")
