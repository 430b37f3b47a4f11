"""The board the techniques read: placed digits, candidate masks, and the shape's geometry.

A `Board` holds the digits placed so far and each empty cell's candidates (a bit mask: bit
d-1 set when digit d is still possible). `Geometry` (one per shape) keeps the units and peers
as cell bit masks, so "the cells that see both r1c2 and r5c5 and still hold 7" is two ANDs:
`geo.peers[a] & geo.peers[b] & board.where(7)`. A `Step` is one move of a human solver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from sudokubench.grid import Cell, Digit, Grid, Shape

__all__ = [
    "Board",
    "Elimination",
    "Geometry",
    "Step",
    "bits",
    "cells_of",
    "geometry",
    "make_step",
    "seen_by_both",
    "units_boxes_first",
]

Elimination = tuple[Cell, Digit]
T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """One move of a human solver: a placement or some eliminations, and why, in words.

    `extra` is added to the technique's weight in the score: the last-resort steps (forcing
    chains and nets, trials) cost more the deeper or larger they are.
    """

    technique: str
    cells: tuple[Cell, ...]
    digits: tuple[Digit, ...]
    placement: tuple[Cell, Digit] | None
    eliminations: tuple[Elimination, ...]
    text: str
    extra: int = 0


def bits(mask: int) -> list[int]:
    """The digits of a candidate mask, in order (bit d-1 is digit d)."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length())
        mask ^= low
    return found


def seen_by_both(geo: Geometry, side_a: list[Cell], side_b: list[Cell]) -> int:
    """The cell mask of cells outside both sides that see a cell of each side (where a digit
    true on one side or the other cannot be)."""
    seen_a = seen_b = 0
    for k in side_a:
        seen_a |= geo.peers[k]
    for k in side_b:
        seen_b |= geo.peers[k]
    return seen_a & seen_b & ~sum(1 << k for k in side_a + side_b)


