"""The ``harness`` command: a thin shell over the library.

Exit codes: 0 everything passed, 1 a rule was violated (or an adapter misbehaved), 2 the command
line, the adapter named or an input file is wrong, 5 every scenario was skipped (nothing was
checked: the adapter implements none of their layers or dialects); 141 (128 + SIGPIPE, as a shell reports it) when whoever read the
output closed the pipe early, as ``harness run ... | head`` does.

Each subcommand is declared once, with ``@command`` on its handler: its name, its help and the
function adding its arguments, written just above the handler. ``build_parser`` adds them in the
order they are declared, which is the order ``harness --help`` lists them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from harness._errors import HarnessError, Problem, ScenarioError, UsageError
from harness._files import output_file, output_folder, write_output
from harness._progress import TerminalProgress
from harness.scenario import LAYERS, LoopScenario, Scenario
from harness.scenario.variations import VARIATIONS
from harness.wire import WireError

VARIATION_NAMES = tuple(VARIATIONS)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: as pytest's "no tests ran": a run that checked nothing is not a pass
EXIT_NOTHING_CHECKED = 5
EXIT_BROKEN_PIPE = 141


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"harness: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


@dataclass(frozen=True)
class Command:
    """A subcommand: its name and one-line help (``harness --help``), its description
    (``harness NAME --help``), the function adding its arguments, and its handler, which returns
    the exit code."""

    name: str
    help: str
    description: str | None
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]
    #: the command takes a program to run after ``--`` (``args.program``; empty when not given)
    takes_program: bool = False


#: every subcommand, in the order ``harness --help`` lists them: the order they are declared in
_COMMANDS: dict[str, Command] = {}

_Handler = TypeVar("_Handler", bound=Callable[[argparse.Namespace], int])


def command(
    name: str,
    *,
    help: str,
    arguments: Callable[[argparse.ArgumentParser], None],
    description: str | None = None,
    takes_program: bool = False,
) -> Callable[[_Handler], _Handler]:
    """Declare the decorated handler as the subcommand ``name``, whose arguments ``arguments``
    adds: each command's arguments are written beside its handler. ``takes_program``: what
    follows the first ``--`` is a program to run, handed over whole as ``args.program``."""

    def declare(handler: _Handler) -> _Handler:
        _COMMANDS[name] = Command(name, help, description, arguments, handler, takes_program)
        return handler

    return declare


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="harness", description="Conformance harness for streaming agent event consumers."
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for declared in _COMMANDS.values():
        declared.add_arguments(
            sub.add_parser(declared.name, help=declared.help, description=declared.description)
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        given = list(sys.argv[1:] if argv is None else argv)
        program: list[str] = []
        declared = _COMMANDS.get(given[0]) if given else None
        if declared is not None and declared.takes_program and "--" in given:
            at = given.index("--")
            given, program = given[:at], given[at + 1 :]
        args = build_parser().parse_args(given)
        args.program = program
        code = int(_COMMANDS[args.command].handler(args))
        sys.stdout.flush()  # here, so that a closed pipe is met inside the try
        return code
    except BrokenPipeError:
        # Nobody reads the rest. Point stdout at devnull so the interpreter's own flush at exit
        # does not fail again, and end as a process that SIGPIPE ended would.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except ScenarioError as exc:
        _print_problems(exc.problems)
        return EXIT_USAGE
    except WireError as exc:
        _print_problems([exc.problem])
        return EXIT_USAGE
    except UsageError as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except HarnessError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130


def _print_problems(problems: Sequence[Problem]) -> None:
    for problem in problems:
        print(f"{problem.path}:{problem.line}: error: {problem.message}", file=sys.stderr)


def _load(paths: Sequence[str]) -> list[Scenario]:
    from harness.library import resolve_command_line_path
    from harness.scenario import load_all

    scenarios, problems = load_all([resolve_command_line_path(p) for p in paths])
    if problems:
        raise ScenarioError(problems)
    if not scenarios:
        raise UsageError(f"no scenario files (*.yaml, *.yml) under {', '.join(paths)}")
    return scenarios


def _check_rule_ids(ids: Sequence[str]) -> None:
    from harness.rules import RULES

    for rule_id in ids:
        if rule_id not in RULES:
            raise UsageError(f"unknown rule id {rule_id!r}; `harness rules` lists them")


def _case_options(parser: argparse.ArgumentParser) -> None:
    """The case of a driver scenario a command picks (as ``replay.cases.pick_case`` reads it)."""
    parser.add_argument(
        "--dialect", help="a driver scenario's dialect (default: its first that can carry it)"
    )
    parser.add_argument(
        "--quirk", action="append", default=[], metavar="Q", help="add this quirk (repeatable)"
    )


def _quirk_selection(text: str) -> str | tuple[str, ...]:
    if text in ("all", "none"):
        return text
    quirks = tuple(q.strip() for q in text.split(","))
    if not all(quirks):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give all, none or quirk names joined by commas"
        )
    return quirks


def _variation_selection(text: str) -> str | tuple[str, ...]:
    if text in ("all", "none"):
        return text
    from harness.replay.dialects import all_producer_variants

    names = tuple(v.strip() for v in text.split(","))
    producers = all_producer_variants()
    unknown = [v for v in names if v not in VARIATION_NAMES and v not in producers]
    if not all(names) or unknown:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give all, none or variation names joined by commas "
            f"({', '.join(VARIATION_NAMES)}), with at most one producer variant of the "
            f"adapter's session dialect ({', '.join(producers)})"
        )
    return names


# -- the commands, in the order harness --help lists them: each one's arguments, then it ----------


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="scenario files or folders (searched recursively)"
    )
    parser.add_argument(
        "--adapter",
        required=True,
        help="a bundled adapter's name, MODULE:FACTORY, or exec:COMMAND for a consumer in another process",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--html", default=None, metavar="REPORT.html", help="also write an HTML report of the run"
    )
    parser.add_argument(
        "--layer",
        action="append",
        default=[],
        choices=LAYERS,
        metavar="LAYER",
        help=f"only scenarios of this layer ({', '.join(LAYERS)}; repeatable)",
    )
    parser.add_argument(
        "--rule", action="append", default=[], metavar="ID", help="check only these rules"
    )
    parser.add_argument(
        "--skip-rule", action="append", default=[], metavar="ID", help="do not check these rules"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time limit for one adapter call (default 10); the harness's own checks do not count",
    )
    parser.add_argument(
        "--quirks",
        default="all",
        type=_quirk_selection,
        metavar="all|none|Q[,Q]",
        help="driver scenarios: every case of the quirk cross product (all, the default), only "
        "the scenarios as written (none), or the one case adding these quirks",
    )
    parser.add_argument(
        "--variations",
        default="all",
        type=_variation_selection,
        metavar="all|none|V[,V]",
        help="session and history scenarios: every case of the variations (all, the default), "
        "only the scenarios as written (none), or the one case of these variations ("
        + ", ".join(VARIATION_NAMES)
        + "); for a consumer of a UI protocol, every case includes those of its session "
        "dialect's producer variants, and one may be named (docs/ui-protocols.md)",
    )
    parser.add_argument(
        "--first-party",
        action="store_true",
        help="only the cases of shapes first-party servers send (no case tagged gateway: a "
        "scenario so tagged, or a quirk only gateways and proxies send)",
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        default=None,
        help="write the run's root causes to FILE (YAML), to accept them as known gaps",
    )
    parser.add_argument(
        "--baseline",
        metavar="FILE",
        default=None,
        help="known root causes (written by --write-baseline): exit 0 while only they fail, 1 on "
        "any new cause, and 1 on an entry whose scenario ran without it (fixed: remove it)",
    )
    parser.add_argument(
        "--baseline-warn-fixed",
        action="store_true",
        help="with --baseline: a fixed entry is only reported, not a failure",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="table: every failed case with its violations, instead of each root cause once, "
        "and the adapter's seconds and the harness's own on each line",
    )


@command(
    "run",
    help="replay scenarios against an adapter",
    description="Replay scenarios against an adapter. Exit 0 all passed (skips allowed; with "
    "--baseline: only known causes failed), 1 a rule was violated or the adapter misbehaved "
    "(with --baseline: a new cause, or a fixed entry), 2 a usage or input error (found before "
    "anything runs), 5 every scenario was skipped, so nothing was checked.",
    arguments=_run_arguments,
)
def cmd_run(args: argparse.Namespace) -> int:
    from harness.adapters.registry import check_adapter, resolve_adapter
    from harness.replay import DEFAULT_TIMEOUT, cases_to_run, run_cases
    from harness.replay.run import time_limit
    from harness.report import render_table
    from harness.results.baseline import read_baseline, write_baseline
    from harness.results.causes import group_causes, result_json

    _check_rule_ids([*args.rule, *args.skip_rule])
    if args.html:
        output_file(args.html, what="the HTML report")
    if args.write_baseline:
        output_file(args.write_baseline, what="the baseline")
    timeout = DEFAULT_TIMEOUT if args.timeout is None else time_limit(args.timeout, "--timeout")
    if args.baseline_warn_fixed and not args.baseline:
        raise UsageError("--baseline-warn-fixed goes with --baseline FILE")
    baseline = read_baseline(args.baseline) if args.baseline else None
    adapter = resolve_adapter(args.adapter)
    scenarios = _load(args.paths)
    check_adapter(adapter, timeout)
    notes: list[str] = []
    cases = cases_to_run(
        scenarios,
        adapter,
        quirks=args.quirks,
        variations=args.variations,
        layers=args.layer,
        where=", ".join(args.paths),
        first_party=args.first_party,
        notes=notes,
        timeout=timeout,
    )
    for note in notes:
        print(f"harness: {note}", file=sys.stderr)
    with TerminalProgress() as progress:

        def replaying(number: int, case: Scenario) -> None:
            progress.update(f"scenario {number}/{len(cases)} {case.case_id}")

        # the reports draw what a failed case showed; nothing needs a passed one's
        results = list(
            run_cases(
                cases,
                adapter,
                timeout=timeout,
                only_rules=args.rule,
                skip_rules=args.skip_rule,
                on_case=replaying,
                keep_outputs=lambda r: r.status in ("fail", "error"),
            )
        )
    causes = group_causes(results)
    judged = None
    if baseline is not None:
        judged = baseline.judge(causes, ran={r.scenario.id for r in results if r.status != "skip"})
    if args.format == "json":
        data: dict[str, object] = {
            "results": [result_json(r) for r in results],
            "causes": [c.to_json() for c in causes],
        }
        if notes:
            data["notes"] = notes
        if judged is not None:
            data["baseline"] = judged.to_json()
        print(json.dumps(data, indent=2))
    else:
        known = baseline.entries if baseline is not None else ()
        print(
            render_table(
                results, times=args.verbose, every_case=args.verbose, known=known, causes=causes
            )
        )
    if args.html:
        from harness.report.html import write_report, written

        path = write_report(args.html, results, adapter=args.adapter)
        print(f"harness: {written(path)}", file=sys.stderr)
    if args.write_baseline:
        write_baseline(args.write_baseline, causes)
        print(
            f"harness: wrote {len(causes)} root causes to {args.write_baseline}",
            file=sys.stderr,
        )
    if judged is not None:
        for line in judged.lines():
            print(f"harness: {line}", file=sys.stderr)
        if judged.new or (judged.fixed and not args.baseline_warn_fixed):
            return EXIT_FAILED
        return EXIT_OK
    if any(r.status in ("fail", "error") for r in results):
        return EXIT_FAILED
    if all(r.status == "skip" for r in results):
        print(
            f"harness: all {len(results)} scenarios were skipped, so nothing was checked "
            f"(exit {EXIT_NOTHING_CHECKED}); {adapter.name} implements none of what they need",
            file=sys.stderr,
        )
        return EXIT_NOTHING_CHECKED
    return EXIT_OK


def _show_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO", help="a scenario file")
    _case_options(parser)
    parser.add_argument(
        "--reads",
        choices=("events", "bytes"),
        default="events",
        help="the reads of a driver that reads whole events (the default) or bytes",
    )


@command(
    "show",
    help="a scenario's events, or the exact chunks a driver reads, numbered as failures number them",
    arguments=_show_arguments,
)
def cmd_show(args: argparse.Namespace) -> int:
    from harness.codecs import dialects
    from harness.library import resolve_command_line_path
    from harness.replay.cases import fed_chunks, pick_case
    from harness.replay.driver import DriverReplay
    from harness.report import chunk_line, event_line
    from harness.scenario import DriverScenario, load_scenario

    scenario = load_scenario(resolve_command_line_path(args.scenario))
    if isinstance(scenario, LoopScenario):
        if args.quirk or args.reads != "events":
            raise UsageError(
                f"{args.scenario} is a loop scenario: --quirk and --reads do not apply"
            )
        _show_loop(scenario, args.dialect)
        return EXIT_OK
    if not isinstance(scenario, DriverScenario):
        if args.dialect or args.quirk or args.reads != "events":
            raise UsageError(
                f"{args.scenario} is a {scenario.layer} scenario: --dialect, --quirk and --reads "
                "are for driver scenarios"
            )
        count = len(scenario.events)
        print(f"{scenario.path}: {scenario.id} ({scenario.title}), {count} events")
        for index, event in enumerate(scenario.events):  # one pass over a generated trace
            print(event_line(scenario, index, event))
        return EXIT_OK
    case, codec = pick_case(scenario, args.dialect, tuple(args.quirk), dialects())
    reads: Sequence[Any] = fed_chunks(case, codec)
    what = "chunks, each one whole event"
    if args.reads == "bytes":
        reads = DriverReplay(case, ()).reads(tuple(reads))[0]
        what = "reads of the body's bytes"
    if case.body_cut is not None:
        what += f", the body cut after chunk {case.body_cut}"
    print(f"{scenario.path}: {case.case_id} ({scenario.title}), {len(reads)} {what}")
    for number, read in enumerate(reads, 1):
        print(chunk_line(number, read))
    return EXIT_OK


def _show_loop(scenario: LoopScenario, dialect: str | None) -> None:
    """A loop scenario's responses, each with its turn's events, and (with ``dialect``) the
    chunks each is served as."""
    from harness.codecs import dialects
    from harness.report import chunk_line, event_line
    from harness.scenario import DriverScenario
    from harness.scenario.types import fields_of
    from harness.standin.loop import served_chunks

    count = len(scenario.responses)
    print(f"{scenario.path}: {scenario.id} ({scenario.title}), {count} responses")
    for n, response in enumerate(scenario.responses, 1):
        print(f"response {n}  line {response.line}  agent {response.agent}")
        if dialect is None:
            single = DriverScenario(**fields_of(scenario), turn=response.turn)
            for index, event in enumerate(response.turn):
                print("  " + event_line(single, index, event))
            continue
        if dialect not in scenario.dialects:
            raise UsageError(f"{scenario.id} runs in {', '.join(scenario.dialects)}, not {dialect}")
        for number, chunk in enumerate(served_chunks(response, scenario, dialect, dialects()), 1):
            print("  " + chunk_line(number, chunk))


def _validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH")


@command("validate", help="check scenario files", arguments=_validate_arguments)
def cmd_validate(args: argparse.Namespace) -> int:
    scenarios = _load(args.paths)
    events = sum(
        sum(len(r.turn) for r in s.responses) if isinstance(s, LoopScenario) else len(s.events)
        for s in scenarios
    )
    print(f"{len(scenarios)} scenarios valid ({events:,} events after expansion)")
    return EXIT_OK


def _adapters_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("table", "json"), default="table")


@command("adapters", help="list the bundled adapters", arguments=_adapters_arguments)
def cmd_adapters(args: argparse.Namespace) -> int:
    from harness.adapters.registry import BUNDLED

    if args.format == "json":
        print(json.dumps([a.to_json() for a in BUNDLED.values()], indent=2))
        return EXIT_OK
    width = max(len(name) for name in BUNDLED)
    for info in BUNDLED.values():
        print(f"{info.name:<{width}}  {info.layer:<8} {info.kind:<9} {info.bug or ''}")
    return EXIT_OK


def _rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("table", "json"), default="table")


@command("rules", help="list the conformance rules", arguments=_rules_arguments)
def cmd_rules(args: argparse.Namespace) -> int:
    from harness.rules import RULES

    if args.format == "json":
        print(
            json.dumps(
                [
                    {"id": r.id, "layer": r.layer, "statement": r.statement, "source": r.source}
                    for r in RULES.values()
                ],
                indent=2,
            )
        )
        return EXIT_OK
    for r in RULES.values():
        print(f"{r.id}  [{r.layer}]  {r.statement}  ({r.source})")
    return EXIT_OK


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--events", type=int, default=None, help="the trace's events (100,000)")
    parser.add_argument(
        "--wire",
        metavar="CASSETTE",
        help="a recording (vcrpy cassette or raw body) to replay both ways and time",
    )
    parser.add_argument(
        "--interaction",
        type=int,
        default=None,
        metavar="N",
        help="with --wire: the cassette's interaction (default: its first streamed one)",
    )
    parser.add_argument(
        "--rounds", type=int, default=7, metavar="R", help="with --wire: timed rounds (default 7)"
    )


@command(
    "bench",
    help="measure the harness's overhead on a long session trace, or (--wire) a recording "
    "replayed directly against vcrpy and its SDK",
    arguments=_bench_arguments,
)
def cmd_bench(args: argparse.Namespace) -> int:
    from harness.bench import run_bench, run_wire_bench
    from harness.scenario.generators import MAX_EVENTS

    if args.wire is None:
        if args.interaction is not None:
            raise UsageError("--interaction goes with --wire")
        events = 100_000 if args.events is None else args.events
        if not 100 <= events <= MAX_EVENTS:
            raise UsageError(f"--events must be between 100 and {MAX_EVENTS:,}, got {events:,}")
        print("\n".join(run_bench(events).lines()))
        return EXIT_OK
    if args.events is not None:
        raise UsageError("--events measures the session trace; it does not go with --wire")
    if args.rounds < 1:
        raise UsageError(f"--rounds must be at least 1, got {args.rounds}")
    if args.interaction is not None and args.interaction < 0:
        raise UsageError(f"--interaction counts from 0, got {args.interaction}")
    print("\n".join(run_wire_bench(args.wire, args.interaction, args.rounds).lines()))
    return EXIT_OK


def _explore_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--adapter", required=True, help="as for harness run")
    parser.add_argument(
        "--layer", choices=LAYERS, help="the layer to explore (default: the adapter's first)"
    )
    parser.add_argument(
        "--max-examples",
        type=int,
        default=None,
        metavar="N",
        help="generated scenarios to try at most (default 300)",
    )
    parser.add_argument("--seed", type=int, default=None, help="for a repeatable search")
    parser.add_argument(
        "--first-party",
        action="store_true",
        help="driver streams only as the dialect's own servers send them (no gateway-only quirks)",
    )
    parser.add_argument(
        "--out",
        default="harness-explored",
        metavar="DIR",
        help="where a counterexample is written (default ./harness-explored)",
    )


@command(
    "explore",
    help="generated scenarios against an adapter; a failure is shrunk and written as YAML",
    arguments=_explore_arguments,
)
def cmd_explore(args: argparse.Namespace) -> int:
    import dataclasses

    from harness.adapters.registry import check_adapter, declared_layers, resolve_adapter
    from harness.explore import DEFAULT_EXAMPLES, explore

    adapter = resolve_adapter(args.adapter)
    check_adapter(adapter)
    offered = declared_layers(adapter)
    if args.layer and args.layer not in offered:
        raise UsageError(f"{adapter.name} implements {', '.join(offered)}, not {args.layer}")
    adapter = dataclasses.replace(adapter, layer=args.layer or offered[0])
    budget = DEFAULT_EXAMPLES if args.max_examples is None else args.max_examples
    output_folder(args.out, what="the counterexample")
    exploration = explore(
        adapter, max_examples=budget, seed=args.seed, out=args.out, first_party=args.first_party
    )
    print("\n".join(exploration.lines()))
    return EXIT_OK if exploration.found is None else EXIT_FAILED


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="scenario folders (default: the built-in library)"
    )
    parser.add_argument(
        "--html",
        default=None,
        metavar="REPORT.html",
        help="also write an HTML report of the run (which then runs in one process)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes to replay in (default: one per core available)",
    )
    parser.add_argument(
        "--first-party",
        action="store_true",
        help="only the cases of shapes first-party servers send (no case tagged gateway)",
    )


@command(
    "demo", help="the built-in library against every bundled adapter", arguments=_demo_arguments
)
def cmd_demo(args: argparse.Namespace) -> int:
    from harness.demo import render_libraries, render_matrix, run_matrix, run_matrix_parallel
    from harness.library import library_path, resolve_command_line_path
    from harness.replay.result import ScenarioResult

    paths = [str(resolve_command_line_path(p)) for p in args.paths or [str(library_path())]]
    scenarios = _load(paths)
    jobs = _usable_cores() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError(f"--jobs takes a number of processes, 1 or more; got {jobs}")
    if args.html:
        output_file(args.html, what="the HTML report")
    replayed = 0
    with TerminalProgress() as progress:

        def count(result: ScenarioResult) -> None:
            nonlocal replayed
            replayed += 1
            progress.update(f"{replayed} cases replayed ({result.adapter})")

        if jobs > 1 and not args.html:  # the report draws what the workers do not hand back
            rows, libraries = run_matrix_parallel(
                paths, scenarios, jobs, on_result=count, first_party=args.first_party
            )
        else:
            rows = run_matrix(scenarios, on_result=count, first_party=args.first_party)
            libraries = render_libraries(scenarios)
    print(render_matrix(rows, first_party=args.first_party))
    if args.html:
        from harness.report.html import write_report, written

        results = [r for row in rows for r in row.results]
        path = write_report(args.html, results, title="harness demo", per_adapter=(1, 5))
        print(f"harness: {written(path)}", file=sys.stderr)
    if libraries is not None:  # a report: the libraries' failures are not the demo's
        print(f"\n{libraries}")
    if args.first_party:  # a view of what first-party shapes catch: only the references count
        return EXIT_OK if all(r.ok for r in rows if r.adapter.kind == "reference") else EXIT_FAILED
    return EXIT_OK if all(r.ok for r in rows) else EXIT_FAILED


def _usable_cores() -> int:
    """The cores this process may run on (a container or ``taskset`` may allow fewer)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _coverage_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="scenario folders (default: the built-in library)"
    )


