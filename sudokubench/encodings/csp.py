"""Sudoku as a python-constraint problem (no solving here).

One variable per cell, named by its index k; a given's domain is its digit alone (not a
constraint, as python-constraint's own example does it), an empty cell's is 1..N; one
`AllDifferentConstraint` per row, column and box. A solution dict {k: d} decodes to a Grid.
"""

from __future__ import annotations

from collections.abc import Mapping

from constraint import AllDifferentConstraint, Problem, Solver

from sudokubench.grid import Grid

__all__ = ["build", "decode"]


def build(puzzle: Grid, solver: Solver | None = None) -> Problem:
    """The python-constraint problem of `puzzle`, to be solved by `solver` (its default if None)."""
    problem = Problem(solver)
    n = puzzle.shape.n
    every = list(range(1, n + 1))
    for k, d in enumerate(puzzle.cells):
        problem.addVariable(k, [d] if d else every)
    for unit in puzzle.shape.units:
        problem.addConstraint(AllDifferentConstraint(), list(unit))
    return problem


def decode(puzzle: Grid, solution: Mapping[int, int]) -> Grid:
    """The grid of a solution {cell: digit}."""
    return Grid(puzzle.shape, tuple(solution[k] for k in range(puzzle.shape.cells)))
