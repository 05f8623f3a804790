"""Whole agent loops over HTTP: a program run unmodified against the stand-in serving a loop
scenario's responses, and every request it sends judged by the loop rules.

The parts: ``program`` (the program started in its own process group, given a time limit, always
stopped), ``run`` (one run: serve, run, judge; ``LoopResult``) and ``report`` (results in
words). ``harness loop`` and the ``harness_loop`` pytest fixture are thin over them::

    from harness.loop import run_loop
    result = run_loop(scenario, ["python", "my_agent.py"])
"""

from harness.loop.run import DEFAULT_LOOP_TIMEOUT, LoopResult, judge, run_loop

__all__ = ["DEFAULT_LOOP_TIMEOUT", "LoopResult", "judge", "run_loop"]
