"""`backtracking`: the plain recursive search of the source material.

Algorithm: visit the empty cells in index order (k = 0, 1, ...); in each, try the digits 1..N in
order, keeping a digit only if it is not already in the cell's row, column or box (the source
material's `is_valid_number`), and recurse to the next cell; on return, empty the cell again.
No propagation and no cell ordering: this is the baseline every other backend is measured
against, and it is slow on hard puzzles by design. The row/column/box tests use one set of used
digits per unit, which gives the same answers as scanning the unit, only faster.

Timeout: cooperative; `Deadline.check` runs every 1,024 nodes.

Stats: `nodes` (digits placed), `backtracks` (placements undone because the branch below them
held no further solution).

Limits: the recursion is one level per empty cell (at most 625 on a 25x25 grid). It solves
easy 9x9 puzzles in milliseconds, but hard ones (top95) can take minutes, and larger grids with
many empty cells are out of its reach.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sudokubench.backend import Deadline, SearchBackend
from sudokubench.grid import Grid

CHECK_EVERY = 1024


class Backtracking(SearchBackend):
    """Depth-first search over the cells in order, digits 1..N, no propagation."""

    name = "backtracking"
    practical_n: ClassVar[int] = 9
    handles_hard: ClassVar[bool] = False

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield every solution of `puzzle` in lexicographic order."""
        shape = puzzle.shape
        n = shape.n
        cells = list(puzzle.cells)
        where = shape.cell_units
        rows = [set() for _ in range(n)]
        cols = [set() for _ in range(n)]
        boxes = [set() for _ in range(n)]
        for k, d in enumerate(cells):
            if d:
                r, c, b = where[k]
                rows[r].add(d)
                cols[c].add(d)
                boxes[b].add(d)
        empty = [k for k, d in enumerate(cells) if not d]
        digits = range(1, n + 1)
        counters = {"nodes": 0, "backtracks": 0}
        stats.update(counters)

        def place(i: int) -> Iterator[Grid]:
            if i == len(empty):
                yield Grid(shape, tuple(cells))
                return
            k = empty[i]
            r, c, b = where[k]
            row, col, box = rows[r], cols[c], boxes[b]
            for d in digits:
                if d in row or d in col or d in box:
                    continue
                counters["nodes"] += 1
                if counters["nodes"] % CHECK_EVERY == 0:
                    stats.update(counters)
                    deadline.check()
                cells[k] = d
                row.add(d)
                col.add(d)
                box.add(d)
                yield from place(i + 1)
                row.discard(d)
                col.discard(d)
                box.discard(d)
                cells[k] = 0
                counters["backtracks"] += 1

        try:
            yield from place(0)
        finally:
            stats.update(counters)
