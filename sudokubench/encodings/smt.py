"""Sudoku as SMT-LIB 2 text for z3 (no solving here).

One Boolean constant `x_K_D` per cell K and digit D (the cell-digit variables of the CNF), and
one pseudo-Boolean "exactly one" `((_ pbeq 1 1 ... 1) ...)` per cell and per unit and digit;
a given asserts its constant. z3 decides pbeq natively (its pseudo-Boolean solver), without
expanding it into clauses.

The text is parsed by z3 (`Solver.from_string`): building the same formula through z3's
Python API cost about 7 times more (175 against 17-25 ms for a 9x9 grid, top95's first 20 on
a loaded 2-core machine), almost all of it in ctypes calls.

`decode` reads a model back from its constants' names; `blocking_clause` forbids a grid.
"""

from __future__ import annotations

import re

from sudokubench.grid import Grid

__all__ = ["blocking_clause", "decode", "smtlib"]

#: A true constant of a model printed as SMT-LIB: `(define-fun x_3_7 () Bool\n  true)`.
_TRUE = re.compile(r"\(define-fun x_(\d+)_(\d+) \(\) Bool\s+true\)")


def smtlib(puzzle: Grid) -> str:
    """The SMT-LIB 2 script (declarations and assertions, no check-sat) of `puzzle`."""
    shape = puzzle.shape
    n = shape.n
    exactly_one = f"(_ pbeq 1 {' '.join(['1'] * n)})"
    digits = range(1, n + 1)
    lines: list[str] = []
    for k, d in enumerate(puzzle.cells):
        lines.extend(f"(declare-const x_{k}_{e} Bool)" for e in digits)
        lines.append(f"(assert ({exactly_one} {' '.join(f'x_{k}_{e}' for e in digits)}))")
        if d:
            lines.append(f"(assert x_{k}_{d})")
    for unit in shape.units:
        for d in digits:
            lines.append(f"(assert ({exactly_one} {' '.join(f'x_{k}_{d}' for k in unit)}))")
    return "\n".join(lines)


def decode(puzzle: Grid, model: str) -> Grid:
    """The grid of a model printed as SMT-LIB text (`Model.sexpr()`, one C call).

    A cell stays 0 if no constant of it is true in the text (the caller checks): z3 lists
    every constant of the formula, eliminated ones too, so that means a broken model."""
    cells = list(puzzle.cells)
    for k, d in _TRUE.findall(model):
        cells[int(k)] = int(d)
    return Grid(puzzle.shape, tuple(cells))


def blocking_clause(solution: Grid, puzzle: Grid) -> str:
    """An assertion that forbids `solution` (its empty cells only: the givens are fixed)."""
    free = [f"(not x_{k}_{solution.cells[k]})" for k, d in enumerate(puzzle.cells) if not d]
    return f"(assert (or {' '.join(free)}))" if free else "(assert false)"
