"""The one place the harness reads a user's file (scenarios, cassettes, recorded bodies and
histories all come through here) and checks and writes its outputs (reports, converted
scenarios, baselines, counterexamples: at the end of this module).

Three promises are kept here, so that no reader has to remember them:

- only a regular file is read: a FIFO, a device (``/dev/zero``), a socket or a folder is
  refused before anything is read from it, whether named directly or through a symlink;
- a file is never read past the size limit, ``max_file_bytes()``: 128 MiB by default
  (``DEFAULT_MAX_FILE_BYTES``); the environment variable ``HARNESS_MAX_FILE_BYTES`` changes it,
  e.g. ``500M``, ``2G`` or a number of bytes;
- a recording a scenario names (``wire: {file: ...}`` or ``{cassette: ...}``) is read only when
  it lies inside the scenario's own folder tree, the built-in recordings, or a recordings root
  named in ``HARNESS_RECORDINGS_ROOT`` (folders, separated by ``os.pathsep``), checked after
  every symlink is resolved (``confine``).

Every refusal is raised through the caller's error type (``wire_error`` for recordings,
``scenario_error`` for scenarios and histories) with the file and line 1, and its message never
quotes the file's content.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from harness._errors import HarnessError, Problem, ScenarioError, UsageError, WireError

#: Builds the error a refusal raises: (the file, its line, the problem).
ErrorFactory = Callable[[str, int, str], HarnessError]

#: The size limit when ``HARNESS_MAX_FILE_BYTES`` is not set: 128 MiB.
DEFAULT_MAX_FILE_BYTES = 128 * 1024 * 1024
LIMIT_VARIABLE = "HARNESS_MAX_FILE_BYTES"
ROOTS_VARIABLE = "HARNESS_RECORDINGS_ROOT"

_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)
_CHUNK = 1 << 20


def wire_error(path: str, line: int, message: str) -> HarnessError:
    return WireError(path, line, message)


def scenario_error(path: str, line: int, message: str) -> HarnessError:
    return ScenarioError([Problem(path, line, message)])


def max_file_bytes() -> int:
    """The size limit in force: ``HARNESS_MAX_FILE_BYTES`` if set, else the default."""
    return size_setting(LIMIT_VARIABLE, DEFAULT_MAX_FILE_BYTES)


def size_setting(variable: str, default: int) -> int:
    """A size limit an environment variable may set (``500M``, ``2G``, a number of bytes)."""
    given = os.environ.get(variable, "").strip()
    if not given:
        return default
    match = _SIZE.match(given)
    if match is None or int(match[1]) <= 0:
        raise UsageError(
            f"{variable}={given!r} is not a size: give bytes, or a number with K, M or G"
        )
    unit = (match[2] or "b")[0].lower()
    return int(match[1]) * {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[unit]


def mib(size: int) -> str:
    """A size as messages show it."""
    return f"{size / (1 << 20):,.1f} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(
    path: str | os.PathLike[str], *, what: str = "file", error: ErrorFactory = wire_error
) -> bytes:
    """The bytes of a regular file no larger than the limit; anything else raises ``error``."""
    name = os.fspath(path)
    limit = max_file_bytes()

    def refuse(message: str) -> HarnessError:
        return error(name, 1, message)

    try:
        # stat first, so a FIFO or a device is never opened at all (opening can block or act)
        mode = os.stat(name).st_mode
        if not stat.S_ISREG(mode):
            raise refuse(f"cannot read the {what}: it is {_kind(mode)}, not a regular file")
        # O_NONBLOCK: should the file be swapped for a FIFO in between, open does not wait
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise refuse(f"cannot read the {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refuse(f"cannot read the {what}: it is {_kind(info.st_mode)}")
        if info.st_size > limit:
            raise refuse(_too_large(what, info.st_size, limit))
        chunks: list[bytes] = []
        size = 0
        while True:  # read to the end, never past the limit (the file may grow meanwhile)
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise refuse(_too_large(what, size, limit))
        return b"".join(chunks)
    except OSError as exc:
        raise refuse(f"cannot read the {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _too_large(what: str, size: int, limit: int) -> str:
    return (
        f"the {what} is larger ({mib(size)}) than the {mib(limit)} a file may be; "
        f"{LIMIT_VARIABLE} raises the limit"
    )


def read_text(
    path: str | os.PathLike[str], *, what: str = "file", error: ErrorFactory = wire_error
) -> str:
    """``read_bytes`` decoded as UTF-8; a byte that is not is an error at its line."""
    raw = read_bytes(path, what=what, error=error)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(
            os.fspath(path), line, f"the {what} is not UTF-8 text (byte {raw[exc.start]:#04x})"
        ) from None


# -- confinement -----------------------------------------------------------------------------------


def recordings_roots() -> tuple[Path, ...]:
    """The folders outside a scenario's own tree its recordings may be in: the built-in
    recordings (next to the built-in library, packaged or in a checkout) and every folder
    ``HARNESS_RECORDINGS_ROOT`` names."""
    package = Path(__file__).resolve().parent
    # as harness.library finds the library: packaged inside the package, or in a checkout
    packaged = (package / "builtin_scenarios").is_dir()
    roots = [(package if packaged else package.parent) / "cassettes"]
    for part in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep):
        if part.strip():
            roots.append(Path(part.strip()).expanduser())
    return tuple(root.resolve() for root in roots)


#: files the user named themselves (on a command line, as a recording to replay): confinement
#: is for the paths a file names, not for these
_POINTED_AT: ContextVar[frozenset[Path]] = ContextVar("_POINTED_AT", default=frozenset())


@contextmanager
def pointed_at(path: str | os.PathLike[str]) -> Iterator[None]:
    """Within the block, ``confine`` admits ``path`` (resolved) wherever it is: the user named
    this file directly, so reading it leaks nothing."""
    token = _POINTED_AT.set(_POINTED_AT.get() | {Path(path).resolve()})
    try:
        yield
    finally:
        _POINTED_AT.reset(token)


def confine(
    name: str, base: str | os.PathLike[str], *, roots: Sequence[Path] | None = None
) -> Path:
    """The file a scenario in folder ``base`` means by ``name``, resolved (symlinks and ``..``
    included), if it lies inside ``base``'s tree or a recordings root; ``ValueError`` saying
    why not otherwise. The message names paths only: nothing of what the file holds."""
    folder = Path(base).resolve()
    allowed = (folder, *(recordings_roots() if roots is None else roots))
    target = (folder / Path(name).expanduser()).resolve()
    if target in _POINTED_AT.get():
        return target
    if not any(_inside(target, root) for root in allowed):
        how = "is an absolute path" if Path(name).is_absolute() else "resolves to a file"
        raise ValueError(
            f"the recording {name!r} {how} outside the scenario's folder and the recordings "
            f"roots; only files under {str(folder)!r} (or a folder named in {ROOTS_VARIABLE}) "
            "are read"
        )
    return target


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def shown(path: Path) -> str:
    """A resolved path as messages show it: relative to the working folder when it is inside
    (the same file: a resolved path has no symlink left to climb out of), else absolute."""
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# -- outputs ---------------------------------------------------------------------------------------
#
# What the harness writes (reports, converted scenarios, baselines, explored counterexamples,
# the matrix) is checked before the run that makes it, so that a path that cannot be written
# is a usage error at once, not a traceback after minutes of work; and it is written to a
# temporary file beside it and moved into place, so that a link or a named pipe at the path is
# replaced, never written through (or waited on), and a half-written file is never left.


def output_file(path: str | os.PathLike[str], *, what: str, force: bool | None = None) -> Path:
    """``path``, once it is known that ``what`` (e.g. "the HTML report") can be written there:
    its name is not too long, its folder is a folder (made if missing) that can be written,
    and it is not a folder, a device, a socket, a named pipe or a link; with ``force`` a named
    pipe or a link is replaced (never written through), a device or a socket never (None: the
    command has no ``--force``). A ``UsageError`` saying why not otherwise."""
    out = Path(path)
    shown = os.fspath(path)
    if not out.name or out.name in (".", ".."):
        raise UsageError(f"{what} needs a file name, not {shown!r}")
    _check_name(out, what)
    try:
        info = out.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError(f"cannot write {what} to {shown}: {exc.strerror or exc}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"cannot write {what} to {shown}: it is a folder")
        replaceable = stat.S_ISLNK(info.st_mode) or stat.S_ISFIFO(info.st_mode)
        if not stat.S_ISREG(info.st_mode) and not (force and replaceable):
            kind = "a link" if stat.S_ISLNK(info.st_mode) else _kind(info.st_mode)
            hint = "; --force replaces it" if force is False and replaceable else ""
            raise UsageError(
                f"cannot write {what} to {shown}: it is {kind}, not a regular file "
                f"(it is never written through{hint})"
            )
    _writable_folder(out.parent, what, shown)
    return out


def output_folder(path: str | os.PathLike[str], *, what: str) -> Path:
    """``path`` as a folder ``what`` can write files into (made if missing), or a
    ``UsageError`` saying why not."""
    out = Path(path)
    shown = os.fspath(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write {what} into {shown}: it is not a folder")
    _writable_folder(out, what, shown)
    return out


def write_output(path: Path, text: str, *, what: str) -> None:
    """``text`` (UTF-8) written to ``path`` through a temporary file beside it, moved into place;
    a failure (a full disk, ``/dev/full``) is a ``UsageError`` and leaves nothing behind."""
    data = text.encode("utf-8")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name[:40]}.", dir=folder)
    except OSError as exc:
        raise UsageError(f"cannot write {what} to {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise UsageError(f"cannot write {what} to {path}: {exc.strerror or exc}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _check_name(out: Path, what: str) -> None:
    try:
        longest = os.pathconf(_existing_ancestor(out.parent), "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    if len(os.fsencode(out.name)) > longest:
        raise UsageError(
            f"cannot write {what}: the file name is {len(os.fsencode(out.name))} bytes long, "
            f"longer than the {longest} this file system allows"
        )


def _existing_ancestor(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _writable_folder(folder: Path, what: str, shown: str) -> None:
    """``folder`` exists as a writable folder, or can be made in a writable one."""
    ancestor = _existing_ancestor(folder.absolute())
    if not ancestor.is_dir():
        raise UsageError(f"cannot write {what} to {shown}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {what} to {shown}: the folder {ancestor} is not writable")
