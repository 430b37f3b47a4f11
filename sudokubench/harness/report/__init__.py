"""Reports of a stored run: `model.py` builds the report (`build_report`) from a `Tally`
(`tally.py`: the one pass over the run, keeping `columns.py`'s compact columns; `summary.py`
its per-backend rows, `caveats.py` its failures, noise and warnings), `render.py` writes it as
text, Markdown, CSV or JSON (with `lines.py`, the pieces every rendering shares), `tasks.py`
one row per task, `html.py` writes the HTML page to explore, `against.py` compares two runs,
`plots.py` draws it (matplotlib, imported only when a plot is asked for). Re-exports only."""

from sudokubench.harness.report.against import (
    RunsDiffer,
    compare_runs,
    render_against,
    run_differences,
    slower_backends,
)
from sudokubench.harness.report.model import BackendSummary, RunReport, build_report, format_seconds
from sudokubench.harness.report.render import FORMATS, render

__all__ = [
    "FORMATS",
    "BackendSummary",
    "RunReport",
    "RunsDiffer",
    "build_report",
    "compare_runs",
    "format_seconds",
    "render",
    "render_against",
    "run_differences",
    "slower_backends",
]
