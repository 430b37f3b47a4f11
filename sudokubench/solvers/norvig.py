"""`norvig`: Peter Norvig's "Solving Every Sudoku Puzzle", reimplemented faithfully.

Algorithm (norvig.com/sudoku.html; pytudes `py/sudoku.py` 2006 and `ipynb/Sudoku.ipynb` 2021):
`values` is a dict from square to the string of its candidate digits. `assign(values, s, d)`
eliminates every other digit from s; `eliminate(values, s, d)` removes d from s and propagates
with both of his rules: (1) a square reduced to one digit has that digit eliminated from its
peers; (2) a unit where a digit has only one place left gets the digit assigned there. Both
return the dict, or None on a contradiction. `search` picks the unfilled square with the fewest
candidates (ties: the lowest square) and tries its digits in string order, each on a copy of
the dict. Same algorithm, data structures and propagation as his, neither slowed nor sped up.

Generalised, as the task asks: squares are the cell numbers k of `Shape` (his 'A1'..'I9'), the
digit strings use the symbols `1-9A-Z` of the shape, and units/peers come from the shape, so
every box shape works. His `search` returned the first solution; here it is a generator that
yields every one, so counting continues where he stopped. The per-shape tables (`squares`,
`units`, `peers`, `digits`) are built once per shape, as his module built them once at import.

Timeout: cooperative; `Deadline.check` runs at every search node (a node costs a dict copy and
a propagation, so the check is negligible).

Stats: `nodes` (digits tried by the search, each one a copied dict), `guesses` (squares the
search branched on), `backtracks` (digits taken back after the search below them finished),
`contradictions` (digits whose assignment propagation proved impossible).

Limits: his propagation recurses (eliminate -> assign -> eliminate ...); a chain can go as
deep as the number of squares times a few frames, so the recursion limit is raised to fit the
grid while a search runs (and restored after). Easy 9x9 puzzles take about 2 ms, top95 about
10 ms (70 ms for the worst), 16x16 puzzles about 15 ms: the dict copies and string operations
are the price of his clarity, kept on purpose.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import chain
from typing import ClassVar

from sudokubench.backend import Deadline, SearchBackend
from sudokubench.grid import SYMBOLS, Grid, Shape

Square = int
DigitSet = str
Values = dict[Square, DigitSet]


@dataclass(frozen=True)
class Board:
    """Norvig's module-level tables, for one shape: squares, digits, units and peers."""

    digits: str
    squares: tuple[Square, ...]
    units: dict[Square, list[list[Square]]]
    peers: dict[Square, set[Square]]


@cache
def board(shape: Shape) -> Board:
    """The tables of `shape` (his `squares`, `unitlist`, `units`, `peers`)."""
    squares = tuple(range(shape.cells))
    unitlist = [list(u) for u in shape.cols + shape.rows + shape.boxes]  # his order
    units = {s: [u for u in unitlist if s in u] for s in squares}
    peers = {s: set(chain.from_iterable(units[s])) - {s} for s in squares}
    return Board(SYMBOLS[: shape.n], squares, units, peers)


def assign(b: Board, values: Values, s: Square, d: str) -> Values | None:
    """Eliminate all the other digits (except d) from values[s] and propagate."""
    other_values = values[s].replace(d, "")
    if all(eliminate(b, values, s, d2) for d2 in other_values):
        return values
    return None


def eliminate(b: Board, values: Values, s: Square, d: str) -> Values | None:
    """Eliminate d from values[s]; propagate when a square or a digit has one place left."""
    if d not in values[s]:
        return values  # already eliminated
    values[s] = values[s].replace(d, "")
    # (1) A square reduced to one digit d2: eliminate d2 from its peers.
    if len(values[s]) == 0:
        return None  # contradiction: removed the last digit
    elif len(values[s]) == 1:
        d2 = values[s]
        if not all(eliminate(b, values, s2, d2) for s2 in b.peers[s]):
            return None
    # (2) A unit with only one place left for d: put it there.
    for u in b.units[s]:
        dplaces = [s for s in u if d in values[s]]
        if len(dplaces) == 0:
            return None  # contradiction: no place for d
        elif len(dplaces) == 1 and not assign(b, values, dplaces[0], d):
            return None
    return values


def parse_grid(b: Board, puzzle: Grid) -> Values | None:
    """Every square may be any digit; then assign the givens. None on a contradiction."""
    values = {s: b.digits for s in b.squares}
    for s, d in enumerate(puzzle.cells):
        if d and not assign(b, values, s, b.digits[d - 1]):
            return None
    return values


class Norvig(SearchBackend):
    """Norvig's constraint propagation and fewest-candidates depth-first search."""

    name = "norvig"
    practical_n: ClassVar[int] = 16
    handles_hard: ClassVar[bool] = True

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield every solution, in his search order."""
        shape = puzzle.shape
        b = board(shape)
        counters = {"nodes": 0, "guesses": 0, "backtracks": 0, "contradictions": 0}
        stats.update(counters)

        def search(values: Values | None) -> Iterator[Grid]:
            """Depth-first search with propagation, yielding every solution."""
            if values is None:
                counters["contradictions"] += 1
                return  # failed earlier
            if all(len(values[s]) == 1 for s in b.squares):
                yield Grid(shape, tuple(b.digits.index(values[s]) + 1 for s in b.squares))
                return
            _, s = min((len(values[s]), s) for s in b.squares if len(values[s]) > 1)
            counters["guesses"] += 1
            for d in values[s]:
                counters["nodes"] += 1
                deadline.check()
                yield from search(assign(b, values.copy(), s, d))
                counters["backtracks"] += 1

        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 1000 + 8 * shape.cells))
        try:
            yield from search(parse_grid(b, puzzle))
        finally:
            sys.setrecursionlimit(old_limit)
            stats.update(counters)
