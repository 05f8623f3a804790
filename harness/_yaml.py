"""Safe YAML loading that remembers where every value came from and rejects duplicate keys."""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from collections.abc import Iterator
from typing import Any, ClassVar

import yaml

from harness._errors import Problem, ScenarioError


@contextlib.contextmanager
def building() -> Iterator[None]:
    """No cyclic garbage collection while the block builds a tree read from a file: the values
    and events of a long trace or cassette are hundreds of thousands of new objects holding no
    cycles, and the collector, run again and again as they grow, walks all of them each time
    (two thirds of the time on long scenario files; twice the time of reading a cassette of
    20,000 interactions). Nested blocks leave it to the outermost."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class LocatedDict(dict[Any, Any]):
    """A mapping from the file, with the line of the mapping and of each value (kept only
    where it is not the mapping's own line: a long trace is mostly one-line steps)."""

    __slots__ = ("line", "value_lines")  # no __dict__: a long trace holds many of these

    line: int
    value_lines: dict[Any, int]

    def line_of(self, key: Any) -> int:
        return self.value_lines.get(key, self.line)


class LocatedList(list[Any]):
    __slots__ = ("item_lines", "line")

    line: int
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if index < len(self.item_lines) else self.line


class _DuplicateKey(Exception):
    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message


#: A document may not stand for more values than this once its aliases are expanded.
MAX_NODES = 2_000_000
#: Nor nest mappings and lists deeper than this (aliases expanded): deeper is no scenario or
#: recording anyone writes, and the readers after the loader recurse into the values.
MAX_DEPTH = 100

#: YAML types that are not JSON: they are refused (their tag has no constructor here). An
#: unquoted date is not among them: it is read as the text it is (no implicit timestamps).
_NOT_JSON = (
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:set",
    "tag:yaml.org,2002:omap",
    "tag:yaml.org,2002:pairs",
)


#: half of a UTF-16 surrogate pair, which YAML's "\\uXXXX" escapes can write
_SURROGATE = re.compile("[\ud800-\udfff]")


class LimitExceeded(yaml.MarkedYAMLError):
    """A document past ``MAX_NODES`` or ``MAX_DEPTH``; ``problem`` says which, at its mark."""


def check_limits(root: yaml.Node, what: str) -> None:
    """``LimitExceeded`` at the first node (children before parents) that, with its aliases
    expanded, stands for more than ``MAX_NODES`` values or nests deeper than ``MAX_DEPTH``.
    Iterative, each node measured once; an alias inside its own anchor (``&t [*t]``) stands
    for a value without end: ``LimitExceeded`` at that alias."""
    stats: dict[int, tuple[int, int]] = {}
    on_path: set[int] = set()  # collections whose children are being measured
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in stats:
            continue
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            stats[id(node)] = (1, 0)
            continue
        # only collections are measured and kept: a scalar is (1, 0), and most nodes are
        pending = [
            child
            for child in children
            if isinstance(child, (yaml.MappingNode, yaml.SequenceNode)) and id(child) not in stats
        ]
        if pending and not ready:
            for child in pending:
                if id(child) in on_path or child is node:
                    problem = (
                        f"the {what} uses an alias inside the value it names "
                        "(like `a: &x [*x]`): that value would never end"
                    )
                    raise LimitExceeded(None, None, problem, child.start_mark)
            on_path.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in pending)
            continue
        on_path.discard(id(node))
        measured = [stats.get(id(child), (1, 0)) for child in children]
        size = 1 + sum(n for n, _ in measured)
        depth = 1 + max((d for _, d in measured), default=0)
        if depth > MAX_DEPTH:
            problem = f"with its aliases expanded the {what} nests deeper than {MAX_DEPTH} levels"
            raise LimitExceeded(None, None, problem, node.start_mark)
        if size > MAX_NODES:
            raise LimitExceeded(None, None, _too_many(what), node.start_mark)
        stats[id(node)] = (size, depth)


def _too_many(what: str) -> str:
    return (
        f"with its aliases expanded the {what} holds more than {MAX_NODES:,} values; "
        "that is more than a file may"
    )


#: libyaml composes a whole document before anything can count it, holding a few hundred
#: bytes a value: a text longer than this is first read as events and counted
SCAN_ABOVE = 4_000_000


