"""sudokubench: compare Sudoku solvers built on different constraint-programming ideas.

Public API (stable): `Grid`, `Shape`, `solve`, `count`, `get_backend`, `backend_names`,
`SolveResult`, `Status`, `is_solution`; `compare` and `CompareArgs` (the harness, loaded on
first use).
"""

from __future__ import annotations

from sudokubench._version import __version__ as __version__
from sudokubench.api import count, solve
from sudokubench.backend import Backend, SolveResult, Status
from sudokubench.grid import (
    Grid,
    GridFormatError,
    InvalidPuzzleError,
    Shape,
    is_solution,
)
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


def __getattr__(name: str) -> object:
    """`compare` and `CompareArgs` come from the harness, imported only when first used."""
    if name in ("compare", "CompareArgs"):
        from sudokubench import harness

        return getattr(harness, name)
    raise AttributeError(f"module 'sudokubench' has no attribute {name!r}")
