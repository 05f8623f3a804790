"""Moved to ``harness.report.html`` (the observed and the expected data to
``harness.results.compare``); this module re-exports its names for the imports that name the
old place."""

from harness.report.html import (
    CELL_TEXT,
    FOLD_AT,
    RADIUS,
    SummaryRow,
    anchor_of,
    document_from_pieces,
    failure_section,
    render_document,
    render_report,
    result_piece,
    scenario_key,
    summary_row,
    write_report,
)
from harness.results.compare import expected_data, observed_data

__all__ = [
    "CELL_TEXT",
    "FOLD_AT",
    "RADIUS",
    "SummaryRow",
    "anchor_of",
    "document_from_pieces",
    "expected_data",
    "failure_section",
    "observed_data",
    "render_document",
    "render_report",
    "result_piece",
    "scenario_key",
    "summary_row",
    "write_report",
]
