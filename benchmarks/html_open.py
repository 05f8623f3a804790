"""How big the HTML report of the whole library against one mutant is, and how long a browser
takes to open it: headless Chromium's --dump-dom of the report against the same of an empty
page, in the same run (the difference is the report's own cost). Wall-clock seconds grow with
the machine's load; the browser's CPU seconds (its processes' user + system time) much less.

    .venv/bin/python benchmarks/html_open.py [ADAPTER ...] [--runs N]

Prints, per adapter: the results, the file's size, and the median seconds (wall clock, then
CPU) to open the report and the empty page, their difference and ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.adapters.registry import resolve_adapter
from harness.library import library_path
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.report.html import write_report
from harness.scenario import discover, load_scenario

DEFAULT = (
    "session-mutant-keyed-by-tool-id",
    "history-mutant-subagent-into-parent",
    "driver-mutant-anthropic-batches-calls",
)


def open_seconds(browser: str, url: str, profile: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one --dump-dom of ``url``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--dump-dom",
            url,
        ],
        check=True,
        capture_output=True,
        env={**os.environ, "HOME": str(profile)},
        timeout=120,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("adapters", nargs="*", default=list(DEFAULT))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    scenarios = [load_scenario(p) for p in discover([library_path()])]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        empty = folder / "empty.html"
        empty.write_text("<!doctype html><title>empty</title>", encoding="utf-8")
        for name in args.adapters:
            adapter = resolve_adapter(name)
            mine = cases_for([s for s in scenarios if s.layer == adapter.layer], adapter)
            results = [replay(s, adapter) for s in mine]
            started = time.perf_counter()
            report = write_report(folder / "report.html", results, adapter=name)
            written = time.perf_counter() - started
            failed = sum(r.status in ("fail", "error") for r in results)
            # interleaved, so both see the same machine load
            page, blank = [], []
            for _ in range(args.runs):
                page.append(open_seconds(browser, report.as_uri(), folder / "profile"))
                blank.append(open_seconds(browser, empty.as_uri(), folder / "profile"))
            print(
                f"{name}: {len(results)} cases, {failed} failed; report "
                f"{report.stat().st_size / 1e6:.2f} MB written in {written:.2f}s"
            )
            for what, n in (("wall clock", 0), ("CPU", 1)):
                a = statistics.median(t[n] for t in page)
                b = statistics.median(t[n] for t in blank)
                print(
                    f"  dump-dom, median of {args.runs}, {what}: report {a:.2f}s, empty page "
                    f"{b:.2f}s, the report's own {a - b:+.2f}s (ratio {a / b:.2f})"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
