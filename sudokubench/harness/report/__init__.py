"""Reports of a stored run: `model.py` builds the report (`build_report`), `render.py` writes
it as text, Markdown, CSV or JSON and compares two runs, `html.py` writes the HTML page to
explore, `plots.py` draws it (matplotlib, imported only when a plot is asked for).
Re-exports only."""

from sudokubench.harness.report.model import BackendSummary, RunReport, build_report, format_seconds
from sudokubench.harness.report.render import FORMATS, compare_runs, render, render_against

__all__ = [
    "FORMATS",
    "BackendSummary",
    "RunReport",
    "build_report",
    "compare_runs",
    "format_seconds",
    "render",
    "render_against",
]
