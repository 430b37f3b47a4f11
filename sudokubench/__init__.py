"""sudokubench: compare Sudoku solvers built on different constraint-programming ideas.

Public API (stable): `Grid`, `Shape`, `solve`, `count`, `get_backend`, `backend_names`,
`SolveResult`, `Status`, `is_solution`; `compare` and `CompareArgs` (the harness, loaded on
first use).
"""

from __future__ import annotations

from sudokubench._version import __version__ as __version__
from sudokubench.backend import Backend, SolveResult, Status
from sudokubench.grid import (
    Grid,
    GridFormatError,
    InvalidPuzzleError,
    Shape,
    is_solution,
)
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, get_backend

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


def _as_grid(puzzle: Grid | str) -> Grid:
    return puzzle if isinstance(puzzle, Grid) else Grid.parse(puzzle)


def solve(
    puzzle: Grid | str,
    *,
    backend: str = DEFAULT_BACKEND,
    limit: int = 1,
    timeout: float | None = None,
) -> SolveResult:
    """Solve `puzzle` (a Grid or any text form) with the named backend."""
    return get_backend(backend).solve(_as_grid(puzzle), limit=limit, timeout=timeout)


def count(
    puzzle: Grid | str,
    *,
    backend: str = DEFAULT_BACKEND,
    limit: int = 1000,
    timeout: float | None = None,
) -> SolveResult:
    """Count the solutions of `puzzle` up to `limit`; exact when `result.exhaustive`."""
    return get_backend(backend).solve(_as_grid(puzzle), limit=limit, timeout=timeout)


def __getattr__(name: str) -> object:
    """`compare` and `CompareArgs` come from the harness, imported only when first used."""
    if name in ("compare", "CompareArgs"):
        from sudokubench import harness

        return getattr(harness, name)
    raise AttributeError(f"module 'sudokubench' has no attribute {name!r}")
