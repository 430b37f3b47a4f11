"""The one-call API: `solve` and `count` a puzzle (a Grid or any text form) with a named backend."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sudokubench.backend import Count, SolveResult
from sudokubench.grid import Grid
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

__all__ = ["count", "solve"]


@runtime_checkable
class _Counter(Protocol):
    """A backend that counts without making a grid per solution (`native`)."""

    def count_all(
        self, puzzle: Grid, *, timeout: float | None, limit: int | None, keep: int
    ) -> Count:
        """Count up to `limit`, keeping the first `keep` solutions as grids."""
        ...


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
    keep: int | None = None,
) -> SolveResult | Count:
    """Count the solutions of `puzzle` up to `limit`; exact when `result.exhaustive`.

    With `keep=None` every solution found is kept: a `SolveResult`, as `solve` gives. With
    `keep=k` only the first k are kept as grids (`result.first`) and the result is a `Count`;
    a backend that can count without making a grid per solution (`native`) then counts at its
    kernel's speed, any other solves and drops the rest.
    """
    grid = _as_grid(puzzle)
    found = get_backend(backend)
    if keep is None:
        return found.solve(grid, limit=limit, timeout=timeout)
    if not isinstance(keep, int) or keep < 0:
        raise ValueError(f"keep must be a non-negative integer, got {keep!r}")
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    if isinstance(found, _Counter):
        return found.count_all(grid, timeout=timeout, limit=limit, keep=keep)
    result = found.solve(grid, limit=limit, timeout=timeout)
    return Count(
        result.backend,
        result.count,
        result.exhaustive,
        result.solutions[:keep],
        result.solve_s,
        result.stats,
        result.status,
        result.message,
    )
