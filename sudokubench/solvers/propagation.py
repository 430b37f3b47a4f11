"""`propagation`: the source material's method — propagate to a fixpoint, then a hypothesis.

Algorithm, as the course exercise describes it:

1. **Elimination**: for each empty cell, drop from its candidates the digits already in its row,
   column and box. A cell left with no candidate is a contradiction; a cell left with one
   takes it.
2. **Unique position**: when nothing was placed by elimination, look in every unit for a digit
   it still lacks: no possible place is a contradiction; a single possible place gets it.
3. Repeat 1 and 2 until a round changes nothing.
4. If empty cells remain, make a **hypothesis** on the first undetermined cell (lowest k): try
   each of its candidates in increasing order on a copy of the grid and go back to 1,
   recursively; a branch that reaches a contradiction is impossible and backtracks.

Every round works on one snapshot of the candidates, so the deductions of a round hold
together; two of them that clash (two digits for one cell, or one digit twice in a unit) are a
contradiction. Candidates are bit masks (bit d-1 for digit d), recomputed from the cells each
round, exactly as the method recomputes them by looking at the units; no other technique
(pairs, box-line interactions) and no smarter choice of the hypothesis cell.

Timeout: cooperative; `Deadline.check` runs at every search node and every propagation round.

Stats: `nodes` (hypotheses tried), `guesses` (cells a hypothesis was made on), `backtracks`
(hypotheses taken back after the search below them finished), `contradictions` (propagations
that ended in a contradiction), `rounds` (elimination/unique-position rounds), `eliminated`
(digits placed because elimination left one candidate), `unique` (digits placed by unique
position).

Limits: the hypothesis goes on the first empty cell, not the most constrained one, so hard 9x9
puzzles can need hundreds of nodes (895 and 0.17 s for the worst of top95 and hardest, proving
uniqueness); typical 16x16 puzzles take a few milliseconds; grids larger than 16x16 with few
givens can take very long (an empty 25x25 grid is out of reach). The recursion is one level
per hypothesis.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sudokubench.backend import Deadline, SearchBackend
from sudokubench.grid import Grid, Shape

Mask = int


def propagate(
    shape: Shape, cells: list[int], counters: dict[str, int], deadline: Deadline
) -> list[Mask] | None:
    """Apply elimination and unique position to `cells` in place until nothing changes.

    Returns the candidate masks of the cells (0 for filled ones), or None on a contradiction.
    """
    n = shape.n
    full = (1 << n) - 1
    where, units = shape.cell_units, shape.units
    while True:
        counters["rounds"] += 1
        deadline.check()
        # The digits each unit already holds: rows 0..N-1, columns N..2N-1, boxes 2N..3N-1.
        held = [0] * (3 * n)
        for k, d in enumerate(cells):
            if d:
                r, c, b = where[k]
                bit = 1 << (d - 1)
                held[r] |= bit
                held[n + c] |= bit
                held[2 * n + b] |= bit
        # 1. Elimination.
        candidates = [0] * len(cells)
        singles: list[tuple[int, Mask]] = []
        for k, d in enumerate(cells):
            if d:
                continue
            r, c, b = where[k]
            mask = full & ~(held[r] | held[n + c] | held[2 * n + b])
            if not mask:
                return None
            if not mask & (mask - 1):
                singles.append((k, mask))
            candidates[k] = mask
        if singles:
            counters["eliminated"] += len(singles)
            if not _place(cells, singles, where, held, n):
                return None
            continue
        # 2. Unique position.
        found: dict[int, Mask] = {}
        for u, unit in enumerate(units):
            once = twice = 0
            for k in unit:
                mask = candidates[k]
                twice |= once & mask
                once |= mask
            if (once | held[u]) != full:
                return None  # a digit the unit lacks has no place left in it
            lonely = once & ~twice
            while lonely:
                bit = lonely & -lonely
                lonely ^= bit
                k = next(k for k in unit if candidates[k] & bit)
                if found.get(k, bit) != bit:
                    return None  # two digits must go in one cell
                found[k] = bit
        if not found:
            return candidates
        counters["unique"] += len(found)
        if not _place(cells, list(found.items()), where, held, n):
            return None


def _place(
    cells: list[int],
    placements: list[tuple[int, Mask]],
    where: tuple[tuple[int, int, int], ...],
    held: list[Mask],
    n: int,
) -> bool:
    """Place the digits of one round; False if two of them clash in a unit."""
    for k, bit in placements:
        r, c, b = where[k]
        if (held[r] | held[n + c] | held[2 * n + b]) & bit:
            return False
        held[r] |= bit
        held[n + c] |= bit
        held[2 * n + b] |= bit
        cells[k] = bit.bit_length()
    return True


class Propagation(SearchBackend):
    """Elimination and unique position to a fixpoint, then a hypothesis on the first empty cell."""

    name = "propagation"
    practical_n: ClassVar[int] = 16
    handles_hard: ClassVar[bool] = True

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield every solution, hypotheses in cell order and digits in increasing order."""
        shape = puzzle.shape
        counters = dict.fromkeys(
            ("nodes", "guesses", "backtracks", "contradictions", "rounds", "eliminated", "unique"),
            0,
        )
        stats.update(counters)

        def solve(cells: list[int]) -> Iterator[Grid]:
            candidates = propagate(shape, cells, counters, deadline)
            if candidates is None:
                counters["contradictions"] += 1
                return
            k = next((k for k, d in enumerate(cells) if not d), None)
            if k is None:
                yield Grid(shape, tuple(cells))
                return
            counters["guesses"] += 1
            mask = candidates[k]
            while mask:
                bit = mask & -mask
                mask ^= bit
                counters["nodes"] += 1
                deadline.check()
                hypothesis = list(cells)
                hypothesis[k] = bit.bit_length()
                yield from solve(hypothesis)
                counters["backtracks"] += 1

        try:
            yield from solve(list(puzzle.cells))
        finally:
            stats.update(counters)
