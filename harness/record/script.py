"""Running a user's script in this process, as ``python SCRIPT.py ARGS...`` would."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from collections.abc import Sequence


class ScriptRaised(Exception):
    """The script ended with an exception; its traceback was printed already."""


def run_script(path: str, args: Sequence[str]) -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv`` set and its folder first on
    ``sys.path``; its exit code (``sys.exit`` included). An exception it raises is printed
    as Python would, from the script's own frames on, and becomes ``ScriptRaised``."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        return _exit_code(exc.code)
    except Exception as exc:
        _print_from_script(exc, path)
        raise ScriptRaised(f"{path} raised {type(exc).__name__}") from None
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        sys.stdout.flush()
    return 0


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # as the interpreter does with sys.exit("message")
    return 1


def _print_from_script(exc: BaseException, path: str) -> None:
    """The traceback without the frames of the harness and runpy above the script."""
    tb = exc.__traceback__
    script = os.path.abspath(path)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__, file=sys.stderr)
