"""Box shapes: the geometry of a grid (`Shape`: its cells, units and peers), the symbols of its
digits, and the first-class sizes. The vocabulary is `grid.py`'s glossary."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property

from sudokubench.errors import InvalidPuzzleError

__all__ = ["SHAPES", "SYMBOLS", "Cell", "Digit", "Shape", "shape_of"]

#: Symbols for digits 1..35: `1-9` then `A-Z`.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

Cell = int
Digit = int


@dataclass(frozen=True, slots=False)
class Shape:
    """Box geometry of a grid: `box_rows` x `box_cols` boxes, N = box_rows * box_cols."""

    box_rows: int
    box_cols: int

    def __post_init__(self) -> None:
        if not (1 <= self.box_rows <= self.box_cols):
            raise InvalidPuzzleError(
                f"box shape {self.box_rows}x{self.box_cols}: rows must be 1..cols"
            )
        if self.box_rows * self.box_cols > len(SYMBOLS):
            raise InvalidPuzzleError(
                f"box shape {self.box_rows}x{self.box_cols}: at most {len(SYMBOLS)} symbols"
            )

    # -- construction -------------------------------------------------------------------------

    @staticmethod
    def for_size(n: int) -> Shape:
        """The shape of an NxN grid: the squarest boxes, wider than tall (6 -> 2x3, 12 -> 3x4)."""
        box_rows = max(r for r in range(1, math.isqrt(n) + 1) if n % r == 0) if n > 0 else 0
        if n < 4 or box_rows < 2:
            raise InvalidPuzzleError(f"no box shape for a {n}x{n} grid")
        return shape_of(box_rows, n // box_rows)

    @staticmethod
    @cache  # every line read asks again
    def for_cells(count: int) -> Shape:
        """The shape of a grid with `count` cells (81 -> 3x3); InvalidPuzzleError if none."""
        n = math.isqrt(count)
        if n * n != count:
            raise InvalidPuzzleError(f"{count} cells is not a square grid")
        return Shape.for_size(n)

    @staticmethod
    def parse(text: str) -> Shape:
        """Read `RxC` (e.g. `2x3`) as a box shape."""
        parts = text.lower().replace("*", "x").split("x")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InvalidPuzzleError(f"box shape {text!r}: expected ROWSxCOLS, e.g. 3x3")
        return shape_of(int(parts[0]), int(parts[1]))

    # -- geometry, computed once per shape -----------------------------------------------------

    @cached_property  # (read on every grid: an attribute once computed)
    def n(self) -> int:
        """Number of symbols, and the length of a row, column and box."""
        return self.box_rows * self.box_cols

    @cached_property
    def cells(self) -> int:
        """Number of cells, N * N."""
        return self.n * self.n

    def __str__(self) -> str:
        return f"{self.box_rows}x{self.box_cols}"

    def box_index(self, r: int, c: int) -> int:
        """The box of row r, column c, numbered row-major from 0."""
        return (r // self.box_rows) * self.box_rows + c // self.box_cols

    @cached_property
    def rows(self) -> tuple[tuple[Cell, ...], ...]:
        """Cells of each row."""
        n = self.n
        return tuple(tuple(r * n + c for c in range(n)) for r in range(n))

    @cached_property
    def cols(self) -> tuple[tuple[Cell, ...], ...]:
        """Cells of each column."""
        n = self.n
        return tuple(tuple(r * n + c for r in range(n)) for c in range(n))

    @cached_property
    def boxes(self) -> tuple[tuple[Cell, ...], ...]:
        """Cells of each box, boxes and cells in row-major order."""
        n, br, bc = self.n, self.box_rows, self.box_cols
        boxes: list[list[Cell]] = [[] for _ in range(n)]
        for k in range(n * n):
            boxes[self.box_index(k // n, k % n)].append(k)
        assert all(len(b) == br * bc for b in boxes)
        return tuple(tuple(b) for b in boxes)

    @cached_property
    def units(self) -> tuple[tuple[Cell, ...], ...]:
        """All units: rows, then columns, then boxes (3N of them)."""
        return self.rows + self.cols + self.boxes

    @cached_property
    def cell_units(self) -> tuple[tuple[int, int, int], ...]:
        """For each cell k, its (row, column, box) numbers."""
        n = self.n
        return tuple((k // n, k % n, self.box_index(k // n, k % n)) for k in range(n * n))

    @cached_property
    def peers(self) -> tuple[tuple[Cell, ...], ...]:
        """For each cell, the other cells sharing a unit with it, sorted."""
        result = []
        for k, (r, c, b) in enumerate(self.cell_units):
            near = set(self.rows[r]) | set(self.cols[c]) | set(self.boxes[b])
            near.discard(k)
            result.append(tuple(sorted(near)))
        return tuple(result)

    def unit_name(self, u: int) -> str:
        """Human name of unit number u in `units`: `row 3`, `column 5`, `box 9` (1-based)."""
        kind, index = divmod(u, self.n)
        return f"{('row', 'column', 'box')[kind]} {index + 1}"

    def cell_name(self, k: Cell) -> str:
        """`r3c7` for cell k (1-based row and column)."""
        return f"r{k // self.n + 1}c{k % self.n + 1}"

    def symbol(self, d: Digit) -> str:
        """The character of digit d (`.` for 0)."""
        return SYMBOLS[d - 1] if d else "."


_SHAPES: dict[tuple[int, int], Shape] = {}


def shape_of(box_rows: int, box_cols: int) -> Shape:
    """The shared Shape instance for these box dimensions (so its geometry is computed once)."""
    key = (box_rows, box_cols)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = Shape(box_rows, box_cols)
    return shape


#: The first-class shapes: 4x4, 6x6, 8x8, 9x9, 12x12, 16x16, 25x25.
SHAPES = tuple(shape_of(r, c) for r, c in ((2, 2), (2, 3), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5)))