@command(
    "coverage",
    help="per rule, mutant and quirk: how many scenarios exercise, catch or run under it",
    arguments=_coverage_arguments,
)
def cmd_coverage(args: argparse.Namespace) -> int:
    from harness.coverage import measure
    from harness.demo import run_matrix
    from harness.library import library_path

    print("\n".join(measure(run_matrix(_load(args.paths or [str(library_path())]))).lines()))
    return EXIT_OK


def _matrix_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument(
        "--out", metavar="FILE", help="write to FILE instead of printing (docs/conformance.md)"
    )
    parser.add_argument(
        "--library",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this library (repeatable); the others are left out of the output, and "
        "so are the framework loops unless --loop names some",
    )
    parser.add_argument(
        "--loop",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this framework's agent loop over the loop scenarios (repeatable; "
        "harness.adapters.loop.frameworks.FRAMEWORK_LOOPS); the libraries are left out unless "
        "--library names some",
    )
    parser.add_argument(
        "--from",
        dest="parts",
        nargs="+",
        default=[],
        metavar="PART.json",
        help="run nothing: merge the JSON parts other environments wrote (--format json) into "
        "one document",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when a cause or a framework loop's failed run is not explained, or an "
        "installed library's or loop's explanation covers none (the output is written all the "
        "same)",
    )


