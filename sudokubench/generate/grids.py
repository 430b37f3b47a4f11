"""Random complete grids (solutions) for every shape, reproducible from a seed.

The source material fills the cells in order, each with a random digit still among its
candidates, and never goes back. That dead-ends: a late cell of a row can find every digit
already used by its row, column or box, and the source then leaves a 0 in the grid (its own
printed output shows them). Here the fill is a real search, so it always completes:

- **Most constrained cell first** (minimum remaining values): the empty cell with the fewest
  candidates is filled next, ties broken by a random cell order drawn once per attempt. A cell
  that runs out of candidates is met as soon as it happens, not at the end of a row.
- **Digits in random order**, and **backtracking** on a dead end: undo the last choice and try
  its next digit. The empty grid has solutions, so the search cannot fail.
- **Restarts**: random fills have heavy-tailed run times (a bad early choice on 16x16 or 25x25
  can cost a long backtrack). After `RESTART_NODES` placements per cell without success the
  attempt is dropped and a new one starts with fresh random choices from the same generator;
  the budget grows by half each time, so the search stays complete. (Measured on 25x25: with
  about 6 placements per cell a grid takes well under a second on average, with a restart or
  two; budgets 5-10x larger are slower, because a bad early choice is kept longer.)

Everything random comes from one `random.Random`, so a seed gives the same grid on every run and
platform. The grids are not drawn uniformly from all solution grids (no practical method does
that for every shape); they are varied enough for generating puzzles and benchmarks.
"""

from __future__ import annotations

import random

from sudokubench.grid import Grid, Shape

__all__ = ["RESTART_NODES", "make_rng", "random_solution"]

#: Placements per cell allowed in the first attempt before a restart (x1.5 after each one).
RESTART_NODES = 6


class _Restart(Exception):
    """The attempt used its budget of placements."""


def make_rng(seed: int | str | random.Random | None) -> random.Random:
    """A `random.Random` from a seed (an existing generator is used as is; None = fresh)."""
    if isinstance(seed, random.Random):
        return seed
    return random.Random(seed)


def random_solution(shape: Shape, seed: int | str | random.Random | None = None) -> Grid:
    """A random complete valid grid of `shape`; the same seed gives the same grid."""
    rng = make_rng(seed)
    budget = RESTART_NODES * shape.cells
    while True:
        try:
            return _fill(shape, rng, budget)
        except _Restart:
            budget += budget // 2


def _fill(shape: Shape, rng: random.Random, budget: int) -> Grid:
    """One attempt of the randomized most-constrained-first search; _Restart past `budget`."""
    n = shape.n
    full = (1 << n) - 1
    where = shape.cell_units
    rows, cols, boxes = [0] * n, [0] * n, [0] * n
    cells = [0] * shape.cells
    order = list(range(shape.cells))
    rng.shuffle(order)
    empty = set(order)
    nodes = 0

    def choose() -> tuple[int, int]:
        """The empty cell with the fewest candidates and its candidate mask."""
        best, best_mask, best_count = -1, 0, n + 1
        for k in order:
            if k not in empty:
                continue
            r, c, b = where[k]
            mask = full & ~(rows[r] | cols[c] | boxes[b])
            count = mask.bit_count()
            if count < best_count:
                best, best_mask, best_count = k, mask, count
                if count <= 1:
                    break
        return best, best_mask

    def place() -> bool:
        """Fill the rest of the grid (True), or undo this level and say it cannot (False)."""
        nonlocal nodes
        if not empty:
            return True
        k, mask = choose()
        if not mask:
            return False
        r, c, b = where[k]
        digits = [d for d in range(1, n + 1) if mask >> (d - 1) & 1]
        rng.shuffle(digits)
        empty.discard(k)
        for d in digits:
            nodes += 1
            if nodes > budget:
                raise _Restart
            bit = 1 << (d - 1)
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
            cells[k] = d
            if place():
                return True
            rows[r] &= ~bit
            cols[c] &= ~bit
            boxes[b] &= ~bit
        cells[k] = 0
        empty.add(k)
        return False

    if not place():  # pragma: no cover - the empty grid always has a solution
        raise AssertionError(f"no complete {shape} grid found")
    return Grid(shape, tuple(cells))