def scan_values(text: str, what: str) -> bool:
    """``LimitExceeded`` at the first event past ``MAX_NODES`` values of a document (an alias
    counted once): libyaml's events, read one by one and let go, so a long text of too many
    values is refused after as many events as the limit, in bounded memory. True when the
    count proves every document within both limits (no alias, nesting within ``MAX_DEPTH``),
    so that ``check_limits`` need not measure them again."""
    parser = CParser(text)
    try:
        count = depth = deepest = 0
        aliased = False
        while (event := parser.get_event()) is not None:
            kind = type(event)
            if kind is yaml.DocumentStartEvent:
                count = 0  # the limit is a document's (a file of several is refused anyway)
            elif kind in _CLOSING:
                depth -= 1
            elif kind in _VALUE_EVENTS:
                count += 1
                if count > MAX_NODES:
                    mark = event.start_mark  # libyaml's own Mark: the same fields
                    raise LimitExceeded(None, None, _too_many(what), mark)  # type: ignore[arg-type]
                if kind in _OPENING:
                    depth += 1
                    deepest = max(deepest, depth)
                aliased = aliased or kind is yaml.AliasEvent
        return not aliased and deepest <= MAX_DEPTH
    finally:
        parser.dispose()


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, bounded: no document nests deeper than ``MAX_DEPTH`` or stands for
    more than ``MAX_NODES`` values with its aliases expanded (counted as the nodes are composed,
    so an alias bomb is refused before anything is built), no integer too long for Python to
    convert, and only JSON's types (plus what a subclass adds back, e.g. ``!!binary``)."""

    #: what the documents are, for the limits' messages
    what = "document"
    #: ``scan_values`` proved the documents within the limits: no need to measure them
    within_limits = False

    yaml_constructors: ClassVar[dict[Any, Any]] = {
        tag: constructor
        for tag, constructor in yaml.SafeLoader.yaml_constructors.items()
        if tag not in _NOT_JSON and tag != "tag:yaml.org,2002:binary"
    }
    yaml_implicit_resolvers = {  # noqa: RUF012  (PyYAML's own class attribute)
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _NOT_JSON]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._open = self._composed = 0

    def compose_document(self) -> yaml.Node | None:
        self._composed = 0
        return super().compose_document()

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        # PyYAML's composer recurses: stop before Python's own limit does; and a document of
        # too many values is refused as it is composed, not once it all is
        self._open += 1
        self._composed += 1
        try:
            if self._open > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise LimitExceeded(
                    None, None, f"the {self.what} nests deeper than {MAX_DEPTH} levels", mark
                )
            if self._composed > MAX_NODES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise LimitExceeded(None, None, _too_many(self.what), mark)
            node = super().compose_node(parent, index)
            assert node is not None  # an event was there to compose
            return node
        finally:
            self._open -= 1

    def construct_document(self, node: yaml.Node) -> Any:
        if not self.within_limits:  # composing shares aliases; building would expand them
            check_limits(node, self.what)
        return super().construct_document(node)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"a whole number of {len(node.value):,} characters is too long to read",
                node.start_mark,
            ) from None

    def construct_yaml_str(self, node: yaml.ScalarNode) -> str:
        value = str(super().construct_yaml_str(node))
        if _SURROGATE.search(value) is None:
            return value
        # a double-quoted "\ud83d\ude00" (JSON's way to write an emoji) is two halves of one
        # character to YAML: join each pair; a half alone is no character at all
        try:
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError as exc:
            half = value[exc.start // 2]
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the text holds \\u{ord(half):04x}, half of a surrogate pair without its "
                "other half: that is no character; write the character itself (or both halves)",
                node.start_mark,
            ) from None

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value = float(super().construct_yaml_float(node))
        if value != value or value in (float("inf"), float("-inf")):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"{node.value!r} is not a number JSON has (no NaN or infinity)",
                node.start_mark,
            )
        return value


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)
BoundedLoader.add_constructor("tag:yaml.org,2002:str", BoundedLoader.construct_yaml_str)
BoundedLoader.add_constructor("tag:yaml.org,2002:float", BoundedLoader.construct_yaml_float)


def reader_line(exc: yaml.reader.ReaderError, text: str) -> tuple[int, str]:
    """Where a character YAML does not allow is (its line), and what it is (escaped)."""
    line = text.count("\n", 0, max(exc.position, 0)) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or " ")
    return line, (
        f"the character U+{code:04X} is not allowed in YAML text (a control character); "
        f'write it escaped in a double-quoted string ("\\u{code:04x}")'
    )


