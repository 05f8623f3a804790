"""Hostile recording paths: a scenario reads only recordings inside its own folder tree (or a
recordings root), after every symlink is resolved, and only regular files; a refusal quotes
nothing of the file it refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError
from harness._files import ROOTS_VARIABLE, confine
from harness.scenario import load_scenario
from tests.hostile.for_tests import FUZZ, outcome, run_cli, write
from tests.projects_for_tests import outside_xdist

#: what a file outside the scenario's folder holds; no message may ever quote it
CANARY = "CANARY-4f1d9"
SECRET = f'data: {{"token": "{CANARY}"}}\n\ndata: [DONE]\n\n'
INSIDE = (
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
    '"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n'
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
    '"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def scenario(key: str, name: str) -> str:
    return (
        "id: x\ntitle: t\ndescription: d\nsource: s\nlayer: driver\n"
        f"wire:\n  dialect: openai-chat\n  {key}: {name!r}\n"
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """outside/secret.txt (a stream holding the canary), and a scenario folder beside it with
    a stream of its own, a subfolder, and symlinks out."""
    write(tmp_path / "outside" / "secret.txt", SECRET)
    write(tmp_path / "outside" / "secret.yaml", f"# {CANARY}\n{SECRET}")
    folder = tmp_path / "scenarios"
    write(folder / "inside.txt", INSIDE)
    write(folder / "sub" / "deeper.txt", INSIDE)
    (folder / "out").symlink_to(tmp_path / "outside")
    (folder / "secret-link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (folder / "zero.txt").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.txt")
    return folder


def refusal(folder: Path, key: str, name: str) -> str:
    path = write(folder / "x.yaml", scenario(key, name))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert CANARY not in message and "token" not in message
    return message


@pytest.mark.parametrize("key", ["file", "cassette"])
def test_absolute_escaping_and_symlinked_paths_are_refused_quoting_nothing(
    tree: Path, key: str
) -> None:
    outside = tree.parent / "outside" / ("secret.txt" if key == "file" else "secret.yaml")
    for name in (
        str(outside),
        f"../outside/{outside.name}",
        f"sub/../../outside/{outside.name}",
        f"out/{outside.name}",
        "secret-link.txt",
        "/etc/passwd",
        "/dev/zero",
    ):
        message = refusal(tree, key, name)
        assert "x.yaml:8:" in message and "outside the scenario's folder" in message, message


def test_special_files_are_refused_before_reading(tree: Path) -> None:
    assert "outside the scenario's folder" in refusal(tree, "file", "zero.txt")  # -> /dev/zero
    assert "named pipe" in refusal(tree, "file", "pipe.txt")  # would block forever
    assert "a folder" in refusal(tree, "file", "sub")


def test_inside_the_tree_and_in_a_configured_root_are_read(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("inside.txt", "sub/deeper.txt", "sub/../inside.txt", str(tree / "inside.txt")):
        load_scenario(write(tree / "x.yaml", scenario("file", name)))
    monkeypatch.setenv(ROOTS_VARIABLE, str(tree.parent / "outside"))
    loaded = load_scenario(write(tree / "x.yaml", scenario("file", "out/secret.txt")))
    assert loaded.layer == "driver"


def test_the_command_line_exits_2_without_quoting_the_target(tree: Path) -> None:
    path = write(tree / "x.yaml", scenario("file", "../outside/secret.txt"))
    code, out, err = run_cli(
        "confinement", "run", str(path), "--adapter", "driver-openai-chat-reference"
    )
    assert code == 2 and CANARY not in out + err and "x.yaml:8:" in err


_SEGMENTS = st.sampled_from(
    ["..", ".", "sub", "out", "outside", "scenarios", "secret.txt", "secret-link.txt",
     "inside.txt", "zero.txt", "pipe.txt", "", "deeper.txt"]
)  # fmt: skip


@FUZZ
@given(
    absolute=st.booleans(),
    segments=st.lists(_SEGMENTS, min_size=1, max_size=6),
    key=st.sampled_from(["file", "cassette"]),
)
def test_any_path_is_read_inside_or_refused_without_the_secret(
    tree: Path, absolute: bool, segments: list[str], key: str
) -> None:
    name = ("/" if absolute else "") + "/".join(segments)
    if not name.strip("/"):
        return
    path = write(tree / "x.yaml", scenario(key, name))
    result = outcome("confinement", lambda: load_scenario(path))
    if isinstance(result, ScenarioError):
        assert CANARY not in str(result)
        return
    # read: then the file was inside the folder, and so holds no canary
    target = confine(name, tree, roots=())
    assert tree.resolve() in target.parents


def test_the_recordings_plugin_refuses_a_symlink_out_of_its_folder(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_xdist(monkeypatch)
    write(tmp_path / "elsewhere" / "secret.txt", SECRET)
    folder = pytester.mkdir("recordings")
    (folder / "stolen.txt").symlink_to(tmp_path / "elsewhere" / "secret.txt")
    os.mkfifo(folder / "pipe.txt")
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_adapter = "driver-openai-chat-reference"\n'
        'harness_library = "false"\nharness_recordings = ["recordings"]\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    text = result.stdout.str()
    assert CANARY not in text and "named pipe" in text and "outside the scenario's folder" in text


#: a scenario-looking file outside every folder named; an error quoting it would show the canary
OUTSIDE_SCENARIO = f"id: {CANARY}\ntitle: [{CANARY}\n"


@FUZZ
@given(
    depth=st.integers(min_value=0, max_value=3),
    command=st.sampled_from([["validate"], ["run", "--adapter", "session-reference"]]),
)
def test_a_scenario_linked_from_outside_the_folder_is_refused_unread(
    tmp_path_factory: pytest.TempPathFactory, depth: int, command: list[str]
) -> None:
    root = tmp_path_factory.mktemp("linked")
    target = write(root / "outside" / "x.yaml", OUTSIDE_SCENARIO)
    folder = root / "scenarios"
    nested = folder.joinpath(*[f"d{i}" for i in range(depth)])
    nested.mkdir(parents=True)
    (nested / "link.yaml").symlink_to(target)
    code, out, err = run_cli("confinement", *command, str(folder))
    assert code == 2 and CANARY not in out + err, out + err
    assert "link.yaml:1: error: the scenario is a link to a file outside" in err, err


def test_the_plugin_refuses_a_scenario_linked_from_outside(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_xdist(monkeypatch)
    target = write(tmp_path / "elsewhere" / "x.yaml", OUTSIDE_SCENARIO)
    (pytester.mkdir("scenarios") / "link.yaml").symlink_to(target)
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_adapter = "session-reference"\n'
        'harness_library = "false"\nharness_scenarios = ["scenarios"]\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = result.stdout.str()
    assert CANARY not in text and "a link to a file outside" in text, text
