"""How results are drawn: text for the terminal and a failing test (``text.py``, re-exported
here, so ``from harness.report import render_table`` reads as it always has), one HTML file for a
run (``html.py``, drawing the timelines ``timeline.py`` holds as data, its stylesheet and script
in ``assets/``), the syrupy snapshot format (``snapshot.py``) and recorded streams as snapshot
tests (``recordings.py``). What a run produced, apart from how it is drawn (the comparison with
the reference consumer), is ``harness.results``; ``reference_for`` and ``reference_result`` are
re-exported here from there.
"""

from harness.report.text import (
    MAX_DIFF_LINES,
    MAX_VIOLATIONS_SHOWN,
    adapter_layers_if_left_out,
    chunk_excerpt,
    chunk_line,
    event_line,
    excerpt,
    expected_diff,
    layers_named,
    left_out_line,
    left_out_sentence,
    render_failure,
    render_table,
    render_violation,
    render_violations,
    reproduce_command,
    reproduce_commands,
    summary_line,
)
from harness.results.compare import reference_for, reference_result

__all__ = [
    "MAX_DIFF_LINES",
    "MAX_VIOLATIONS_SHOWN",
    "adapter_layers_if_left_out",
    "chunk_excerpt",
    "chunk_line",
    "event_line",
    "excerpt",
    "expected_diff",
    "layers_named",
    "left_out_line",
    "left_out_sentence",
    "reference_for",
    "reference_result",
    "render_failure",
    "render_table",
    "render_violation",
    "render_violations",
    "reproduce_command",
    "reproduce_commands",
    "summary_line",
]
