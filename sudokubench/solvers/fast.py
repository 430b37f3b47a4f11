"""`fast`: candidate bitsets, singles, locked candidates, fewest-candidates branching.

Algorithm: each cell holds its candidates as one int with one bit per digit. Placing a digit
removes it from the cell's peers through an iterative queue (naked singles: a peer left with
one candidate is queued in turn). Then every unit where a cell lost candidates is swept: a
digit that no cell of the unit can take is a contradiction, a digit only one cell can take is
placed (hidden single); this repeats until no unit is left to sweep. When singles are
exhausted and cells are still open, one pass of locked candidates (pointing and claiming, over
every box-line intersection) may remove more; if it does, singles run again. Only then does
the search branch, on a cell with the fewest candidates, copying the flat state list
(`list[:]`) for each branch instead of keeping an undo log. Ties go to the lowest index until
a contradiction happens; from then on to the cell whose row, column and box took part in the
most contradictions so far (a dom/wdeg-style weighting: it steers the search to where it
fails). Everything that does not depend on the givens (peers, units, intersections, masks)
is computed once per shape.

Measured while building it: locked candidates cut the mean time of 17-clue uniqueness proofs
by a quarter and the nodes of half-empty 25x25 puzzles about fivefold; run after every
singles fixpoint they cost easy puzzles 10%, so they run only before a branch. The weighted
tie-break cut the mean nodes on top1465 (limit 2) from 37 to 24. Sweeping only the units
that changed (instead of all of them round-robin until a full quiet round) cut the sweeps per
propagation on 17-clue puzzles from 50 to 41 and the time per node on 25x25 by a third.

Why a unit sweep is cheap: digit d is not bit d-1 but bit `w * (d - 1)`, so each digit owns a
field of w bits wide enough to count to N. The sum of a unit's cells (`sum` over an
`itemgetter`, both in C) then holds in each field how many cells of the unit can take that
digit, and two additions find the fields that are 0 (contradiction) or exactly 1 (a single).
Bit operations (`x & -x`, `x & (x - 1)`, `int.bit_count`) work on the spread masks as usual.
A placed cell holds its digit's bit shifted up by one: still one bit (so it counts as decided),
but its field then counts 2, which tells a placed digit (2) from a hidden single (1).

Timing (the rule of `sudokubench.backend`): `prepare` looks up the shape's tables and collects
the givens' digits per unit, which finds conflicting givens (UNSATISFIABLE, nothing timed);
`run`, the timed region, derives the candidates and searches, keeping each solution as its
candidate list; `answer` turns those into grids.

Timeout: cooperative; `Deadline.check` runs every few search nodes (about every 4,000 cells of
propagation work: every 50 nodes on 9x9, every 6 on 25x25).

Stats (as the other search backends count them): `nodes` (digits tried by the search),
`guesses` (cells the search branched on: two or more candidates left after propagation),
`backtracks` (digits taken back once the search below them was finished), `contradictions`
(propagations that failed), `hidden_singles` (digits placed because only one cell of a
unit could take them), `locked_eliminations` (candidates removed by locked candidates),
`max_depth` (most guesses in force at once).

Limits: pure Python, every shape 4x4 to 25x25 (and up to 35x35). Hard 9x9 puzzles (top95)
take about a millisecond, the 16x16 hexadoku1500 ones too. Depth-first search without
learning is heavy-tailed: a 25x25 puzzle with half its cells empty and several solutions
usually takes well under a second, but now and then thousands of nodes (about a millisecond
each) or more.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import reduce
from operator import or_
from typing import Any, ClassVar

from sudokubench.backend import (
    BaseBackend,
    Deadline,
    DeadlineExceeded,
    SolveResult,
    make_result,
)
from sudokubench.grid import Grid
from sudokubench.solvers.fast_tables import Tables, tables

#: bytes.translate table that hides decided cells (1 candidate) from the fewest-candidates scan.
_HIDE_DECIDED = bytes([255, 255, *range(2, 256)])


def _locked(cand: list[int], queue: list[int], tab: Tables) -> int:
    """One pass of locked candidates (pointing and claiming); eliminations made, or < 0.

    A digit whose candidates in a box all lie in one row (column) is removed from the rest of
    that row (column), and one whose candidates in a row (column) all lie in one box from the
    rest of the box. Cells left with one candidate are queued; a cell left with none is a
    contradiction, reported as `_settle` does.
    """
    full = tab.full
    seg = [reduce(or_, cells_of(cand)) & full for cells_of in tab.segments]
    line_others, box_others, line_rest, box_rest = (
        tab.line_others,
        tab.box_others,
        tab.line_rest,
        tab.box_rest,
    )
    removed = 0
    for seg_no, inside in enumerate(seg):
        if not inside:
            continue
        in_line = in_box = 0
        for other in line_others[seg_no]:
            in_line |= seg[other]
        for other in box_others[seg_no]:
            in_box |= seg[other]
        for gone, rest in (
            (inside & in_line & ~in_box, line_rest[seg_no]),
            (inside & in_box & ~in_line, box_rest[seg_no]),
        ):
            if not gone:
                continue
            for k in rest:
                mask = cand[k]
                if mask & gone:
                    mask &= ~gone
                    if not mask:
                        return -1 - len(tab.units) - k
                    cand[k] = mask
                    removed += 1
                    if not mask & (mask - 1):
                        queue.append(k)
    return removed


def _settle(
    cand: list[int], queue: list[int], tab: Tables, open_cells: int, tally: list[int], dirty: int
) -> int:
    """Propagate naked and hidden singles to a fixpoint; the cells left open, or < 0.

    `queue` holds cells decided but not yet removed from their peers; `open_cells` counts the
    cells not yet placed (queued ones included); `dirty` is the set of units (bit u for unit
    u) where a cell lost candidates since the unit was last swept: only those can hold a new
    hidden single or a new contradiction. Placing a cell shifts its bit up by one (see the
    module docstring). Once every cell is placed the grid is a solution (no digit was ever
    placed next to a peer holding it), so the sweep stops.
    `tally[0]` counts the hidden singles. A negative result is a contradiction and names its
    place (see `_blame`): `-1 - u` when unit u has no room for a digit, `-1 - len(units) - k`
    when cell k has no candidate left.
    """
    peers, units, unit_cells, unit_bits = tab.peers, tab.units, tab.unit_cells, tab.unit_bits
    ones, plus_one, plus_two, shift = tab.ones, tab.plus_one, tab.plus_two, tab.width - 1
    count = len(units)
    while True:
        while queue:
            k = queue.pop()
            placed = cand[k]
            cand[k] = placed << 1
            open_cells -= 1
            for peer in peers[k]:
                mask = cand[peer]
                if mask & placed:
                    mask ^= placed
                    if not mask:
                        return -1 - count - peer
                    cand[peer] = mask
                    dirty |= unit_bits[peer]
                    if not mask & (mask - 1):
                        queue.append(peer)
        if not dirty or not open_cells:
            return open_cells
        low = dirty & -dirty
        dirty ^= low
        u = low.bit_length() - 1
        total = sum(unit_cells[u](cand))  # per digit field: cells that can take it, 2 if placed
        somewhere = (total + plus_one) & ones
        if somewhere != ones:
            return -1 - u
        hidden = (somewhere & ~(total + plus_two)) >> shift
        if hidden:
            unit = units[u]
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                for k in unit:
                    if cand[k] & bit:
                        cand[k] = bit
                        dirty |= unit_bits[k]
                        queue.append(k)
                        tally[0] += 1
                        break


def _givens(puzzle: Grid, tab: Tables) -> list[int] | None:
    """The digits each unit's givens hold (one bit each, by unit number); None when two givens
    of a unit are equal."""
    bits, cell_units = tab.bits, tab.cell_units
    placed = [0] * (3 * tab.n)
    for k, d in enumerate(puzzle.cells):
        if d:
            bit = bits[d]
            r, c, box_no = cell_units[k]
            if (placed[r] | placed[c] | placed[box_no]) & bit:
                return None
            placed[r] |= bit
            placed[c] |= bit
            placed[box_no] |= bit
    return placed


def _start(
    cells: tuple[int, ...], placed: list[int], tab: Tables
) -> tuple[list[int], list[int], int] | None:
    """Candidates, the queue of new singles, and the open cells after placing the givens
    (`cells`, whose units hold `placed`); None when a cell has no candidate left."""
    bits, cell_units, full = tab.bits, tab.cell_units, tab.full
    cand = [0] * len(cells)
    queue = []
    for k, d in enumerate(cells):
        if d:
            cand[k] = bits[d] << 1
        else:
            r, c, box_no = cell_units[k]
            mask = full & ~(placed[r] | placed[c] | placed[box_no])
            if not mask:
                return None
            cand[k] = mask
            if not mask & (mask - 1):
                queue.append(k)
    return cand, queue, cells.count(0)


def _blame(weights: list[int], failure: int, tab: Tables) -> None:
    """Weigh the units where a contradiction happened (`failure` < 0, from `_settle`)."""
    where = -1 - failure
    if where < len(weights):
        weights[where] += 1
    else:
        for u in tab.cell_units[where - len(weights)]:
            weights[u] += 1


def _branch_cell(counts: bytes, fewest: int, weights: list[int], tab: Tables) -> int:
    """Among the cells with the fewest candidates, the one whose units failed most often."""
    cell_units = tab.cell_units
    k = best_cell = counts.index(fewest)
    best = -1
    while k >= 0:
        r, c, box_no = cell_units[k]
        score = weights[r] + weights[c] + weights[box_no]
        if score > best:
            best, best_cell = score, k
        k = counts.find(fewest, k + 1)
    return best_cell


class Fast(BaseBackend):
    """Bitset candidates, singles, locked candidates, weighted fewest-candidates branching."""

    name = "fast"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: the shape's tables and the givens' digits per unit; UNSATISFIABLE when two
        givens of a unit are equal."""
        tab = tables(puzzle.shape)
        placed = _givens(puzzle, tab)
        if placed is None:
            return make_result(self.name, [], finished=True, message="conflicting givens")
        return puzzle, placed, tab, limit

    def run(self, prepared: Any, timeout: float | None) -> Any:
        """Timed: the search, up to `limit` solutions (as candidate lists) or the deadline."""
        puzzle, placed, tab, limit = prepared
        deadline = Deadline(timeout)
        stats: dict[str, int | float] = {}
        found: list[list[int]] = []
        finished = timed_out = False
        solutions = _search(puzzle.cells, placed, tab, deadline, stats)
        try:
            for cand in solutions:
                found.append(cand)
                if len(found) >= limit:
                    break
            else:
                finished = True
        except DeadlineExceeded:
            timed_out = True
        finally:
            solutions.close()
        return found, finished, timed_out, stats

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Every solution of `puzzle` as a grid, one at a time (`solve --all` streams them)."""
        prepared = self.prepare(puzzle, 1)
        if isinstance(prepared, SolveResult):  # conflicting givens: no solution
            return
        _, placed, tab, _ = prepared
        digit_of = tab.digit_of.__getitem__
        for cand in _search(puzzle.cells, placed, tab, deadline, stats):
            yield Grid._unchecked(puzzle.shape, tuple(map(digit_of, cand)))

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        """Untimed: the solutions' candidate lists as grids."""
        puzzle, _, tab, _ = prepared
        found, finished, timed_out, stats = raw
        shape, digit_of = puzzle.shape, tab.digit_of.__getitem__
        grids = [Grid._unchecked(shape, tuple(map(digit_of, cand))) for cand in found]
        return make_result(self.name, grids, finished=finished, timed_out=timed_out, stats=stats)


