"""`dlx`: Knuth's Algorithm X with dancing links, on the exact-cover form of the puzzle.

Algorithm: the matrix of `encodings/exact_cover.py` (N³ options "digit d in cell k", 4·N²
constraints: cell, row-digit, column-digit, box-digit) as Knuth's circular doubly linked lists,
stored as flat lists of ints: `L`, `R`, `U`, `D` (links), `C` (the column header of a node),
`S` (the size of each column), `OPT` (the option of a node). Node 0 is the root, nodes 1..4·N²
the column headers, then four nodes per option. The givens are selected (their columns covered)
before the search; then, recursively: choose the uncovered column with the fewest options
(ties: the first), cover it, try each of its options in turn (cover the option's other
columns, search, uncover in reverse order). Every complete cover is a solution; counting goes
on searching after each one. The linked structure of a shape is built once and copied per
puzzle.

Roads not taken: Ali Assaf's dict-of-sets Algorithm X, measured against this backend by
`benchmarks/exact_cover_variants.py` (2 solutions asked, 40 puzzles of each collection): median
1.1 vs 0.5 ms on easy50, 25 vs 7 ms on top95, 17 vs 6 ms on hexadoku1500. Choosing the
smallest column costs it a scan of every remaining column's set per node, and its sets are
rebuilt per puzzle, where the links walk only the uncovered headers and are copied from a
per-shape template.

Timeout: cooperative; `Deadline.check` runs every 256 nodes.

Stats: `nodes` (options tried in the search, givens not counted), `guesses` (branching
decisions: nodes whose chosen column had two or more options), `backtracks` (options taken
back because the search below them was finished), `updates` (Knuth's measure: nodes unlinked
by `cover`, one per column header plus three per option row in it, givens included).

Limits: the recursion is one level per empty cell (625 on an empty 25x25 grid, under Python's
default limit). Hard 9x9 and typical 16x16 puzzles take milliseconds; very open 25x25 grids
can take long, since the only inference is the smallest-column choice.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import ClassVar

from sudokubench.backend import Deadline, SearchBackend
from sudokubench.encodings.exact_cover import given_options, matrix, solution_grid
from sudokubench.grid import Grid, Shape

CHECK_EVERY = 256

Links = tuple[tuple[int, ...], ...]


@cache
def links_template(shape: Shape) -> Links:
    """The dancing-links arrays (L, R, U, D, C, S, OPT) of the full matrix of `shape`."""
    cover = matrix(shape)
    columns = cover.constraint_count
    left = [c - 1 for c in range(columns + 1)]
    left[0] = columns
    right = [c + 1 for c in range(columns + 1)]
    right[columns] = 0
    up = list(range(columns + 1))
    down = list(range(columns + 1))
    header = list(range(columns + 1))
    size = [0] * (columns + 1)
    option_of = [-1] * (columns + 1)
    for option, constraints in enumerate(cover.options):
        start = len(left)
        width = len(constraints)
        for i, j in enumerate(constraints):
            h, x = j + 1, start + i
            header.append(h)
            option_of.append(option)
            up.append(up[h])
            down.append(h)
            down[up[h]] = x
            up[h] = x
            size[h] += 1
            left.append(start + (i - 1) % width)
            right.append(start + (i + 1) % width)
    return tuple(tuple(a) for a in (left, right, up, down, header, size, option_of))


class DancingLinks(SearchBackend):
    """Algorithm X on dancing links (flat int arrays), smallest column first."""

    name = "dlx"
    practical_n: ClassVar[int] = 16
    handles_hard: ClassVar[bool] = True

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield every exact cover that extends the givens, as a grid."""
        shape = puzzle.shape
        L, R, U, D, C, S, OPT = (list(a) for a in links_template(shape))  # Knuth's names
        first_node = 4 * shape.cells + 1  # node of an option's cell constraint: first + 4*option
        counters = {"nodes": 0, "guesses": 0, "backtracks": 0, "updates": 0}
        stats.update(counters)

        def cover(c: int) -> None:
            counters["updates"] += 1 + 3 * S[c]
            L[R[c]] = L[c]
            R[L[c]] = R[c]
            i = D[c]
            while i != c:
                j = R[i]
                while j != i:
                    U[D[j]] = U[j]
                    D[U[j]] = D[j]
                    S[C[j]] -= 1
                    j = R[j]
                i = D[i]

        def uncover(c: int) -> None:
            i = U[c]
            while i != c:
                j = L[i]
                while j != i:
                    S[C[j]] += 1
                    U[D[j]] = j
                    D[U[j]] = j
                    j = L[j]
                i = U[i]
            L[R[c]] = c
            R[L[c]] = c

        chosen = given_options(puzzle)
        for option in chosen:  # the givens do not conflict, so each option is still there
            x = first_node + 4 * option
            cover(C[x])
            j = R[x]
            while j != x:
                cover(C[j])
                j = R[j]

        def solve() -> Iterator[Grid]:
            if R[0] == 0:
                yield solution_grid(shape, chosen)
                return
            c = best = R[0]
            fewest = S[c]
            while c != 0 and fewest > 1:
                if S[c] < fewest:
                    best, fewest = c, S[c]
                c = R[c]
            if fewest == 0:
                return
            if fewest > 1:
                counters["guesses"] += 1
            cover(best)
            r = D[best]
            while r != best:
                counters["nodes"] += 1
                if counters["nodes"] % CHECK_EVERY == 0:
                    deadline.check()
                chosen.append(OPT[r])
                j = R[r]
                while j != r:
                    cover(C[j])
                    j = R[j]
                yield from solve()
                j = L[r]
                while j != r:
                    uncover(C[j])
                    j = L[j]
                chosen.pop()
                counters["backtracks"] += 1
                r = D[r]
            uncover(best)

        try:
            yield from solve()
        finally:
            stats.update(counters)
