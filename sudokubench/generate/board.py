"""The board the human techniques work on (`techniques.py`): the digits placed so far, each
empty cell's candidates as a bit mask (bit d-1 set while digit d is possible), and the `Step`
a technique finds and `Board.apply` makes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sudokubench.grid import Cell, Digit, Grid, Shape

__all__ = ["Board", "Elimination", "Step", "bits", "units_boxes_first"]

Elimination = tuple[Cell, Digit]


@dataclass(frozen=True)
class Step:
    """One move of a human solver: a placement or some eliminations, and why, in words."""

    technique: str
    cells: tuple[Cell, ...]
    digits: tuple[Digit, ...]
    placement: tuple[Cell, Digit] | None
    eliminations: tuple[Elimination, ...]
    text: str


def bits(mask: int) -> list[Digit]:
    """The digits of a candidate mask, in order."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length())
        mask ^= low
    return found


class Board:
    """Placed digits and candidate masks, with the shape's geometry at hand."""

    def __init__(self, puzzle: Grid, solution: Grid | None = None) -> None:
        self.shape = shape = puzzle.shape
        self.n = n = shape.n
        self.solution = solution
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

    def grid(self) -> Grid:
        """The placed digits as a Grid."""
        return Grid(self.shape, tuple(self.cells))

    def solved(self) -> bool:
        """Whether every cell holds a digit."""
        return all(self.cells)

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

    def removals(self, elims: list[Elimination]) -> str:
        """`removes 5 from r1c2, r1c3; 7 from r1c2`."""
        by_digit: dict[Digit, list[Cell]] = {}
        for k, d in elims:
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
    order = list(range(2 * n, 3 * n)) + list(range(2 * n))
    for u in order:
        yield u, shape.units[u]
