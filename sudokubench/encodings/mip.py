"""Sudoku as a 0/1 integer program: the assignment model, as arrays (no solving here).

Columns: one binary variable per cell and digit, column `var(n, r, c, d) - 1` of
`encodings.cnf` (cell-major, then digit), so a solution vector decodes without lookups.
Rows: "exactly one" (`sum = 1`) per cell and per unit and digit, 4 N**2 equality rows of N
ones each; the objective is zero (any feasible point is optimal). A given fixes its column's
lower bound to 1; the solver's presolve then fixes its peers to 0.

The rows depend only on the shape, so they are built once per shape (`rows`) as the compressed
sparse row arrays a MIP solver's bulk `addRows` takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sudokubench.grid import Grid, Shape

__all__ = ["Rows", "decode", "lower_bounds", "no_good", "rows"]


@dataclass(frozen=True)
class Rows:
    """The equality rows of a shape in CSR form: row i is `indices[starts[i]:starts[i + 1]]`."""

    count: int
    starts: tuple[int, ...]
    indices: tuple[int, ...]


@cache
def rows(shape: Shape) -> Rows:
    """The exactly-one rows of `shape`: cells first, then each unit's digits."""
    n = shape.n
    groups = [[k * n + d0 for d0 in range(n)] for k in range(shape.cells)]
    groups += [[k * n + d0 for k in unit] for unit in shape.units for d0 in range(n)]
    starts = [0]
    for group in groups:
        starts.append(starts[-1] + len(group))
    return Rows(len(groups), tuple(starts[:-1]), tuple(i for group in groups for i in group))


def lower_bounds(puzzle: Grid) -> list[float]:
    """Column lower bounds: 1 for a given's cell-digit column, 0 elsewhere."""
    n = puzzle.shape.n
    lower = [0.0] * (puzzle.shape.cells * n)
    for k, d in enumerate(puzzle.cells):
        if d:
            lower[k * n + d - 1] = 1.0
    return lower


def decode(puzzle: Grid, values: Sequence[float]) -> Grid:
    """The grid of a solution vector (a column above 0.5 is 1)."""
    n = puzzle.shape.n
    cells = [0] * puzzle.shape.cells
    for i, value in enumerate(values):
        if value > 0.5:
            k, d0 = divmod(i, n)
            cells[k] = d0 + 1
    return Grid(puzzle.shape, tuple(cells))


def no_good(solution: Grid, puzzle: Grid) -> tuple[list[int], float]:
    """The cut forbidding `solution`: its empty cells' columns sum to at most their number - 1.

    Returned as (columns, upper bound). Only the empty cells count: a given's column is 1 in
    every solution, so it would add a term and change nothing. A full grid has no columns.
    """
    n = puzzle.shape.n
    columns = [k * n + solution.cells[k] - 1 for k, d in enumerate(puzzle.cells) if not d]
    return columns, float(len(columns) - 1)
