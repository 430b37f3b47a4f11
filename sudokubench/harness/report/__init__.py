"""Reports of a stored run: `model.py` builds the report (`build_report`) from a `Tally`
(`tally.py`: the one pass over the run, keeping `columns.py`'s compact columns; `summary.py`
its per-backend rows, `caveats.py` its failures, noise and warnings), `render.py` writes it as
text, Markdown, CSV or JSON (with `lines.py`, the pieces every rendering shares), `tasks.py`
one row per task, `html.py` writes the HTML page to explore, `against.py` compares two runs,
`plots.py` draws it (matplotlib, imported only when a plot is asked for). Re-exports only."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sudokubench.harness.report.against import (
        RunsDiffer,
        compare_runs,
        render_against,
        run_differences,
        slower_backends,
    )
    from sudokubench.harness.report.model import (
        BackendSummary,
        RunReport,
        build_report,
        format_seconds,
    )
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

#: Where each name is (imported on first use: `compare` needs the model and the renderer,
#: not `against.py` nor the HTML page; a submodule is imported by its own name as ever).
_HOMES = {
    "RunsDiffer": "against",
    "compare_runs": "against",
    "render_against": "against",
    "run_differences": "against",
    "slower_backends": "against",
    "BackendSummary": "model",
    "RunReport": "model",
    "build_report": "model",
    "format_seconds": "model",
    "FORMATS": "render",
    "render": "render",
}


def __getattr__(name: str) -> Any:
    """A re-exported name, from its module, else a submodule not yet imported (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        from sudokubench.harness import submodule

        return submodule(__name__, name)
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