@command(
    "matrix",
    help="every installed consumer library against every case of the built-in driver scenarios "
    "(a UI protocol's consumer: of the session scenarios), and every installed framework's agent "
    "loop against the loop scenarios",
    arguments=_matrix_arguments,
)
def cmd_matrix(args: argparse.Namespace) -> int:
    from harness.loop.frameworks import choose_loops, loop_problems, run_frameworks
    from harness.matrix import (
        choose,
        document,
        matrix_scenarios,
        merge,
        problems,
        render_json,
        render_markdown,
        run_libraries,
    )

    if args.parts and (args.library or args.loop or args.check):
        raise UsageError(
            "--from merges parts already run: --library, --loop and --check do not apply"
        )
    out = output_file(args.out, what="the matrix") if args.out else None
    found: list[str] = []
    if args.parts:
        parts = [_matrix_part(path) for path in args.parts]
        try:
            doc = merge(parts, args.parts)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    else:
        try:
            chosen = choose(args.library)
        except ValueError as exc:
            raise UsageError(f"--library: {exc}") from None
        try:
            loops = choose_loops(args.loop)
        except ValueError as exc:
            raise UsageError(f"--loop: {exc}") from None
        # naming only loops leaves the libraries out, and naming only libraries the loops
        libraries = [] if args.loop and not args.library else chosen
        runs = run_libraries(matrix_scenarios(libraries), libraries)
        loop_runs = run_frameworks(loops or None) if args.loop or not args.library else None
        doc = document(runs, loop_runs)
        found = [*problems(runs), *loop_problems(loop_runs or ())] if args.check else []
    text = render_json(doc) if args.format == "json" else render_markdown(doc)
    if out is not None:
        write_output(out, text, what="the matrix")
    else:
        print(text, end="")
    for problem in found:
        print(f"matrix: {problem}", file=sys.stderr)
    return EXIT_FAILED if found else EXIT_OK


