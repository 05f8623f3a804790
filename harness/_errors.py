"""Every exception the harness raises on purpose.

HarnessError
 +-- UsageError            bad command line, configuration or adapter name (exit code 2)
 +-- ScenarioError         a scenario file is malformed; carries located problems (exit code 2)
 +-- WireError             a recorded or streamed body cannot be read; carries its source and
 |                         line (raised by harness.wire and the codecs; exit code 2)
 +-- HistoryFormatError    (also a ValueError) a message list in neither provider shape, or a
 |                         malformed message in it (harness.history)
 +-- SecretRefused         a recorded cassette still held key-like strings after scrubbing, so
 |                         nothing was written; carries where (harness.record; exit code 2)
 +-- CassetteNotWritten    a recorded cassette could not be written (harness.record; exit code 2)
 +-- NothingRecorded       no HTTP request went through a recording that asked for one
 |                         (harness.record; `harness record` exits 1, writing nothing)
 +-- AdapterError          the adapter under test misbehaved: raised or returned garbage;
 |    |                    carries the event index; a replay reports it as an "error" result
 |    +-- Hung             it stopped making progress for longer than the time limit
 |                         (harness.replay._watchdog)
 +-- ConformanceFailure    (also an AssertionError) rules were violated; carries the result;
                           the pytest plugin raises it, so pytest shows a plain test failure

Outside the tree, on purpose:

StreamCancelled (harness.replay.driver)   a BaseException, as asyncio.CancelledError is: the
                          replayer raises it into a sync driver at the read a scenario cancels,
                          and a driver's ``except Exception`` must not swallow it
Invalid (harness.scenario._fields), _DuplicateKey, LimitExceeded (harness._yaml)
                          internal: the scenario reader's way out of one item, a YAML document
                          past the limits; the problem becomes part of a ScenarioError (or,
                          for a cassette, a WireError)
MalformedObservation, MalformedOutput (harness.model, ValueErrors)
                          internal: what the adapter returned or emitted has the wrong shape;
                          the replay turns them into an AdapterError
ScriptRaised (harness.record.script)
                          internal: the script `harness record` ran raised; its traceback is
                          printed already
ScenarioCollectError (harness.pytest_plugin)
                          internal: shows a ScenarioError as a pytest collection error
KnownCauses (harness.pytest_plugin, an AssertionError)
                          a scenario item failed with root causes the baseline knows and no
                          other: the exception its xfail marker expects
StreamError (harness.adapters.driver.gemini, a ValueError),
ResponseFailed (harness.adapters.driver.openai_responses, a RuntimeError)
                          raised by the bundled reference drivers, as a user's driver would;
                          the robust-framing rule reports a driver that raises
DriverFailed (harness.adapters.process, a RuntimeError)
                          a driver process said it failed ({"op": "done", "error": ...}); its
                          drive() raises it, as an in-process driver raising
ReadsClosed (harness.adapters.bridge, a BaseException)
                          raised into a blocking library's worker thread at each read once
                          drive() stopped, so the library ends (as StreamCancelled does)
WorkerStuck (harness.adapters.bridge, a RuntimeError)
                          the worker did not end within its time after drive() stopped
CannotExpress (harness.codecs.session.base)
                          internal: a session codec's encoder meets an event its UI protocol
                          cannot carry; the case is skipped with the message
DialectFeedError (harness.adapters.session_dialect, a RuntimeError)
                          a UI-protocol consumer raised on one of the protocol's events; says
                          which, as an adapter raising
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.replay.result import ScenarioResult


def excerpt(value: object, limit: int = 60) -> str:
    """``value`` as a message quotes what a file holds: its ``repr`` (so escaped), and no more
    than ``limit`` characters of it."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "..."
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class HarnessError(Exception):
    """Root of the harness's own exceptions."""


class UsageError(HarnessError):
    """The command line, the configuration or an adapter reference is wrong."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One located problem in an input file."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ScenarioError(HarnessError):
    """One or more problems in a scenario file, each with its file and line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class WireError(HarnessError):
    """A recording or a streamed body cannot be read; carries where (source, line) and why.

    ``source`` is a file path, or a path plus the part of it, e.g.
    ``"x.yaml interactions[1] response body"``; ``line`` counts from 1 within that source.
    """

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        super().__init__(f"{source}:{line}: {message}")

    @property
    def problem(self) -> Problem:
        """The same error as a located ``Problem``, for reports that list problems."""
        return Problem(self.source, self.line, self.message)


class AdapterError(HarnessError):
    """The adapter under test misbehaved (raised, hung or returned a malformed observation).

    ``index`` is the event the replay had reached, -1 when no event is to blame (creating the
    adapter, a driver's output). ``replay()`` catches it and reports it as an ``error`` result
    whose text names that event; the index itself is for code that drives the replayers
    directly."""

    def __init__(self, message: str, *, index: int = -1) -> None:
        super().__init__(message)
        self.index = index


class ConformanceFailure(HarnessError, AssertionError):
    """A replay violated conformance rules; ``result`` is its ``ScenarioResult`` and the text
    its failure report::

        result = replay(scenario, "my_project.testing:make_adapter")
        if result.status == "fail":
            raise ConformanceFailure(result, render_failure(result))
    """

    def __init__(self, result: ScenarioResult, message: str) -> None:
        super().__init__(message)
        self.result = result
