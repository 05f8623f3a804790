"""The distribution carries what an installed user needs: the library, the plugin, py.typed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_ships_the_library_the_plugin_and_types(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    library = {
        p.relative_to(ROOT / "scenarios").as_posix() for p in (ROOT / "scenarios").rglob("*.yaml")
    }
    shipped = {
        n.split("harness/builtin_scenarios/", 1)[1] for n in names if "builtin_scenarios/" in n
    }
    assert library and shipped == library
    assert "harness/py.typed" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[pytest11]\nharness = harness.pytest_plugin" in text
    assert "harness = harness.cli:main" in text


@pytest.mark.slow
def test_an_installed_copy_finds_its_library(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    code = (
        "from harness.library import library_path; from harness.scenario import load_all;"
        "s, p = load_all([library_path()]); print(library_path()); print(len(s), len(p))"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); {code}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    where, counts = done.stdout.splitlines()
    assert where == str(tmp_path / "site" / "harness" / "builtin_scenarios")
    assert counts == f"{len(list((ROOT / 'scenarios').rglob('*.yaml')))} 0"


@pytest.mark.slow
def test_installing_the_harness_brings_no_pytest_asyncio(wheel: Path) -> None:
    """Unused by the harness, it warned on each of a user's runs about an option of its own
    ("asyncio_default_fixture_loop_scope is unset")."""
    names = zipfile.ZipFile(wheel).namelist()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    requires = [
        line.split(":", 1)[1].strip()
        for line in metadata.decode().splitlines()
        if line.startswith("Requires-Dist:")
    ]
    assert "pytest-asyncio" not in " ".join(r for r in requires if "extra ==" not in r)
    assert any(r.startswith("pytest>") for r in requires)
