"""Reports of a stored run: `model.py` builds the report (`build_report`) from a `Tally`
(`tally.py`: the one pass over the run, keeping `columns.py`'s compact columns; `summary.py`
its per-backend rows, `caveats.py` its failures, noise and warnings), `render.py` writes it as
text, Markdown, CSV or JSON (with `lines.py`, the pieces every rendering shares), `tasks.py`
one row per task, `html.py` writes the HTML page to explore, `against.py` compares two runs,
`plots.py` draws it (matplotlib, imported only when a plot is asked for). Re-exports only."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sudokubench.harness.report.model import BackendSummary, RunReport, build_report, format_seconds
from sudokubench.harness.report.render import FORMATS, render

if TYPE_CHECKING:
    from sudokubench.harness.report.against import (
        RunsDiffer,
        compare_runs,
        render_against,
        run_differences,
        slower_backends,
    )

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

#: The names of `against.py` (two runs compared: `report --against`), imported on first use
#: (PEP 562): `compare` and a report of one run do without it. (`render` is bound above, after
#: its module, so that it is the function, as ever.)
_AGAINST = ("RunsDiffer", "compare_runs", "render_against", "run_differences", "slower_backends")


def __getattr__(name: str) -> Any:
    """A name of `against.py`, imported now, else a submodule not yet imported."""
    if name in _AGAINST:
        module = importlib.import_module(f"{__name__}.against")
        for export in _AGAINST:
            globals()[export] = getattr(module, export)
        return globals()[name]
    from sudokubench.harness import submodule

    return submodule(__name__, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
