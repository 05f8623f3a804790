"""A readable syrupy snapshot format (YAML) for what a consumer showed.

    def test_my_consumer(snapshot):
        result = replay(load_scenario("scenarios/session/tool-first-turn.yaml"), "my_pkg:make")
        assert result.observation == snapshot(extension_class=ScenarioSnapshotExtension)

``--snapshot-update`` writes or refreshes the files; unused ones are reported as syrupy does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from harness.model.observation import Observation


class ScenarioSnapshotExtension(SingleFileSnapshotExtension):
    """One YAML file per snapshot; volatile values (timings, made-up ids) are left out."""

    file_extension = "yaml"
    _write_mode = WriteMode.TEXT

    def serialize(self, data: Any, **_: Any) -> str:
        observation = getattr(data, "observation", data)
        if isinstance(observation, Observation):
            data = observation.to_data()
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        # Scenario items of the built-in library live in site-packages: keep their snapshots in
        # the user's repository instead, beside the rootdir.
        item = test_location.item
        if item.get_closest_marker("harness") is not None:
            return str(Path(item.config.rootpath, "__snapshots__", "harness"))
        return super().dirname(test_location=test_location)
