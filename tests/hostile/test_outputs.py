"""Output paths: what cannot be written is refused (exit 2, one line) before the run, and what
is written goes to a file moved into place, so that a link is never written through and a
named pipe never waited on; the folder a file should go in is made when missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import UsageError
from harness._files import output_file
from harness.library import library_path
from tests.hostile.for_tests import FUZZ, run_cli, write
from tests.projects_for_tests import outside_xdist

SCENARIO = str(library_path() / "session" / "backward-attachment-basic.yaml")
RECORDING = str(
    Path(__file__).resolve().parents[2]
    / "cassettes/real-traffic/anthropic-sdk-python/incomplete_partial_json_response.txt"
)

#: kinds of path, and whether a file may be written there (without --force)
KINDS = {
    "missing folders": True,
    "regular file": True,
    "folder": False,
    "named pipe": False,
    "dangling link": False,
    "link out": False,
    "long name": False,
    "under a file": False,
}


def make(kind: str, root: Path) -> Path:
    """A path of ``kind`` under ``root`` (``root/elsewhere`` stands outside the folder)."""
    folder = root / "out"
    folder.mkdir(exist_ok=True)
    path = folder / "result.out"
    if kind == "missing folders":
        return folder / "a" / "b" / "result.out"
    if kind == "regular file":
        write(path, "old")
    elif kind == "folder":
        path.mkdir()
    elif kind == "named pipe":
        os.mkfifo(path)
    elif kind == "dangling link":
        path.symlink_to(root / "elsewhere" / "never-made.out")
    elif kind == "link out":
        path.symlink_to(write(root / "elsewhere" / "kept.out", "kept"))
    elif kind == "long name":
        return folder / ("x" * 300 + ".out")
    elif kind == "under a file":
        return write(folder / "plain", "a file") / "result.out"
    return path


def commands(path: Path, force: bool) -> list[list[str]]:
    forced = ["--force"] if force else []
    return [
        ["run", SCENARIO, "--adapter", "session-reference", "--html", str(path)],
        ["run", SCENARIO, "--adapter", "session-reference", "--write-baseline", str(path)],
        ["convert", RECORDING, "-o", str(path), *forced],
    ]


@FUZZ
@given(kind=st.sampled_from(sorted(KINDS)), which=st.integers(0, 2), force=st.booleans())
def test_an_output_path_is_written_or_refused_before_the_run(
    tmp_path_factory: pytest.TempPathFactory, kind: str, which: int, force: bool
) -> None:
    root = tmp_path_factory.mktemp("outputs")
    path = make(kind, root)
    argv = commands(path, force)[which]
    forcing = force and argv[0] == "convert"
    code, out, err = run_cli("output paths", *argv)
    writable = KINDS[kind] or (forcing and kind in ("named pipe", "dangling link", "link out"))
    if argv[0] == "convert" and kind == "regular file" and not forcing:
        writable = False  # an existing scenario is kept without --force
    if writable:
        assert code in (0, 1), err
        assert path.is_file() and not path.is_symlink(), kind
    else:
        assert code == 2 and "Traceback" not in err, err
        assert "cannot write" in err or "exists; pass --force" in err, err
        assert out == "" or argv[0] != "run", "refused before the run"
    # a link's target outside the folder is never written
    assert not (root / "elsewhere" / "never-made.out").exists()
    if (root / "elsewhere" / "kept.out").exists():
        assert (root / "elsewhere" / "kept.out").read_text() == "kept"


@pytest.mark.parametrize("force", [None, False, True])
def test_a_device_is_never_an_output(force: bool | None) -> None:
    # checked on the path alone: a test that wrote to a device would replace it when run as root
    for device in ("/dev/full", "/dev/null", "/dev/zero"):
        with pytest.raises(
            UsageError, match=f"cannot write the report to {device}: it is a device"
        ):
            output_file(device, what="the report", force=force)


@pytest.mark.parametrize("kind", ["named pipe", "regular file", "/dev/null"])
def test_explore_needs_a_folder_to_write_into(tmp_path: Path, kind: str) -> None:
    path = Path(kind) if kind.startswith("/") else make(kind, tmp_path)
    code, _, err = run_cli(
        "output paths", "explore", "--adapter", "session-reference", "--max-examples", "1",
        "--out", str(path),
    )  # fmt: skip
    assert code == 2 and "is not a folder" in err, err


@pytest.mark.parametrize("kind", ["named pipe", "folder", "dangling link"])
def test_the_plugin_refuses_a_report_path_before_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    outside_xdist(monkeypatch)
    path = make(kind, pytester.path)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--harness-adapter=session-reference",
        f"--harness-html={path}", "-o", "asyncio_default_fixture_loop_scope=function",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert "ERROR: harness: --harness-html: cannot write" in result.stderr.str()
    assert "passed" not in result.stdout.str()
