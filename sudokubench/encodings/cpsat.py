"""Sudoku as an OR-Tools CP-SAT model, in two formulations (no solving here).

- `integer`: one integer variable per cell with domain 1..N (a given's domain is its digit
  alone), and `AllDifferent` on every row, column and box. 81 variables and 27 constraints for
  9x9; CP-SAT's presolve expands AllDifferent into its own Boolean encoding.
- `boolean`: one 0/1 variable per cell and digit (N**3 of them), `ExactlyOne` per cell and per
  unit and digit, and a given fixes its variable to 1: the SAT-style formulation, written in
  CP-SAT so users can compare formulations within one solver.

Variables are created in a fixed order (cell-major, then digit), so a solution vector in
proto order decodes without looking the variables up: `decode(puzzle, formulation, values)`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from itertools import islice

from ortools.sat.python import cp_model

from sudokubench.grid import Grid

__all__ = ["Formulation", "build", "decode"]


class Formulation(enum.Enum):
    """How the grid becomes CP-SAT variables."""

    INTEGER = "integer"
    BOOLEAN = "boolean"


def build(puzzle: Grid, formulation: Formulation = Formulation.INTEGER) -> cp_model.CpModel:
    """The CP-SAT model of `puzzle`; variable i of the proto is cell i (integer) or cell-digit i."""
    model = cp_model.CpModel()
    shape = puzzle.shape
    n = shape.n
    if formulation is Formulation.INTEGER:
        cells = [
            model.new_int_var(d, d, f"r{k // n + 1}c{k % n + 1}")
            if d
            else model.new_int_var(1, n, f"r{k // n + 1}c{k % n + 1}")
            for k, d in enumerate(puzzle.cells)
        ]
        for unit in shape.units:
            model.add_all_different([cells[k] for k in unit])
        return model
    digits = [
        [model.new_bool_var(f"r{k // n + 1}c{k % n + 1}#{d}") for d in range(1, n + 1)]
        for k in range(shape.cells)
    ]
    for k, d in enumerate(puzzle.cells):
        model.add_exactly_one(digits[k])
        if d:
            model.add(digits[k][d - 1] == 1)
    for unit in shape.units:
        for d0 in range(n):
            model.add_exactly_one([digits[k][d0] for k in unit])
    return model


def decode(puzzle: Grid, formulation: Formulation, values: Iterable[int]) -> Grid:
    """The grid a solution vector (variable values in proto order) describes."""
    shape = puzzle.shape
    if formulation is Formulation.INTEGER:
        return Grid(shape, tuple(islice(values, shape.cells)))
    n = shape.n
    cells = [0] * shape.cells
    for i, v in enumerate(islice(values, n * shape.cells)):
        if v:
            k, d0 = divmod(i, n)
            cells[k] = d0 + 1
    return Grid(shape, tuple(cells))