def mark_line(exc: yaml.MarkedYAMLError) -> int:
    """The line (from 1) a YAML error points at, 1 when it points nowhere."""
    mark = exc.problem_mark or exc.context_mark
    return mark.line + 1 if mark else 1


def disallowed_tag(problem: str) -> str | None:
    """The tag (``!!timestamp``) of a constructor's "could not determine a constructor"
    problem, None for any other problem."""
    if "could not determine a constructor" not in problem:
        return None
    return problem.split("tag ", 1)[-1].strip().strip("'").replace("tag:yaml.org,2002:", "!!")


class _Loader(BoundedLoader):
    """SafeLoader: never builds arbitrary objects; python tags are errors."""

    what = "scenario"


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
    mapping.line = line = node.start_mark.line + 1
    mapping.value_lines = lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if type(key) is str:  # the same few keys on every step of a long trace, held once
            key = sys.intern(key)
        mapping[key] = loader.construct_object(value_node, deep=True)
        if value_node.start_mark.line + 1 != line:
            lines[key] = value_node.start_mark.line + 1
    return mapping


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LocatedList:
    items = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    items.line = node.start_mark.line + 1
    items.item_lines = [child.start_mark.line + 1 for child in node.value]
    return items


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


try:  # libyaml's parser, where PyYAML was built with it
    from yaml.cyaml import CParser  # type: ignore[attr-defined]

    _HAS_LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML without libyaml
    _HAS_LIBYAML = False

_OPENING = frozenset({yaml.MappingStartEvent, yaml.SequenceStartEvent})
_CLOSING = frozenset({yaml.MappingEndEvent, yaml.SequenceEndEvent})
_VALUE_EVENTS = _OPENING | {yaml.ScalarEvent, yaml.AliasEvent}


def _load_documents(text: str, fast: bool = False, within_limits: bool = False) -> list[Any]:
    loader = _FastLoader(text) if fast else _Loader(text)
    loader.within_limits = within_limits
    try:
        documents = []
        while loader.check_node():
            node = loader.get_node()
            assert node is not None  # check_node() said there is one
            documents.append(loader.construct_document(node))
        return documents
    finally:
        loader.dispose()


if _HAS_LIBYAML:

    class _FastLoader(CParser, _Loader):
        """``_Loader``'s constructors and resolvers on libyaml's parser (ten times faster on
        long traces; it composes in C, past ``compose_node``, and nests 1,000 levels at most).
        A document it refuses for any reason is read again by ``_Loader`` for the message."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


def load_yaml(text: str, path: str) -> Any:
    """Parse one YAML document; every failure is a ``ScenarioError`` naming file and line."""
    try:
        within = False
        if _HAS_LIBYAML and len(text) > SCAN_ABOVE:
            try:
                within = scan_values(text, _Loader.what)
            except LimitExceeded:
                raise
            except yaml.YAMLError:
                pass  # libyaml refuses the text: the loaders below say where and why
        try:
            if not _HAS_LIBYAML:
                raise yaml.YAMLError("no libyaml")
            documents = _load_documents(text, fast=True, within_limits=within)
        except yaml.constructor.ConstructorError:
            raise  # the same problem at the same line as the Python loader's, found sooner
        except yaml.YAMLError:
            documents = _load_documents(text)
    except _DuplicateKey as exc:
        raise ScenarioError([Problem(path, exc.line, exc.message)]) from None
    except yaml.reader.ReaderError as exc:
        raise ScenarioError([Problem(path, *reader_line(exc, text))]) from None
    except LimitExceeded as exc:
        raise ScenarioError([Problem(path, mark_line(exc), exc.problem or "")]) from None
    except yaml.constructor.ConstructorError as exc:
        problem = exc.problem or "cannot be loaded"
        if (tag := disallowed_tag(problem)) is not None:
            problem = (
                f"the tag {tag} is not allowed: scenarios are plain data "
                "(mappings, lists, strings, numbers, booleans)"
            )
        raise ScenarioError([Problem(path, mark_line(exc), problem)]) from None
    except yaml.MarkedYAMLError as exc:
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise ScenarioError([Problem(path, mark_line(exc), f"invalid YAML: {what}")]) from None
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
