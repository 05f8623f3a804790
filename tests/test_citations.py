"""A citation a user can read names something they can open: an upstream issue or pull request
(owner/repo#N), a recording under cassettes/, a page under docs/ or a scenario of the library.
So nothing a user sees cites the project's private notes (its table of real bugs, or the seed
documents it started from): not a rule's source (`harness rules`), a dialect's quirk, a bundled
adapter's bug or docstring, the package's source, a scenario of the library or an example, nor a
page of the documentation."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import harness.rules  # noqa: F401  # registers the built-in rules
from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.rules.registry import RULES

ROOT = Path(__file__).resolve().parents[1]

#: a citation of a private note: the table of real bugs ("REAL_BUGS.md row 9", "real bugs row
#: 9") or a seed document ("seed 000", "seeds 002 and 003", "seed-001", "seeds/")
PRIVATE = re.compile(
    r"REAL_BUGS|real[ _-]bugs?\s+rows?\b|\bseeds?[ _-]0\d\d\b|\bseeds?\s+0\d\d\b|\bseeds/"
    r"|\bMISSION\.md\b",
    re.IGNORECASE,
)

#: text files a user reads: the documentation, the package's source (its docstrings and
#: comments), the library's scenarios and the examples
READ_BY_USERS = (
    "README.md",
    "ARCHITECTURE.md",
    "CHANGELOG.md",
    "docs",
    "harness",
    "scenarios",
    "examples",
)
#: files that still cite a private note and are yet to be rewritten; each must still do so, so
#: that its entry goes when it is fixed
NOT_YET = {"harness/history/validate.py"}
TEXT = {".md", ".yaml", ".yml", ".py", ".go", ".mjs", ".js", ".ts", ".json", ".txt", ".toml"}


def shown() -> Iterator[tuple[str, str]]:
    """(where, text) for everything the harness shows or ships for users to read."""
    for rule in RULES.values():
        yield f"rule {rule.id} source", rule.source
        yield f"rule {rule.id} statement", rule.statement
    for name, codec in dialects().items():
        for quirk, description in codec.quirks.items():
            yield f"dialect {name} quirk {quirk}", description
    for adapter in BUNDLED.values():
        if adapter.bug is not None:
            yield f"adapter {adapter.name} bug", adapter.bug
        factory = adapter.factory
        yield f"adapter {adapter.name} docstring", inspect.getdoc(factory) or ""
        module = inspect.getmodule(factory)
        if module is not None:
            yield f"adapter {adapter.name} module {module.__name__}", inspect.getdoc(module) or ""
    for top in READ_BY_USERS:
        path = ROOT / top
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if file.suffix in TEXT and not any(part.startswith(".") for part in file.parts):
                yield str(file.relative_to(ROOT)), file.read_text(encoding="utf-8")


def test_nothing_shown_cites_a_private_note() -> None:
    found = sorted(
        f"{where}: {match.group(0)!r} in {line.strip()[:100]!r}"
        for where, text in shown()
        if where not in NOT_YET
        for line in text.splitlines()
        for match in PRIVATE.finditer(line)
    )
    assert not found, "\n".join(found)


def test_the_files_not_yet_rewritten_still_need_it() -> None:
    texts = dict(shown())
    assert {where for where in NOT_YET if PRIVATE.search(texts[where])} == NOT_YET


def test_the_walk_sees_rules_quirks_bugs_scenarios_and_docs() -> None:
    wheres = [where for where, _ in shown()]
    for kind in ("rule ", "dialect ", "adapter ", "scenarios/", "docs/", "README.md"):
        assert any(where.startswith(kind) for where in wheres), kind


@pytest.mark.parametrize(
    "text",
    [
        "REAL_BUGS rows 1-17",
        "REAL_BUGS.md row 12",
        "real bugs row 3",
        "seed 000, problem 5",
        "seeds 002 and 003",
        "tags: [streamed, seed-001]",
        "the seeds/ folder",
        "MISSION.md robust framing",
    ],
)
def test_a_private_citation_is_recognised(text: str) -> None:
    assert PRIVATE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "docker/docker-agent#2053",
        "harness explore --seed 1",
        "seed: 0",
        "the same seed gives the same trace",
        "--seed 0",
    ],
)
def test_a_public_text_is_not_taken_for_one(text: str) -> None:
    assert not PRIVATE.search(text)
