"""Recorded streams as snapshot tests of a driver: the plugin's ``--harness-recordings``.

Every streamed response of every recording (vcrpy cassette or raw body file) under the folders
given becomes an item ``recording[FILE#N]`` per adapter. The item replays the stream through the
driver adapter, as a ``wire:`` scenario, so the driver rules are checked too, and compares what
the driver did (``driver_outcome``: the text it emitted, its tool calls, its turn end, and the
rules it broke) with a syrupy snapshot in ``<rootdir>/__snapshots__/harness/``. A change in the
driver's output is a YAML diff; ``--snapshot-update`` accepts it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness._errors import ScenarioError, UsageError
from harness.wire.recordings import RecordedResponse

#: the folders whose recordings become items, relative to the rootdir
OPTION, INI = "--harness-recordings", "harness_recordings"


def add_options(parser: pytest.Parser, group: Any) -> None:
    group.addoption(
        OPTION,
        action="append",
        default=[],
        metavar="DIR",
        help="replay every streamed response of the recordings (cassettes, raw bodies) under DIR "
        "through the driver adapter and compare its output with a snapshot (repeatable)",
    )
    parser.addini(
        INI,
        "folders of recordings (relative to the rootdir) whose streams become snapshot tests",
        type="args",
        default=[],
    )


def recording_folders(config: pytest.Config) -> list[Path]:
    """The folders given on the command line, else in the ini file unless the command line
    names test paths of its own (as the scenario folders are)."""
    given = config.getoption("harness_recordings")
    if not given and config.args_source != pytest.Config.ArgsSource.ARGS:
        given = config.getini(INI)
    folders = []
    for name in given:
        path = Path(name)
        path = path if path.is_absolute() else config.rootpath / path
        if not path.is_dir():
            raise pytest.UsageError(f"{INI}: {name} is not a folder (under {config.rootpath})")
        folders.append(path)
    return folders


def collect(session: pytest.Session, config: pytest.Config) -> list[pytest.Item]:
    """The items of every recording under the configured folders."""
    items: list[pytest.Item] = []
    for folder in recording_folders(config):
        try:
            prefix = folder.relative_to(config.rootpath).as_posix()
        except ValueError:
            prefix = folder.as_posix()
        for path in sorted(p for p in folder.rglob("*") if not p.is_dir()):  # pipes too: refused
            relative = path.relative_to(folder).as_posix()
            if any(part.startswith(".") for part in Path(relative).parts):
                continue
            node = RecordingFile.from_parent(session, path=path, nodeid=f"{prefix}/{relative}")
            node.stash[_LABEL] = relative
            node.stash[_FOLDER] = folder
            items.extend(session.genitems(node))
    return items


_LABEL = pytest.StashKey[str]()
_FOLDER = pytest.StashKey[Path]()
#: the dialect each named adapter reads, as collection found it (making an adapter, or starting
#: an exec: process, to ask is done once per session)
_DIALECTS = pytest.StashKey[dict[str | None, str | None]]()
_STREAM = pytest.StashKey[tuple[RecordedResponse | None, str, str | None]]()


class RecordingFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from harness._files import confine
        from harness.wire import WireError
        from harness.wire.recordings import recorded_streams

        label = self.stash[_LABEL]
        try:
            # a symlink out of the folder is refused: the folder is what was given to replay
            confine(label, self.stash[_FOLDER], roots=())
            streams = recorded_streams(self.path)
        except (WireError, ValueError) as exc:
            # an unreadable recording fails as an item, saying where and why
            item = RecordingItem.from_parent(self, name=f"recording[{label}]", callobj=_replay)
            item.stash[_STREAM] = (None, label, str(exc))
            yield item
            return
        named = self.config.option.harness_adapter or [None]
        configured = str(self.config.getini("harness_adapter"))
        known = self.config.stash.setdefault(_DIALECTS, {})  # asked once per session
        for adapter in named:
            reference = adapter or configured or None
            if reference not in known:
                known[reference] = _dialect_read(reference)
        read = {adapter: known[adapter or configured or None] for adapter in named}
        for stream in streams:
            for adapter in named:
                if read[adapter] not in (None, stream.dialect):
                    continue  # a stream in another dialect than the driver reads
                name = f"recording[{label}#{stream.interaction or 0}]"
                if adapter:
                    name += f"[{adapter}]"
                item = RecordingItem.from_parent(self, name=name, callobj=_replay)
                item.stash[_STREAM] = (stream, label, adapter)
                item.add_marker(pytest.mark.harness)  # snapshots in <rootdir>/__snapshots__/harness
                item.extra_keyword_matches.update({"recording", "driver"})
                yield item


def _dialect_read(reference: str | None) -> str | None:
    """The dialect the named adapter's driver reads; None when it is not known at collection
    (no adapter named, or one that cannot be resolved: the item says so when it runs)."""
    from harness.adapters.registry import adapter_dialect, resolve_adapter

    if reference is None:
        return None
    try:
        return adapter_dialect(resolve_adapter(reference))
    except UsageError:
        return None


class RecordingItem(pytest.Function):
    """One recorded stream replayed through one driver adapter."""

    def reportinfo(self) -> tuple[Path, int, str]:
        stream = self.stash[_STREAM][0]
        return self.path, (stream.line - 1 if stream else 0), self.name


def _replay(request: pytest.FixtureRequest) -> None:
    from harness.adapters.registry import AdapterInfo, resolve_adapter

    item = request.node
    stream, label, adapter_ref = item.stash[_STREAM]
    if stream is None:
        pytest.fail(f"harness: {adapter_ref}", pytrace=False)
    reference = adapter_ref or request.getfixturevalue("harness_adapter")
    try:
        adapter = reference if isinstance(reference, AdapterInfo) else resolve_adapter(reference)
        config = request.config
        timeout = config.getoption("harness_timeout") or float(config.getini("harness_timeout"))
        name = label if stream.interaction is None else f"{label}#{stream.interaction}"
        outcome = driver_outcome(stream, adapter, label=name, timeout=timeout)
    except (UsageError, ScenarioError) as exc:
        pytest.fail(f"harness: {exc}", pytrace=False)
    if outcome is None:
        pytest.skip(f"{stream.label} is a {stream.dialect} stream; the adapter reads another")
    snapshot = request.getfixturevalue("harness_snapshot")
    problems = _snapshot_problems(item.name, snapshot, outcome)
    # a broken rule fails the item whatever its snapshot holds: a snapshot records what the
    # driver emitted, and accepting it (--snapshot-update) never accepts the rule it breaks
    problems.extend(_broken_rules(item.name, outcome))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def _snapshot_problems(name: str, snapshot: Any, outcome: dict[str, Any]) -> list[str]:
    """Nothing if the snapshot holds ``outcome`` (or was just written); else what differs."""
    if snapshot == outcome:
        return []
    result = snapshot.executions[snapshot.num_executions - 1]
    if result.exception is not None:
        raise result.exception
    now = str(result.asserted_data or "").splitlines()
    if result.recalled_data is None:
        header = (
            f"{name}: no snapshot yet of what the driver does with this stream; "
            "run pytest with --snapshot-update to write it"
        )
        return [header, *(f"+ {line}" for line in now)]
    header = (
        f"{name}: the driver's output changed; if that is intended, run pytest with "
        "--snapshot-update to accept it"
    )
    before = str(result.recalled_data).splitlines()
    return [header, *difflib.unified_diff(before, now, "snapshot", "now", lineterm="")]


def _broken_rules(name: str, outcome: dict[str, Any]) -> list[str]:
    if outcome["status"] == "pass":
        return []
    lines = [
        f"{name}: the driver breaks the rules on this recording; a snapshot records what it "
        "emitted and cannot accept a broken rule (fix the driver, or leave the recording out)"
    ]
    if "error" in outcome:
        lines.append(f"  error: {outcome['error']}")
    lines.extend(
        f"  [{b['rule']}] event {b['event']}: {b['message']}" for b in outcome.get("broken", ())
    )
    return lines


# -- what a driver did with a recorded stream ------------------------------------------------------


def driver_outcome(
    stream: RecordedResponse,
    adapter: Any,
    *,
    label: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any] | None:
    """What the driver emitted for the stream, as plain data for a snapshot: the text (runs of
    text joined), each tool call (name, id, arguments, validity), the turn end or a refusal,
    and the status with every rule broken. None when the adapter reads another dialect.
    ``label`` names the recording in it (default: its path as given).

    An id the recording does not carry (one the driver made up) is shown as ``(made up)``, so
    a driver that draws random ids still has a stable snapshot."""
    from harness.model.driver import DriverObservation
    from harness.replay import DEFAULT_TIMEOUT, replay
    from harness.scenario import recorded_scenario

    result = replay(recorded_scenario(stream), adapter, timeout=timeout or DEFAULT_TIMEOUT)
    if result.status == "skip":
        if result.adapter_layers is not None:
            raise UsageError(f"{adapter.name}: {result.skip_reason}")
        return None
    observation = result.observation
    emitted = observation.to_data()["emitted"] if isinstance(observation, DriverObservation) else []
    for entry in emitted:
        call = entry.get("tool_call")
        if call is not None and call["id"] not in stream.body:
            call["id"] = "(made up)"
    outcome: dict[str, Any] = {
        "recording": label or stream.label,
        "dialect": stream.dialect,
        "status": result.status,
        "emitted": emitted,
    }
    if result.error is not None:
        outcome["error"] = result.error
    if result.violations:
        outcome["broken"] = [
            {"rule": v.rule, "event": v.event_index, "message": v.message}
            for v in result.root_causes
        ]
    return outcome


__all__ = ["driver_outcome"]
