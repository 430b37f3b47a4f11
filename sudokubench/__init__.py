"""sudokubench: compare Sudoku solvers built on different constraint-programming ideas.

Public API (stable): `Grid`, `Shape`, `solve`, `count`, `get_backend`, `backend_names`,
`SolveResult`, `Status`, `is_solution`; `compare` and `CompareArgs` (the harness, loaded on
first use).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sudokubench._version import __version__ as __version__

if TYPE_CHECKING:
    from sudokubench.api import count, solve
    from sudokubench.backend import Backend, SolveResult, Status
    from sudokubench.grid import Grid, GridFormatError, InvalidPuzzleError, Shape, is_solution
    from sudokubench.harness import CompareArgs, compare
    from sudokubench.solvers import backend_names, get_backend

__all__ = [
    "Backend",
    "CompareArgs",
    "Grid",
    "GridFormatError",
    "InvalidPuzzleError",
    "Shape",
    "SolveResult",
    "Status",
    "backend_names",
    "compare",
    "count",
    "get_backend",
    "is_solution",
    "solve",
]


#: The module each name of `__all__` comes from, imported on its first use (PEP 562): the
#: `sudokubench` command imports this package first (`python -m sudokubench`, the script), and
#: starts its workers' fork server before it needs any of them (`cli.main`), so that the
#: server's imports begin about 0.05 s of CPU sooner; `compare` and `CompareArgs` come from the
#: harness.
_SOURCES = {
    **dict.fromkeys(("count", "solve"), "api"),
    **dict.fromkeys(("Backend", "SolveResult", "Status"), "backend"),
    **dict.fromkeys(
        ("Grid", "GridFormatError", "InvalidPuzzleError", "Shape", "is_solution"), "grid"
    ),
    **dict.fromkeys(("CompareArgs", "compare"), "harness"),
    **dict.fromkeys(("backend_names", "get_backend"), "solvers"),
}


def __getattr__(name: str) -> object:
    """A name of `__all__`, imported now (all of them but the harness's at once, as they
    were bound before), else a submodule not yet imported."""
    if name in _SOURCES:
        for export, module in _SOURCES.items():
            if module != "harness" or name == export:
                globals()[export] = getattr(importlib.import_module(f"{__name__}.{module}"), export)
        return globals()[name]
    return _submodule(__name__, name)


def _submodule(package: str, name: str) -> Any:
    """`package`'s submodule `name`, imported now (a package's lazy `__getattr__`: this one's
    and the harness's); an AttributeError, as for any missing attribute, when there is no such
    module."""
    try:
        return importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.{name}":
            raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