def _matrix_part(path: str) -> Any:
    part = _read_json(path, "a matrix part")
    entries = part.get("libraries") if isinstance(part, dict) else None
    loops = part.get("loops", []) if isinstance(part, dict) else None
    if not all(
        isinstance(listed, list)
        and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in listed)
        for listed in (entries, loops)
    ):
        raise UsageError(
            f"{path}: not a matrix part: it should be what `harness matrix --format json` writes"
        )
    return part


def _read_json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not {what} (JSON): {exc}") from None


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip() or any(c in name for c in " \t\r\n"):
        raise UsageError(f"--header {text!r}: give it as 'NAME: VALUE'")
    return name.strip(), value.strip()


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        metavar="SCENARIO_OR_CASSETTE",
        help="a driver scenario, a vcrpy cassette, or a raw recorded body",
    )
    _case_options(parser)
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="F",
        help="stall:N:SECONDS, cut:N, end:N, drop:N or split:N, chunks counted from 1 (repeatable)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="add this header to every response (repeatable)",
    )
    parser.add_argument("--port", type=int, default=0, help="0 (the default): a free port")
    parser.add_argument("--host", default="127.0.0.1")


@command(
    "serve",
    help="serve a driver scenario or a recording over HTTP on loopback, chunked, for any client",
    arguments=_serve_arguments,
)
def cmd_serve(args: argparse.Namespace) -> int:
    import signal
    import threading

    from harness.library import resolve_command_line_path
    from harness.standin import serving

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, got {args.port}")

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        with serving(
            resolve_command_line_path(args.source),
            dialect=args.dialect,
            quirks=args.quirk,
            faults=args.fault,
            host=args.host,
            port=args.port,
            headers=dict(_header(text) for text in args.header),
        ) as stand:
            print(f"serving {stand.url} ({stand.summary})", flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass  # Ctrl-C or SIGTERM: the way to stop serving
    return EXIT_OK


def _loop_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="SCENARIO",
        help="loop scenarios, or folders of them (searched recursively); then -- and the "
        "program to run, e.g. -- python my_agent.py",
    )
    parser.add_argument(
        "--dialect",
        action="append",
        default=[],
        metavar="D",
        help="serve this dialect (anthropic, openai-chat, openai-responses; repeatable: one run "
        "per dialect); default: the one the program's first request speaks",
    )
    parser.add_argument(
        "--timeout",
        default=None,
        metavar="SECONDS",
        help="time limit for the program on one scenario (default 30); past it, the program and "
        "its process group are stopped",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long each response's final events are held back, to see a request sent before "
        "the turn ended (default 0.2, at most 2)",
    )
    parser.add_argument(
        "--rule", action="append", default=[], metavar="ID", help="check only these rules"
    )
    parser.add_argument(
        "--skip-rule", action="append", default=[], metavar="ID", help="do not check these rules"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")


@command(
    "loop",
    help="run a program against the stand-in serving loop scenarios; judge the requests it sends",
    description="Serve each loop scenario's responses, one per request, on loopback, run the "
    "program given after -- with OPENAI_BASE_URL, ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL "
    "pointing there (and dummy API keys if none are set), and judge every request it sends by the "
    "loop rules. Exit 0 all passed, 1 a rule was violated (a program that fails or overruns its "
    "time limit included), 2 a usage or input error, 5 every run was skipped (the program speaks "
    "a dialect none of the scenarios runs in).",
    arguments=_loop_arguments,
    takes_program=True,
)
def cmd_loop(args: argparse.Namespace) -> int:
    from harness.loop import DEFAULT_LOOP_TIMEOUT, run_loop
    from harness.loop.report import render_table
    from harness.replay.run import time_limit
    from harness.scenario.loop import LOOP_DIALECTS
    from harness.standin.loop import DEFAULT_SETTLE

    if not args.program:
        raise UsageError(
            "give the program to run after --, e.g. harness loop scenarios/loop -- python my_agent.py"
        )
    _check_rule_ids([*args.rule, *args.skip_rule])
    for dialect in args.dialect:
        if dialect not in LOOP_DIALECTS:
            raise UsageError(
                f"--dialect {dialect!r}: loops are served in {', '.join(LOOP_DIALECTS)}"
            )
    timeout = (
        DEFAULT_LOOP_TIMEOUT if args.timeout is None else time_limit(args.timeout, "--timeout")
    )
    settle = DEFAULT_SETTLE if args.settle is None else args.settle
    if not 0 <= settle <= 2:
        raise UsageError(f"--settle must be between 0 and 2 seconds, got {settle:g}")
    loaded = _load(args.paths)
    scenarios = [s for s in loaded if isinstance(s, LoopScenario)]
    if not scenarios:
        raise UsageError(
            f"no loop scenario (layer: loop) under {', '.join(args.paths)}; "
            "scenarios/loop holds the built-in ones"
        )
    runs = [(s, d) for s in scenarios for d in (args.dialect or [None])]
    results = []
    with TerminalProgress() as progress:
        for number, (scenario, dialect) in enumerate(runs, 1):
            progress.update(f"loop {number}/{len(runs)} {scenario.id}")
            results.append(
                run_loop(
                    scenario,
                    args.program,
                    dialect=dialect,
                    timeout=timeout,
                    settle=settle,
                    only_rules=args.rule,
                    skip_rules=args.skip_rule,
                )
            )
    if args.format == "json":
        print(json.dumps({"results": [r.to_json() for r in results]}, indent=2))
    else:
        print(render_table(results))
        others = len(loaded) - len(scenarios)
        if others:
            print(f"harness: {others} scenarios of other layers left out: harness run replays them")
    if any(r.status == "fail" for r in results):
        return EXIT_FAILED
    if all(r.status == "skip" for r in results):
        print(
            f"harness: all {len(results)} runs were skipped, so nothing was checked "
            f"(exit {EXIT_NOTHING_CHECKED})",
            file=sys.stderr,
        )
        return EXIT_NOTHING_CHECKED
    return EXIT_OK


def _record_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o", "--output", required=True, metavar="CASSETTE.yaml", help="the cassette to write"
    )
    parser.add_argument(
        "--record-mode",
        default="once",
        choices=("once", "new_episodes", "all", "none"),
        help="vcrpy's record mode (default once; none replays without touching the network)",
    )
    parser.add_argument(
        "--secret-pattern",
        action="append",
        default=[],
        metavar="RE",
        help="also refuse (and scrub from request bodies) what this regex matches; repeatable",
    )
    parser.add_argument(
        "--scrub-header",
        action="append",
        default=[],
        metavar="NAME",
        help="also scrub this request and response header; repeatable",
    )
    parser.add_argument("script", metavar="SCRIPT.py", help="the script to run, as python would")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="its arguments")


