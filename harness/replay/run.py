"""Running replays: one scenario against a fresh adapter (``replay``), and the pipeline every
runner of many shares (``harness run``, the pytest plugin, ``harness demo``, ``harness matrix``):
the scenarios it was given, narrowed to layers and expanded into cases (``cases_to_run``), then
each case replayed in order (``run_cases``). Resolving the adapter and loading the scenarios stay
with each runner: each says its own errors, in its own order.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from harness._errors import AdapterError, UsageError
from harness.adapters.protocol import adapter_layers
from harness.adapters.registry import AdapterInfo, declared_layers, resolve_adapter
from harness.adapters.session_dialect import in_dialect
from harness.codecs import Codec
from harness.codecs.registry import with_codecs
from harness.codecs.session.base import encoder_for, producer_variants
from harness.replay._watchdog import Hung, Progress, run_guarded
from harness.replay.cases import cases_for
from harness.replay.dialects import adapter_session_dialect, dialect_case
from harness.replay.driver import DriverReplay
from harness.replay.history import HistoryReplay
from harness.replay.reference import compare_with_reference
from harness.replay.result import ScenarioResult, Status
from harness.replay.session import SessionReplay
from harness.results.attribution import attribute_causes
from harness.rules.registry import rules_for
from harness.scenario import DriverScenario, LoopScenario, Scenario, SessionScenario
from harness.scenario.cases import ALL, NONE, Selection
from harness.scenario.cases import first_party as is_first_party
from harness.scenario.variations import check_variations

#: Seconds one adapter call may take before the replay is abandoned as hung.
DEFAULT_TIMEOUT = 10.0
#: A time limit longer than a day is no limit anyone means (and past it timers overflow).
MAX_TIMEOUT = 86_400.0


def time_limit(text: str | float, what: str) -> float:
    """``text`` as a time limit in seconds, or a ``UsageError`` saying why it is none (not a
    number, not positive, NaN, or longer than a day), worded alike wherever a limit is given."""
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        raise UsageError(f"{what} must be a number of seconds, got {text!r}") from None
    if not 0 < seconds <= MAX_TIMEOUT:  # NaN fails every comparison
        raise UsageError(
            f"{what} must be positive and at most a day ({MAX_TIMEOUT:g} seconds), got {text}"
        )
    return seconds


def replay(
    scenario: Scenario,
    adapter: str | AdapterInfo,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    only_rules: Iterable[str] = (),
    skip_rules: Iterable[str] = (),
    codecs: Iterable[Codec] | None = None,
) -> ScenarioResult:
    """Replay one scenario against a fresh adapter and check every enabled rule.

    >>> from harness import load_scenario, replay
    >>> result = replay(load_scenario("scenarios/session/tool-first-turn.yaml"), "session-reference")
    >>> result.status
    'pass'

    ``codecs`` adds dialects for this replay only (each replacing a known codec of its name),
    without registering them: ``replay(scenario, my_driver, codecs=[GatewayCodec()])``.
    """
    known = None if codecs is None else with_codecs(codecs)  # checked even for other layers
    info = resolve_adapter(adapter) if isinstance(adapter, str) else adapter
    if isinstance(scenario, LoopScenario):
        return _whole_program_only(scenario, info)
    rules = rules_for(
        scenario.layer, disabled=(*scenario.disable_rules, *skip_rules), only=only_rules
    )
    started = time.perf_counter()
    # a consumer of a UI protocol: the scenario as the protocol carries it, and the rules of
    # the protocol's profile (harness.codecs.session)
    dialect = None
    if isinstance(scenario, SessionScenario) and scenario.layer == "session":
        try:
            dialect = adapter_session_dialect(info, timeout)
        except AdapterError as exc:  # a process that cannot say hello: once is enough
            seconds = time.perf_counter() - started
            return ScenarioResult(scenario, info.name, "error", error=str(exc), seconds=seconds)
        if dialect is not None:
            case = dialect_case(scenario, dialect)
            if isinstance(case, str):
                return ScenarioResult(
                    scenario,
                    info.name,
                    "skip",
                    skip_reason=case,
                    seconds=time.perf_counter() - started,
                )
            scenario = case
            profile = dialect.profile
            rules = [r for r in rules if r.id not in profile or profile[r.id].applies]
        if scenario.producer and (
            dialect is None or scenario.producer not in producer_variants(dialect)
        ):
            return ScenarioResult(
                scenario,
                info.name,
                "skip",
                skip_reason=(
                    f"a case of the producer variant {scenario.producer!r} of a session dialect; "
                    f"the adapter reads "
                    + (f"the {dialect.name} dialect" if dialect else "canonical session events")
                ),
                seconds=time.perf_counter() - started,
            )
    run: SessionReplay | DriverReplay
    if isinstance(scenario, DriverScenario):
        run = DriverReplay(scenario, rules, known)
    else:
        run = (HistoryReplay if scenario.layer == "history" else SessionReplay)(scenario, rules)
        compare_with_reference(run, info.name, rules, dialect)
    # the harness's own time is counted in it, apart from the adapter's: from here on, and
    # deriving the expectations just now
    progress = Progress(harness_seconds=time.perf_counter() - started)
    made: list[object] = []
    lacking: list[tuple[str, ...]] = []  # the adapter's layers, when it lacks the scenario's

    def body(progress: Progress) -> str | None:
        progress.calls += 1
        try:
            instance = info.factory()
            made.append(instance)
        except Exception as exc:
            raise AdapterError(f"creating the adapter raised {type(exc).__name__}: {exc}") from exc
        try:
            layers = adapter_layers(instance)
        except Exception as exc:
            raise AdapterError(
                f"asking the adapter which layers it implements raised {type(exc).__name__}: {exc}",
            ) from exc
        if scenario.layer not in layers:
            lacking.append(layers)
            offered = ", ".join(layers) or "none"
            return f"needs the {scenario.layer} layer; the adapter implements: {offered}"
        if isinstance(run, DriverReplay):
            with progress.harness():  # can the dialect carry the turn: encoding, maybe
                reason = run.skip_reason(instance)
            if reason is not None:
                return reason
        if dialect is not None and isinstance(run, SessionReplay):
            encoder = encoder_for(dialect, run.delivered, run.scenario.producer)
            instance = in_dialect(instance, encoder)
        run.run(instance, progress)
        return None

    def result(
        status: Status, error: str | None = None, skip_reason: str | None = None
    ) -> ScenarioResult:
        seconds = time.perf_counter() - started
        return ScenarioResult(
            scenario,
            info.name,
            status,
            attribute_causes(run.violations),
            error,
            skip_reason,
            seconds,
            run.observation,
            tuple(r.id for r in rules),
            lacking[0] if lacking and status == "skip" else None,
            harness_seconds=progress.harness_time(time.perf_counter()),
            driver_run=getattr(run, "driver_run", None),
            histories=getattr(run, "histories", None),
        )

    try:
        skip_reason = run_guarded(body, limit=timeout, progress=progress)
    except Hung as exc:
        _close(made, hung=True)
        return result("error", error=str(exc))
    except AdapterError as exc:
        _close(made, hung=False)
        return result("error", error=str(exc))
    _close(made, hung=False)
    if skip_reason is not None:
        return result("skip", skip_reason=skip_reason)
    return result("fail" if run.violations else "pass")


def _whole_program_only(scenario: LoopScenario, info: AdapterInfo) -> ScenarioResult:
    """A loop scenario is served to a whole program (``harness loop``, the ``harness_loop``
    fixture), never replayed into an adapter: left out, as a layer the adapter lacks."""
    try:
        layers = declared_layers(info)
    except Exception:
        layers = (info.layer,)
    return ScenarioResult(
        scenario,
        info.name,
        "skip",
        skip_reason=(
            "needs the loop layer, a whole program served over HTTP (harness loop, the "
            f"harness_loop fixture); the adapter implements: {', '.join(layers) or 'none'}"
        ),
        adapter_layers=layers,
    )


def _close(made: list[object], *, hung: bool) -> None:
    """Let an adapter that holds resources (a process, a socket) release them: ``kill()`` first
    if it hung, then ``close()``, each if it has one."""
    for instance in made:
        for name in ("kill", "close") if hung else ("close",):
            method = getattr(instance, name, None)
            if callable(method):
                with contextlib.suppress(Exception):  # a failing clean-up must not hide the result
                    method()


def cases_to_run(
    scenarios: Sequence[Scenario],
    adapter: AdapterInfo,
    *,
    quirks: Selection = ALL,
    layers: Sequence[str] = (),
    where: str = "the scenarios given",
    first_party: bool = False,
    variations: Selection = ALL,
    notes: list[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[Scenario]:
    """The cases to replay against ``adapter``: the scenarios of ``layers`` (of every layer when
    none is given), each driver scenario replaced by its cases in the adapter's dialect as
    ``quirks`` selects them (``"all"``, ``"none"``: the scenarios as written, or the quirks of
    the one case to run; see ``replay.cases.cases_for``), and each session or history scenario
    by its cases as ``variations`` selects them (the same words, with variation names). ``first_party``: only the cases of
    shapes first-party servers send (no case tagged ``gateway``: a scenario so tagged, or a quirk
    case adding a quirk only gateways send).
    ``notes``: told of what the cases leave out (``cases_for``); ``timeout``: how long an
    ``exec:`` process may take to say which UI protocol it reads.

    A ``UsageError``, in the words of ``harness run`` (``where``: the paths the scenarios came
    from), when ``layers`` leave no scenario, when the dialect has no quirk of that name (or
    there is no variation of that name), or when no scenario can carry the one case ``quirks``
    (or ``variations``) names.
    """
    if layers:
        scenarios = [s for s in scenarios if s.layer in layers]
        if not scenarios:
            named = " or ".join(dict.fromkeys(layers))
            raise UsageError(f"no scenario of the {named} layer under {where}")
    if variations not in (ALL, NONE):
        try:
            check_variations(variations)
        except ValueError as exc:
            raise UsageError(f"--variations: {exc}") from None
    # what the user named: quirks for driver scenarios, variations (producer variants among
    # them) for the others
    option = "--quirks" if any(isinstance(s, DriverScenario) for s in scenarios) else ""
    option = option or "--variations"
    try:
        cases = cases_for(
            scenarios, adapter, quirks, variations=variations, timeout=timeout, notes=notes
        )
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from None
    if scenarios and not cases:
        raise UsageError(f"no scenario under {where} can carry {option}")
    if first_party:
        cases = [case for case in cases if is_first_party(case)]
        if not cases:
            raise UsageError(f"no case under {where} is of a first-party shape")
    return cases


def run_cases(
    cases: Iterable[Scenario],
    adapter: AdapterInfo,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    only_rules: Iterable[str] = (),
    skip_rules: Iterable[str] = (),
    on_case: Callable[[int, Scenario], None] | None = None,
    keep_outputs: Callable[[ScenarioResult], bool] | None = None,
) -> Iterator[ScenarioResult]:
    """Each case replayed against a fresh adapter (``replay``), in order, its result yielded as
    soon as it is known: a case is replayed only when the next result is asked for.
    ``on_case(number, case)`` is told of each case (numbered from 1) just before its replay, so
    that a progress line can name the case running (or hanging) now. ``keep_outputs``: which
    results keep what the consumer showed; the others come slim (``ScenarioResult.slim``),
    made so here, before the next case runs, not by the caller once it has, when a loop
    variable or a generator still holds the last result: a run of a long turn then holds one
    case's stream and outputs at a time, not two.

    >>> from harness import load_scenario, resolve_adapter
    >>> scenario = load_scenario("scenarios/session/tool-first-turn.yaml")
    >>> [r.status for r in run_cases([scenario], resolve_adapter("session-reference"))]
    ['pass']
    """
    only, skip = tuple(only_rules), tuple(skip_rules)  # read by every replay
    for number, case in enumerate(cases, 1):
        if on_case is not None:
            on_case(number, case)
        result = replay(case, adapter, timeout=timeout, only_rules=only, skip_rules=skip)
        if keep_outputs is not None and not keep_outputs(result):
            result = result.slim()  # this frame holds it too while the caller works
        yield result