def cells_of(mask: int) -> list[Cell]:
    """The cells of a cell mask, in order (bit k is cell k)."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


@dataclass(frozen=True)
class Geometry:
    """A shape's units and peers as cell masks, and each cell's row, column and box."""

    shape: Shape
    n: int
    row: tuple[int, ...]
    col: tuple[int, ...]
    box: tuple[int, ...]
    unit_mask: tuple[int, ...]  # rows, then columns, then boxes (as `Shape.units`)
    peers: tuple[int, ...]  # cell k -> mask of its peers (k itself excluded)
    units: tuple[tuple[int, int, int], ...]  # cell k -> its unit numbers (row, column, box)

    def units_of(self, k: Cell) -> tuple[int, int, int]:
        """Unit numbers of cell k: its row, column and box."""
        n = self.n
        return self.row[k], n + self.col[k], 2 * n + self.box[k]

    def sees(self, a: Cell, b: Cell) -> bool:
        """Whether cells a and b share a unit (a cell does not see itself)."""
        return bool(self.peers[a] >> b & 1)


@cache
def geometry(shape: Shape) -> Geometry:
    """The geometry of a shape, built once."""
    n = shape.n
    unit_mask = tuple(sum(1 << k for k in unit) for unit in shape.units)
    peers = tuple(sum(1 << p for p in shape.peers[k]) for k in range(shape.cells))
    cu = shape.cell_units
    return Geometry(
        shape,
        n,
        tuple(r for r, _, _ in cu),
        tuple(c for _, c, _ in cu),
        tuple(b for _, _, b in cu),
        unit_mask,
        peers,
        tuple((r, n + c, 2 * n + b) for r, c, b in cu),
    )


class Board:
    """Placed digits and candidate masks, with the shape's geometry at hand."""

    def __init__(self, puzzle: Grid) -> None:
        self.shape = shape = puzzle.shape
        self.n = n = shape.n
        self.geo = geometry(shape)
        self.givens = tuple(puzzle.cells)
        self.cells = list(puzzle.cells)
        self.peer_sets = _peer_sets(shape)
        full = (1 << n) - 1
        self.cand = [0] * shape.cells
        for k, d in enumerate(self.cells):
            if not d:
                taken = 0
                for p in shape.peers[k]:
                    if self.cells[p]:
                        taken |= 1 << (self.cells[p] - 1)
                self.cand[k] = full & ~taken
        self._where_key: tuple[int, ...] | None = None
        self._where: list[int] = []
        self._memo: dict[str, object] = {}

    def grid(self) -> Grid:
        """The placed digits as a Grid."""
        return Grid(self.shape, tuple(self.cells))

    def solved(self) -> bool:
        """Whether every cell holds a digit."""
        return all(self.cells)

    def memo(self, name: str, compute: Callable[[], T]) -> T:
        """`compute()`, kept until the candidates change (finders that share one search)."""
        self.where(1)  # refreshes the memo when the candidates changed
        if name not in self._memo:
            self._memo[name] = compute()
        return self._memo[name]  # type: ignore[return-value]

    def where(self, d: Digit) -> int:
        """Mask of the cells where d is still a candidate (recomputed when candidates change)."""
        key = tuple(self.cand)
        if key != self._where_key:
            self._memo = {}
            where = [0] * (self.n + 1)
            for k, mask in enumerate(self.cand):
                while mask:
                    low = mask & -mask
                    where[low.bit_length()] |= 1 << k
                    mask ^= low
            self._where, self._where_key = where, key
        return self._where[d]

    def places(self, unit: tuple[Cell, ...], d: Digit) -> list[Cell]:
        """The cells of `unit` where d is still a candidate."""
        bit = 1 << (d - 1)
        return [k for k in unit if self.cand[k] & bit]

    def place(self, k: Cell, d: Digit) -> None:
        """Put d in cell k and remove it from the candidates of k's peers."""
        self.cells[k] = d
        self.cand[k] = 0
        clear = ~(1 << (d - 1))
        for p in self.shape.peers[k]:
            self.cand[p] &= clear

    def apply(self, step: Step) -> None:
        """Make a step's placement or eliminations."""
        if step.placement is not None:
            self.place(*step.placement)
        for k, d in step.eliminations:
            self.cand[k] &= ~(1 << (d - 1))

    def elims(self, d: Digit, mask: int) -> list[Elimination]:
        """(cell, d) for the cells of `mask` that still hold candidate d."""
        return [(k, d) for k in cells_of(mask & self.where(d))]

    def name(self, k: Cell) -> str:
        """`r3c7`."""
        return self.shape.cell_name(k)

    def names(self, cells: list[Cell] | tuple[Cell, ...]) -> str:
        """`r3c7, r3c8`."""
        return ", ".join(self.shape.cell_name(k) for k in cells)

    def sym(self, d: Digit) -> str:
        """The symbol of digit d."""
        return self.shape.symbol(d)

    def syms(self, digits: list[Digit] | tuple[Digit, ...]) -> str:
        """`2, 5` for a digit list."""
        return ", ".join(self.shape.symbol(d) for d in digits)

    def cand_text(self, k: Cell) -> str:
        """`r3c7 {2, 5}`: a cell with its candidates."""
        return f"{self.name(k)} {{{self.syms(bits(self.cand[k]))}}}"

    def removals(self, elims: list[Elimination] | tuple[Elimination, ...]) -> str:
        """`removes 5 from r1c2, r1c3; 7 from r1c2`."""
        by_digit: dict[Digit, list[Cell]] = {}
        for k, d in sorted(elims):
            by_digit.setdefault(d, []).append(k)
        parts = [f"{self.sym(d)} from {self.names(ks)}" for d, ks in sorted(by_digit.items())]
        return "removes " + "; ".join(parts)


_PEER_SETS: dict[Shape, tuple[frozenset[Cell], ...]] = {}


def _peer_sets(shape: Shape) -> tuple[frozenset[Cell], ...]:
    found = _PEER_SETS.get(shape)
    if found is None:
        found = _PEER_SETS[shape] = tuple(frozenset(p) for p in shape.peers)
    return found


def units_boxes_first(shape: Shape) -> Iterator[tuple[int, tuple[Cell, ...]]]:
    """(unit number, cells), boxes first: a person scans boxes before lines."""
    n = shape.n
    for u in list(range(2 * n, 3 * n)) + list(range(2 * n)):
        yield u, shape.units[u]


def make_step(
    technique: str,
    cells: list[Cell] | tuple[Cell, ...],
    digits: list[Digit] | tuple[Digit, ...],
    elims: list[Elimination],
    text: str,
    extra: int = 0,
) -> Step:
    """An elimination step (eliminations sorted, each once)."""
    return Step(
        technique, tuple(cells), tuple(digits), None, tuple(sorted(set(elims))), text, extra
    )