def _search(
    cells: tuple[int, ...],
    placed: list[int],
    tab: Tables,
    deadline: Deadline,
    stats: dict[str, int | float],
) -> Iterator[list[int]]:
    """Yield every solution as its final candidate list (each list is never touched again),
    branching on the cell with fewest candidates; `stats` is updated when the search stops."""
    check_every = tab.check_every
    nodes = guesses = contradictions = locked = depth = depth_max = 0
    tally = [0]  # hidden singles
    weights = [0] * len(tab.units)  # contradictions seen per unit, for choosing cells
    # Each branch: (candidates, open cells, cell, digits still to try there, its depth).
    stack: list[tuple[list[int], int, int, int, int]] = []
    try:
        state = _start(cells, placed, tab)
        if state is None:
            return
        cand, queue, open_cells = state
        open_cells = _settle(cand, queue, tab, open_cells, tally, tab.all_units)
        if open_cells < 0:
            return
        while True:
            # `cand` is settled: solved, or reduced by locked candidates, or branched on.
            if not open_cells:
                yield cand
            else:
                removed = _locked(cand, queue, tab)
                if removed > 0:
                    locked += removed
                    open_cells = _settle(cand, queue, tab, open_cells, tally, tab.all_units)
                    if open_cells >= 0:
                        continue
                elif removed < 0:
                    open_cells = removed
                if open_cells < 0:
                    contradictions += 1
                    _blame(weights, open_cells, tab)
                else:
                    counts = bytes(map(int.bit_count, cand)).translate(_HIDE_DECIDED)
                    fewest = min(counts)
                    k = counts.index(fewest)
                    if contradictions:  # weights exist: prefer cells where search failed
                        k = _branch_cell(counts, fewest, weights, tab)
                    guesses += 1
                    depth_max = max(depth_max, depth + 1)
                    stack.append((cand, open_cells, k, cand[k], depth + 1))
            # Try the next digit of the innermost open branch.
            while stack:
                cand, open_cells, k, todo, depth = stack[-1]
                bit = todo & -todo
                todo ^= bit
                if todo:
                    stack[-1] = (cand, open_cells, k, todo, depth)
                    cand = cand[:]
                else:
                    stack.pop()
                nodes += 1
                if not nodes % check_every:
                    deadline.check()
                cand[k] = bit
                queue = [k]
                open_cells = _settle(cand, queue, tab, open_cells, tally, tab.unit_bits[k])
                if open_cells >= 0:
                    break
                contradictions += 1
                _blame(weights, open_cells, tab)
            else:
                depth = 0
                return
    finally:
        stats.update(
            nodes=nodes,
            guesses=guesses,
            backtracks=nodes - depth,
            contradictions=contradictions,
            hidden_singles=tally[0],
            locked_eliminations=locked,
            max_depth=depth_max,
        )