@command(
    "record",
    help="run a Python script with its HTTP traffic recorded into a scrubbed cassette",
    arguments=_record_arguments,
)
def cmd_record(args: argparse.Namespace) -> int:
    from harness.record import (
        CassetteNotWritten,
        NothingRecorded,
        Scrubber,
        SecretRefused,
        recording,
    )
    from harness.record.script import ScriptRaised, run_script

    output, script = args.output, args.script
    if not os.path.isfile(script):
        raise UsageError(f"no script at {script}")
    existing = os.path.dirname(os.path.abspath(output))
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise UsageError(f"cannot write the cassette {output}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write the cassette {output}: {existing} is not writable")
    if args.record_mode == "none" and not os.path.isfile(output):
        raise UsageError(f"--record-mode none replays a cassette, and there is none at {output}")
    Scrubber(args.secret_pattern)  # a bad pattern is a usage error before the script runs
    try:
        with recording(
            output,
            mode=args.record_mode,
            patterns=args.secret_pattern,
            scrub_headers=args.scrub_header,
            require_traffic=True,
        ):
            code = run_script(script, args.args)
    except ScriptRaised as exc:
        print(f"harness: {exc}; the cassette {output} was not written", file=sys.stderr)
        return EXIT_FAILED
    except NothingRecorded:
        done = (
            "nothing was recorded or replayed, and the cassette {} was left as it was"
            if os.path.isfile(output)
            else "nothing was recorded, and the cassette {} was not written"
        )
        print(
            f"harness: error: {script} made no HTTP request that the recording saw; "
            + done.format(output),
            file=sys.stderr,
        )
        return EXIT_FAILED
    except (SecretRefused, CassetteNotWritten) as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return code


