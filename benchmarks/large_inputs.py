"""What large valid inputs cost the harness, as ratios to a baseline measured in the same run.

    .venv/bin/python benchmarks/large_inputs.py [--mb MB] [--interactions N] [--quirks all|none]
        [--adapter NAME]

Driver scenarios: one text of ``--mb`` megabytes, and a tool call with as many megabytes of
arguments (both in 1,000 chunks), run against ``--adapter`` (the OpenAI Chat reference driver
unless named; a reference of another dialect runs the turn in that dialect) as ``harness run``
runs them: the quirk cases found (``cases_for``), then each replayed. The
baseline is the reference driver alone reading the scenario's stream once (its chunks made
beforehand): the least work one case can be. Printed per case the driver read: finding the
cases, the replay (the driver's work and the harness's), and each over the baseline; apart, how
many cases were skipped (a long turn's quirk that leaves its stream as written, told as it runs).

A cassette of ``--interactions`` interactions (about 1 KB each): reading its last interaction
(``read_cassette``) against the baseline of libyaml loading the same text (what vcrpy does).

CPU seconds of this process (``time.process_time``), so that other work on a shared machine
does not inflate them.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from harness.adapters.registry import BUNDLED, resolve_adapter
from harness.codecs import dialects
from harness.replay.cases import cases_for
from harness.replay.run import run_cases
from harness.scenario import DriverScenario, load_scenario
from harness.wire import read_cassette

ADAPTER = "driver-openai-chat-reference"
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "reading",
    "files",
    "and",
    "writing",
    "tests",
]
URI = "https://api.openai.com/v1/chat/completions"


def words(size: int, rng: random.Random) -> str:
    out, length = [], 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)[:size]


def scenarios(folder: Path, size: int) -> dict[str, Path]:
    big = json.dumps(words(size, random.Random(1)))
    head = (
        "id: {id}\ntitle: A large input\ndescription: a large valid input\nsource: benchmark\n"
        "layer: driver\nrules: [robust-framing, strict-assembly]\ntrace:\n  - cycle:\n"
        "      blocks:\n"
    )
    text = folder / "text.yaml"
    text.write_text(head.format(id="text") + f"        - text: {{text: {big}, chunks: 1000}}\n")
    arguments = folder / "arguments.yaml"
    arguments.write_text(
        head.format(id="arguments")
        + '        - text: "Writing it."\n'
        + "        - tool_use: {id: call_1, name: write_file, "
        + f"input: {{path: a.txt, content: {big}}}, chunks: 1000}}\n"
    )
    return {"text": text, "arguments": arguments}


def cassette(folder: Path, interactions: int) -> Path:
    rng = random.Random(2)

    def event(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps({"object": "chat.completion.chunk", "choices": [choice]})

    lines = ["interactions:"]
    for _ in range(interactions):
        body = "\n\n".join(
            [event({"role": "assistant", "content": ""})]
            + [event({"content": words(40, rng)}) for _ in range(2)]
            + [event({}, "stop"), "data: [DONE]"]
        )
        request = json.dumps({"model": "gpt-4o", "stream": True, "messages": [words(20, rng)]})
        lines += [
            "- request:",
            f"    method: POST\n    uri: '{URI}'\n    body: {json.dumps(request)}",
            "    headers: {Content-Type: [application/json]}",
            "  response:\n    status: {code: 200, message: OK}",
            "    headers: {Content-Type: [text/event-stream]}",
            f"    body: {{string: {json.dumps(body + chr(10) * 2)}}}",
        ]
    path = folder / "cassette.yaml"
    path.write_text("\n".join([*lines, "version: 1"]) + "\n")
    return path


def seconds(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    value = work()
    return time.process_time() - start, value


def driver_figures(path: Path, quirks: str, adapter: str = ADAPTER) -> dict[str, float]:
    info = resolve_adapter(adapter)
    codec = dialects()[info.factory().dialect]
    scenario = load_scenario(path)
    assert isinstance(scenario, DriverScenario)
    chunks = [c.data for c in codec.encode(scenario.turn, scenario.quirks)]
    driver: Any = BUNDLED[adapter].factory
    baseline = min(seconds(lambda: list(driver().drive(iter(chunks))))[0] for _ in range(3))
    found, cases = seconds(lambda: cases_for([scenario], info, quirks))
    ran, results = seconds(lambda: list(run_cases(cases, info, keep_outputs=lambda r: False)))
    # a long turn's quirk that leaves its stream as written is skipped as it runs
    assert all(r.status in ("pass", "skip") for r in results), [r.status for r in results]
    n = sum(r.status == "pass" for r in results)  # the cases the driver read
    return {
        "cases": n,
        "skipped": len(results) - n,
        "baseline_seconds": baseline,
        "find_per_case": found / n,
        "replay_per_case": ran / n,
        "find_ratio": found / n / baseline,
        "replay_ratio": ran / n / baseline,
        "case_ratio": (found + ran) / n / baseline,
    }


def cassette_figures(path: Path, interactions: int) -> dict[str, float]:
    text = path.read_text()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    baseline, _ = seconds(lambda: yaml.load(text, Loader=loader))
    read, (last,) = seconds(lambda: read_cassette(path, interactions - 1))
    assert last.index == interactions - 1
    return {"baseline_seconds": baseline, "read_seconds": read, "read_ratio": read / baseline}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="megabytes of text (5)")
    parser.add_argument("--interactions", type=int, default=20_000)
    parser.add_argument("--quirks", default="all", help="all (the default) or none")
    parser.add_argument(
        "--adapter",
        default=ADAPTER,
        choices=[
            n
            for n in BUNDLED
            if n.startswith("driver-") and n.endswith("-reference") and "-bytes-" not in n
        ],
        help="a reference driver that reads events (driver-openai-chat-reference)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, path in scenarios(Path(folder), int(args.mb * 1_000_000)).items():
            figures = driver_figures(path, args.quirks, args.adapter)
            print(f"{name} ({args.mb:g} MB): " + " ".join(_shown(figures)))
        path = cassette(Path(folder), args.interactions)
        figures = cassette_figures(path, args.interactions)
        print(f"cassette ({args.interactions} interactions): " + " ".join(_shown(figures)))


def _shown(figures: dict[str, float]) -> list[str]:
    return [f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()]


if __name__ == "__main__":
    main()
