"""Sudoku as an exact-cover problem: the options (rows) and constraints (columns) of the matrix.

An **option** is "digit d in cell k"; there are N³ of them, numbered `option = k * N + (d - 1)`.
A **constraint** is one thing a solution must cover exactly once; there are 4·N² of them, in
four blocks of N² each:

| block | constraint              | number                    |
|-------|-------------------------|---------------------------|
| 0     | cell k holds a digit    | `k`                       |
| 1     | row r holds digit d     | `N² + r * N + (d - 1)`    |
| 2     | column c holds digit d  | `2·N² + c * N + (d - 1)`  |
| 3     | box b holds digit d     | `3·N² + b * N + (d - 1)`  |

Each option covers exactly four constraints (its cell, row-digit, column-digit, box-digit), and
each constraint is covered by exactly N options. A solution of the puzzle is a set of N² options,
containing one option per given, that covers every constraint exactly once.

`option_number`/`option_of` and `constraint_number`/`constraint_of` are the numbering in each
direction, the one place it is defined; `matrix(shape)` is built once per shape and shared.
No solving happens here (that is `solvers/dlx.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sudokubench.grid import Cell, Digit, Grid, Shape

__all__ = [
    "KINDS",
    "ExactCover",
    "constraint_name",
    "constraint_number",
    "constraint_of",
    "given_options",
    "matrix",
    "option_number",
    "option_of",
    "solution_grid",
]

#: The four constraint blocks, in numbering order.
KINDS = ("cell", "row", "column", "box")

Option = int
Constraint = int


def option_number(shape: Shape, k: Cell, d: Digit) -> Option:
    """The option "digit d in cell k"."""
    return k * shape.n + (d - 1)


def option_of(shape: Shape, option: Option) -> tuple[Cell, Digit]:
    """The (cell, digit) of an option number; the inverse of `option_number`."""
    k, d = divmod(option, shape.n)
    return k, d + 1


def constraint_number(shape: Shape, kind: str, index: int, d: Digit = 0) -> Constraint:
    """The constraint `kind` ("cell", "row", "column", "box") number `index`, for digit d.

    A cell constraint has no digit (`d` is ignored): cell `index` holds some digit. The others
    say: unit `index` of that kind holds digit d.
    """
    n = shape.n
    block = KINDS.index(kind)
    if block == 0:
        return index
    return block * n * n + index * n + (d - 1)


def constraint_of(shape: Shape, constraint: Constraint) -> tuple[str, int, Digit]:
    """`(kind, index, digit)` of a constraint number (digit 0 for a cell constraint)."""
    n = shape.n
    block, rest = divmod(constraint, n * n)
    if block == 0:
        return KINDS[0], rest, 0
    index, d = divmod(rest, n)
    return KINDS[block], index, d + 1


def constraint_name(shape: Shape, constraint: Constraint) -> str:
    """Human name of a constraint: `r3c7 filled`, `row 3 has 5`, `box 9 has 1`."""
    kind, index, d = constraint_of(shape, constraint)
    if kind == "cell":
        return f"{shape.cell_name(index)} filled"
    return f"{kind} {index + 1} has {shape.symbol(d)}"


@dataclass(frozen=True)
class ExactCover:
    """The exact-cover matrix of one shape, in both directions (sparse)."""

    shape: Shape
    #: For each option, the four constraints it covers (cell, row, column, box order).
    options: tuple[tuple[Constraint, Constraint, Constraint, Constraint], ...]
    #: For each constraint, the N options that cover it, ascending.
    covers: tuple[tuple[Option, ...], ...]

    @property
    def constraint_count(self) -> int:
        """4·N² constraints."""
        return len(self.covers)


@cache
def matrix(shape: Shape) -> ExactCover:
    """The exact-cover matrix of `shape`; built once per shape and shared."""
    n = shape.n
    options = []
    for k, (r, c, b) in enumerate(shape.cell_units):
        for d in range(1, n + 1):
            options.append(
                (
                    constraint_number(shape, "cell", k),
                    constraint_number(shape, "row", r, d),
                    constraint_number(shape, "column", c, d),
                    constraint_number(shape, "box", b, d),
                )
            )
    covers: list[list[Option]] = [[] for _ in range(4 * n * n)]
    for option, constraints in enumerate(options):
        for j in constraints:
            covers[j].append(option)
    return ExactCover(shape, tuple(options), tuple(tuple(c) for c in covers))


def given_options(puzzle: Grid) -> list[Option]:
    """The options the givens select, in cell order."""
    shape = puzzle.shape
    return [option_number(shape, k, d) for k, d in enumerate(puzzle.cells) if d]


def solution_grid(shape: Shape, options: list[Option] | tuple[Option, ...]) -> Grid:
    """The grid that a set of options fills (cells no option names stay empty)."""
    cells = [0] * shape.cells
    for option in options:
        k, d = option_of(shape, option)
        cells[k] = d
    return Grid(shape, tuple(cells))
