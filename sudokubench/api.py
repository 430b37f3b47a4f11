"""The one-call API: `solve` and `count` a puzzle (a Grid or any text form) with a named backend."""

from __future__ import annotations

from sudokubench.backend import SolveResult
from sudokubench.grid import Grid
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

__all__ = ["count", "solve"]


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