def _check_history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help='a JSON list of messages, or an object with a "messages" list (Anthropic or OpenAI)',
    )
    parser.add_argument(
        "--repair", action="store_true", help="print the repaired history as JSON (same shape)"
    )


@command(
    "check-history",
    help="check tool_use/tool_result pairing in a stored history (JSON)",
    arguments=_check_history_arguments,
)
def cmd_check_history(args: argparse.Namespace) -> int:
    from harness._files import read_text, scenario_error
    from harness.history import (
        HistoryFormatError,
        detect_shape,
        parse_history_json,
        repair_history,
        validate_history,
    )

    path = args.file
    text = read_text(path, what="history", error=scenario_error)
    try:
        document = parse_history_json(text)
    except HistoryFormatError as exc:
        raise ScenarioError([Problem(path, exc.line or 1, str(exc))]) from None
    try:
        shape = detect_shape(document.messages)
        problems = validate_history(document.messages)
        notes: list[str] = []
        repaired = repair_history(document.messages, notes=notes) if args.repair else None
    except HistoryFormatError as exc:
        raise ScenarioError([Problem(path, document.line_of(exc), str(exc))]) from None
    if repaired is not None:
        for problem in problems:
            print(f"{path}: repaired {problem}", file=sys.stderr)
        for note in notes:
            print(f"{path}: {note}", file=sys.stderr)
        print(json.dumps(document.with_messages(repaired), indent=2, ensure_ascii=False))
        return EXIT_OK
    for problem in problems:
        print(f"{path}: {problem}")
    if problems:
        return EXIT_FAILED
    print(f"{path}: valid {shape} history, {len(document.messages)} messages, tool pairing intact")
    return EXIT_OK


def _convert_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", metavar="RECORDING", help="a vcrpy cassette or a raw body")
    parser.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="SCENARIO.yaml",
        help="where to write it; - for stdout",
    )
    parser.add_argument(
        "--interaction",
        type=int,
        default=None,
        metavar="N",
        help="the cassette's interaction to convert (default: the first stream)",
    )
    parser.add_argument("--dialect", default=None, help="decode as this dialect")
    parser.add_argument("--id", default=None, help="the scenario's id (default: the file's name)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


@command(
    "convert",
    help="a recording (cassette or raw body) as an editable driver scenario",
    arguments=_convert_arguments,
)
def cmd_convert(args: argparse.Namespace) -> int:
    from harness.convert import convert

    out = None if args.out == "-" else output_file(args.out, what="the scenario", force=args.force)
    if out is not None and os.path.lexists(out) and not args.force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
    conversion = convert(
        args.recording, interaction=args.interaction, dialect=args.dialect, id=args.id
    )
    if out is None:
        print(conversion.text, end="")
    else:
        write_output(out, conversion.text, what="the scenario")  # its folder made if missing
    where = "stdout" if out is None else str(out)
    print(f"{conversion.note()}\nwritten to {where}", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
