"""Safe YAML loading that remembers where every value came from and rejects duplicate keys."""

from __future__ import annotations

from typing import Any

import yaml

from harness._errors import Problem, ScenarioError


class LocatedDict(dict[Any, Any]):
    """A mapping from the file, with the line of the mapping and of each value."""

    line: int
    value_lines: dict[Any, int]

    def line_of(self, key: Any) -> int:
        return self.value_lines.get(key, self.line)


class LocatedList(list[Any]):
    line: int
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if index < len(self.item_lines) else self.line


class _DuplicateKey(Exception):
    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message


class _Loader(yaml.SafeLoader):
    """SafeLoader: never builds arbitrary objects; python tags are errors."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LocatedDict:
    # Duplicates among the mapping's own keys are errors; keys merged in with '<<' may be
    # overridden by its own keys, as YAML specifies (flatten_mapping puts merged keys first).
    first_seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        key_line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise _DuplicateKey(key_line, "a mapping key must be a plain value") from None
        if key in first_seen:
            raise _DuplicateKey(
                key_line, f"duplicate key {key!r} (first given at line {first_seen[key]})"
            )
        first_seen[key] = key_line
    loader.flatten_mapping(node)
    mapping = LocatedDict()
    mapping.line = node.start_mark.line + 1
    mapping.value_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.value_lines[key] = value_node.start_mark.line + 1
    return mapping


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LocatedList:
    items = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    items.line = node.start_mark.line + 1
    items.item_lines = [child.start_mark.line + 1 for child in node.value]
    return items


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


class _FastLoader(getattr(yaml, "CSafeLoader", _Loader)):  # type: ignore[misc]
    """The same loader on libyaml's parser (ten times faster on long traces), where PyYAML has
    it; a document it refuses is read again by ``_Loader`` for the usual message."""


_FastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_FastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


#: A document may not stand for more values than this once its aliases are expanded.
MAX_NODES = 2_000_000


def expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many values ``node`` stands for with every alias expanded (linear: memoised)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    sizes[id(node)] = 1  # a recursive alias counts once instead of looping
    total = 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            total += expanded_size(key, sizes) + expanded_size(value, sizes)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += expanded_size(item, sizes)
    sizes[id(node)] = total
    return total


def _load_documents(text: str, path: str, fast: bool = False) -> list[Any]:
    loader = (_FastLoader if fast else _Loader)(text)
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            assert node is not None  # check_node() said there is one
            size = expanded_size(node, {})
            if size > MAX_NODES:
                raise ScenarioError(
                    [
                        Problem(
                            path,
                            node.start_mark.line + 1,
                            f"with its aliases expanded this document holds {size:,} values, "
                            f"more than the {MAX_NODES:,} a scenario may; use a generator instead",
                        )
                    ]
                )
            documents.append(loader.construct_document(node))
        return documents
    finally:
        loader.dispose()


def load_yaml(text: str, path: str) -> Any:
    """Parse one YAML document; every failure is a ``ScenarioError`` naming file and line."""
    try:
        try:
            documents = _load_documents(text, path, fast=True)
        except yaml.YAMLError:
            documents = _load_documents(text, path)
    except _DuplicateKey as exc:
        raise ScenarioError([Problem(path, exc.line, exc.message)]) from None
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or "cannot be loaded"
        if "could not determine a constructor" in problem:
            tag = problem.split("tag ", 1)[-1].strip()
            problem = (
                f"the tag {tag} is not allowed: scenarios are plain data "
                "(mappings, lists, strings, numbers, booleans)"
            )
        raise ScenarioError([Problem(path, line, problem)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise ScenarioError([Problem(path, line, f"invalid YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([Problem(path, 1, f"invalid YAML: {exc}")]) from None
    if not documents or documents == [None]:
        raise ScenarioError([Problem(path, 1, "the file is empty; a scenario is a mapping")])
    if len(documents) > 1:
        raise ScenarioError([Problem(path, 1, "one scenario per file: found several documents")])
    return documents[0]


def located(value: Any, line: int = 1) -> Any:
    """Plain data (a mapping a program built) as the loader's located values, every one at
    ``line``: a document read without going through YAML text."""
    if isinstance(value, dict):
        out = LocatedDict((k, located(v, line)) for k, v in value.items())
        out.line, out.value_lines = line, {}
        return out
    if isinstance(value, (list, tuple)):
        items = LocatedList(located(v, line) for v in value)
        items.line, items.item_lines = line, []
        return items
    return value
