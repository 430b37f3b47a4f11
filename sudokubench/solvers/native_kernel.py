"""The compiled core of the `native` backend: the layouts, bitsets and propagation.

Everything here is compiled by numba (`@njit(cache=True)`) and touches only integer and float
arrays; the backend module (`native.py`) builds the tables, calls the kernel's entry points
(`native_search.search`, `native_estimate.probes`) and turns their arrays into results. This
module holds what both entry points share: the layout of the state array, the return codes,
the thresholds, `unpack` (the views of the two flat arrays) and the propagation of a node
(`start`, `settle`, `locked`, `reduce_node`) and the choice of its branch cell.

Representation (the ideas of the fastest published solvers, rewritten for any box shape):

- `cand[k]`, an int64 bitset per cell: bit d-1 set when digit d is still a candidate. A cell
  whose set has one bit is decided; it has been removed from its peers once it has left the
  queue. 35 digits fit, so every shape the grid model allows works.
- Propagation (`settle`): naked singles through a queue of decided cells, then hidden singles
  found per unit with the "seen once / seen twice" masks (kudoku, fsss2), each unit looked at
  only when one of its cells changed (a 128-bit set of units, lowest first) and the queue
  emptied again after each unit, to a fixpoint; a digit missing from a unit or a cell left
  empty is a contradiction.
- Box-line reduction (`locked`, locked candidates: pointing and claiming) when the singles
  stall: tdoku's write-up explains why fast solvers need it (it is the simplest inference unit
  propagation misses). Measured here it roughly pays for itself on top1465. The same pass
  applies the counting rule of a segment (tdoku's triads: a segment of s cells holds exactly
  s digits): s candidates in all leave the rest of its line and box, and s digits that have
  no other place in the line or the box are all its cells may hold. That cut the nodes of
  top1465 by 30% and the kernel time by 20-30% (side by side, limits 1 and 2).
- Branching (`branch_cell`): the open cell with the fewest candidates, digits in increasing
  order; when solving, among those the one whose units have the most open cells
  (`widest_cell`).
- Fast paths for the last cells: below `LAST_CELLS` open cells no box-line reduction, at
  `NAKED_ONLY` or fewer only naked singles. The thresholds were tuned on top1465 and the 6x6
  counts, side by side; they are judgements, not optima.
- Helpers are inlined into `search` and `probes` across modules (`inlined`: by LLVM, each
  helper compiled once): a third faster than calls, which pass every array of the tables and
  count references on each call.

numba's on-disk cache checks a function against a hash of its own source file only: after
editing this module, delete the cached `native_search`, `native_estimate` and `native_band`
entries (numba's `*.nbi` and `*.nbc` files in `__pycache__`) or set a fresh `NUMBA_CACHE_DIR`,
or `search` and `probes` keep the old inlined code (checked with numba 0.68: an edit here leaves
`search` loading from the cache in a second).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numba.core import types


def inlined(function: Callable[..., Any]) -> Any:
    """`@njit` for a helper of the kernels: compiled once for its argument types, then inlined
    into each compiled caller by LLVM (`forceinline`), with no CPython or C wrapper (only
    compiled code calls it).

    Not numba's `inline="always"`, which inlines numba's own IR at every call site: it copies
    the helper's IR there (every block with a deep copy of all its variables) and types and
    lowers it again, nested helpers included: a third of the band kernel's compile went to
    those copies. Inlined by LLVM, `warm()` with an empty cache takes 12-14 s of CPU instead
    of 28-31 s; the kernels' run time, side by side, 0.96-0.97x on 16x16 and 1.00-1.03x on the
    band kernel's second round (docs/benchmarks.md, "First compile and cache load").

    numba would compile a helper once more for each new combination of argument types at its
    call sites, and a constant argument has a type of its own (`settle(cand, 0, ...)`: a
    `Literal[int](0)`), as have the types numba's inference tries on its way (a counter that
    starts at 0 is a literal 0 until its increments are typed): that compiled `settle` four
    times. Calls resolve on the plain types here (`types.unliteral`), so a helper compiles
    once per real argument types and the constant reaches LLVM, which folds it after
    inlining as before. A helper's entry in numba's cache keeps its LLVM bitcode beside the
    machine code, so a caller compiled later (after an edit of its own module) still inlines
    it: checked with numba 0.68, the band kernel's `search` recompiled over cached helpers
    calls none of them.
    """
    dispatcher = njit(cache=True, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)(
        function
    )
    resolve = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        plain_kws = {name: types.unliteral(t) for name, t in kws.items()}
        return resolve(tuple(types.unliteral(t) for t in args), plain_kws)

    dispatcher.get_call_template = get_call_template
    return dispatcher


# -- the layout of the state array `st` (int64) ------------------------------------------------

MODE = 0  # where the search stands: START, ADVANCE (try the next untried digit) or DONE
FROM = 1  # the highest level whose untried digits the next ADVANCE looks at
COUNT = 2  # solutions found
NODES = 3  # digits tried (each a node of the search tree)
GUESSES = 4  # branch points (a cell with two or more candidates chosen)
BACKTRACKS = 5  # nodes that ended in a contradiction
MAX_DEPTH = 6  # the deepest level used
HIDDEN = 7  # hidden singles placed
LOCKED = 8  # candidates removed by box-line reduction
SAVED = 9  # rows of `sols` filled since the caller last emptied it
LEAF_POS = 10  # the open cell the enumeration of a leaf (`leaf_run`) stands at
LEAF_SIZE = 11  # that leaf's open cells
STATE_SIZE = 12

START = 0
ADVANCE = 1
DONE = 2
IN_LEAF = 3  # counting a leaf's completions (`leaf_run`); then ADVANCE from FROM

# What `search` returns.
FINISHED = 0  # the tree is exhausted: the count is exact
LIMIT = 1  # `limit` solutions were found; calling again goes on counting
PAUSED = 2  # `budget` nodes were used; calling again resumes
FULL = 3  # `sols` is full (only when asked to stop then): empty it, set SAVED to 0, resume

#: The table's header: cells, N, peers per cell, segments, then the widths of the segment
#: tables (cells, others in line, others in box, rest of line, rest of box), then levels.
HEADER = 16

#: At or below this many open cells, only naked singles propagate (the fast path for the
#: end): hidden singles rarely prune there, and a full grid reached by naked singles alone is
#: still a solution (each placed digit left its peers).
NAKED_ONLY = 12

#: When only counting, a node with at most this many open cells counts its completions by a
#: plain enumeration over those cells, without stack levels or propagation.
LEAF = 26
#: Steps of a leaf enumeration that count as one node of the budget.
LEAF_STEPS = 32
#: A leaf's enumeration remembers the count below its checkpoint, the open cell this many
#: before its last, by what the cells before it leave the cells from it on (the digits the
#: earlier cells placed in each unit of a later one): another branch that leaves the same
#: adds that count without enumerating it again (`native_search.leaf_run`).
MEMO_CELLS = 12
#: A leaf sets up its memo once it has counted this many solutions (a small leaf, as most of
#: a 9x9 puzzle's, never pays for it).
MEMO_AFTER = 64
#: Slots of the leaves' memo (direct-mapped, each holding its full key: a count from it is
#: exact), and the most int64 words of a key (the units' digits, `64 // N` units a word).
MEMO_SLOTS = 1024
MEMO_WORDS = 8
#: Where the leaf's scratch (`unpack`'s `leaf`) keeps what the memo needs: the units of each
#: open cell (3 a cell), the units of the cells from the checkpoint on (at most 3 x 35),
#: the memo's scalars (`M_*`), the key at the checkpoint, then the slots (a generation, a
#: count and a key each).
LEAF_UNITS = 4 * LEAF
MEMO_UNIT_LIST = LEAF_UNITS + 3 * LEAF
M_AT = MEMO_UNIT_LIST + 105  # the checkpoint (an index of the open cells), -1 for none
M_UNITS = M_AT + 1  # the units in the key
M_PER = M_AT + 2  # units a word
M_WORDS = M_AT + 3  # words of the key
M_GEN = M_AT + 4  # this leaf's generation: a slot of another leaf never matches
M_SLOT = M_AT + 5  # the slot the enumeration below the checkpoint fills when it ends, or -1
M_BASE = M_AT + 6  # the count when the enumeration reached the checkpoint
M_WAKE = M_AT + 7  # the count at which the leaf sets up its memo
MEMO_KEY = M_AT + 8
MEMO_TABLE = MEMO_KEY + MEMO_WORDS
LEAF_WORK = MEMO_TABLE + MEMO_SLOTS * (2 + MEMO_WORDS)

#: Below this many open cells a node skips box-line reduction (the fast path for the end).
LAST_CELLS = 20


@inlined
def popcount(m: int) -> int:
    """The number of set bits of a non-negative int64."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (m * 0x0101010101010101) >> 56


@njit(cache=True)
def unpack(table, work):
    """Views of the shape's tables and of the search's arrays, from the two flat arrays.

    Two arrays instead of fifteen keep the cost of each call from Python low (numba unboxes
    every argument). Layouts: `HEADER` and `table_layout`, `work_layout` in native.py.
    """
    cells = np.int64(table[0])
    n = np.int64(table[1])
    npeers = np.int64(table[2])
    nseg = np.int64(table[3])
    w_seg = np.int64(table[4])
    w_lo = np.int64(table[5])
    w_bo = np.int64(table[6])
    w_lr = np.int64(table[7])
    w_br = np.int64(table[8])
    levels = np.int64(table[9])
    at = HEADER
    peers = table[at : at + cells * npeers].reshape((cells, npeers))
    at += cells * npeers
    units = table[at : at + 3 * n * n].reshape((3 * n, n))
    at += 3 * n * n
    cell_units = table[at : at + cells * 3].reshape((cells, 3))
    at += cells * 3
    seg_cells = table[at : at + nseg * w_seg].reshape((nseg, w_seg))
    at += nseg * w_seg
    seg_len = table[at : at + nseg]
    at += nseg
    line_others = table[at : at + nseg * w_lo].reshape((nseg, w_lo))
    at += nseg * w_lo
    box_others = table[at : at + nseg * w_bo].reshape((nseg, w_bo))
    at += nseg * w_bo
    line_rest = table[at : at + nseg * w_lr].reshape((nseg, w_lr))
    at += nseg * w_lr
    box_rest = table[at : at + nseg * w_br].reshape((nseg, w_br))
    at = 0
    cand = work[at : at + levels * cells]
    at += levels * cells
    open_at = work[at : at + levels]
    at += levels
    branch_at = work[at : at + levels]
    at += levels
    todo_at = work[at : at + levels]
    at += levels
    queue = work[at : at + cells + 2]
    at += cells + 2
    dirty = work[at : at + 3 * n]
    at += 3 * n
    seg_or = work[at : at + nseg + 1]
    at += nseg + 1
    leaf = work[at : at + LEAF_WORK]
    at += LEAF_WORK
    umask = work[at : at + 2 * cells]
    tabs = (
        peers, units, cell_units, dirty, seg_cells, seg_len, line_others, box_others,
        line_rest, box_rest, seg_or, leaf, umask,
    )  # fmt: skip
    return tabs, cand, open_at, branch_at, todo_at, queue, (1 << n) - 1


@inlined
def mark(dirty, umask, k) -> None:
    """Mark the three units of cell k as changed (`dirty[0:2]`: a 128-bit set of units)."""
    dirty[0] |= umask[2 * k]
    dirty[1] |= umask[2 * k + 1]


@inlined
def settle(cand, base, queue, qlen, open_cells, tabs, full, st) -> int:
    """Propagate the queued decided cells and hidden singles to a fixpoint.

    Works on the block of `cand` that starts at `base`; `queue[:qlen]` holds cells decided but
    not yet removed from their peers. Only units in the set `dirty[0:2]` (a cell of theirs
    lost a candidate since they were last looked at; `umask` holds each cell's units as such
    a set) are searched for hidden singles and missing digits, lowest first. Returns the
    cells left open, or -1 on a contradiction.
    """
    peers = tabs[0]
    units = tabs[1]
    dirty = tabs[3]
    umask = tabs[12]
    d0 = dirty[0]
    d1 = dirty[1]
    n = units.shape[1]
    npeers = peers.shape[1]
    while True:
        while qlen > 0:
            qlen -= 1
            k = queue[qlen]
            bit = cand[base + k]
            open_cells -= 1
            for i in range(npeers):
                p = base + peers[k, i]
                m = cand[p]
                if m & bit:
                    m ^= bit
                    if m == 0:
                        dirty[0] = d0
                        dirty[1] = d1
                        return -1
                    cand[p] = m
                    q = peers[k, i]
                    d0 |= umask[2 * q]
                    d1 |= umask[2 * q + 1]
                    if m & (m - 1) == 0:
                        queue[qlen] = q
                        qlen += 1
        if open_cells <= NAKED_ONLY or (d0 == 0 and d1 == 0):
            dirty[0] = d0
            dirty[1] = d1
            return open_cells
        # The next changed unit, lowest first; back to the queue as soon as it has work.
        if d0:
            low = d0 & -d0
            d0 ^= low
            u = popcount(low - 1)
        else:
            low = d1 & -d1
            d1 ^= low
            u = 64 + popcount(low - 1)
        once = 0
        twice = 0
        fixed = 0
        for i in range(n):
            m = cand[base + units[u, i]]
            twice |= once & m
            once |= m
            if m & (m - 1) == 0:
                fixed |= m
        if once != full:
            dirty[0] = d0
            dirty[1] = d1
            return -1
        hidden = once & ~twice & ~fixed
        while hidden:
            bit = hidden & -hidden
            hidden ^= bit
            for i in range(n):
                k = units[u, i]
                if cand[base + k] & bit:
                    cand[base + k] = bit
                    d0 |= umask[2 * k]
                    d1 |= umask[2 * k + 1]
                    queue[qlen] = k
                    qlen += 1
                    st[HIDDEN] += 1
                    break


@inlined
def locked(cand, base, queue, tabs) -> int:
    """One pass of box-line reduction; candidates removed, or -1 on a contradiction.

    A segment is the intersection of a line and a box. A digit of a segment found nowhere else
    in its box leaves the rest of its line (pointing); one found nowhere else in its line
    leaves the rest of its box (claiming). A segment of s cells holds s digits: fewer
    candidates is a contradiction, exactly s leave the rest of its line and box, and when s of
    its digits have no other place in their line or box its cells keep only those. Newly
    decided cells are appended to `queue` after `queue[0]`, whose slot holds their number.
    """
    dirty = tabs[3]
    umask = tabs[12]
    seg_cells, seg_len, line_others, box_others, line_rest, box_rest, seg_or = tabs[4:11]
    nseg = seg_cells.shape[0]
    for s in range(nseg):
        acc = 0
        for i in range(seg_len[s]):
            acc |= cand[base + seg_cells[s, i]]
        seg_or[s] = acc
    removed = 0
    qlen = queue[0]
    for s in range(nseg):
        inside = seg_or[s]
        in_line = 0
        for i in range(line_others.shape[1]):
            in_line |= seg_or[line_others[s, i]]
        in_box = 0
        for i in range(box_others.shape[1]):
            in_box |= seg_or[box_others[s, i]]
        size = seg_len[s]
        digits = popcount(inside)
        if digits < size:
            return -1
        must = inside & (~in_line | ~in_box)  # digits with no other place in the line or box
        if must:
            ms = popcount(must)
            if ms > size:
                return -1
            if ms == size and digits > size:  # the segment holds exactly these digits
                for i in range(size):
                    k = seg_cells[s, i]
                    m = cand[base + k]
                    if m & ~must:
                        m &= must
                        if m == 0:
                            return -1
                        cand[base + k] = m
                        mark(dirty, umask, k)
                        removed += 1
                        if m & (m - 1) == 0:
                            qlen += 1
                            queue[qlen] = k
                inside = must
                digits = size
        for side in range(2):
            if digits == size:  # a naked set in the segment: its digits leave line and box
                gone = inside & (in_line if side == 0 else in_box)
            elif side == 0:
                gone = inside & ~in_box & in_line
            else:
                gone = inside & ~in_line & in_box
            rest = line_rest if side == 0 else box_rest
            if gone == 0:
                continue
            for i in range(rest.shape[1]):
                k = rest[s, i]
                if k < 0:  # padding
                    break
                m = cand[base + k]
                if m & gone:
                    m &= ~gone
                    if m == 0:
                        return -1
                    cand[base + k] = m
                    mark(dirty, umask, k)
                    removed += 1
                    if m & (m - 1) == 0:
                        qlen += 1
                        queue[qlen] = k
    queue[0] = qlen
    return removed


@njit(cache=True)
def prime(table, work) -> None:
    """Fill the parts of a new work array that depend on the shape only (`umask`: each cell's
    units as a 128-bit set), once per array rather than once per search."""
    tabs = unpack(table, work)[0]
    cell_units = tabs[2]
    umask = tabs[12]
    for k in range(cell_units.shape[0]):
        umask[2 * k] = 0
        umask[2 * k + 1] = 0
        for i in range(3):
            u = cell_units[k, i]
            umask[2 * k + u // 64] |= 1 << (u % 64)


@njit(cache=True)
def start(cand, queue, givens, full, tabs, st) -> int:
    """Fill level 0 from the givens and propagate; the cells left open, or -1.

    The givens are not propagated one by one to their peers: each unit's given digits are
    collected first (two equal ones are a conflict), and an empty cell starts with the digits
    none of its units has, so only the cells this leaves decided go through the queue.
    """
    cells = givens.shape[0]
    cell_units = tabs[2]
    dirty = tabs[3]
    placed = tabs[10]  # the segment scratch, free until box-line reduction: 3N <= segments
    nunits = tabs[1].shape[0]
    dirty[0] = -1 if nunits >= 64 else (1 << nunits) - 1
    dirty[1] = 0 if nunits <= 64 else (1 << (nunits - 64)) - 1
    for u in range(nunits):
        placed[u] = 0
    for k in range(cells):
        d = givens[k]
        if d:
            bit = 1 << (d - 1)
            for i in range(3):
                u = cell_units[k, i]
                if placed[u] & bit:
                    return -1
                placed[u] |= bit
    qlen = 0
    open_cells = 0
    for k in range(cells):
        d = givens[k]
        if d:
            cand[k] = 1 << (d - 1)
            continue
        m = full & ~(placed[cell_units[k, 0]] | placed[cell_units[k, 1]] | placed[cell_units[k, 2]])
        if m == 0:
            return -1
        cand[k] = m
        open_cells += 1
        if m & (m - 1) == 0:
            queue[qlen] = k
            qlen += 1
    return settle(cand, 0, queue, qlen, open_cells, tabs, full, st)


@inlined
def reduce_node(cand, base, open_cells, queue, tabs, full, st) -> int:
    """One pass of box-line reduction, then singles; open cells, or -1.

    One pass, not passes until nothing changes: the pass after a productive one rarely finds
    more, and the node's children reduce again. That made the kernel 0.85x on top1465 and
    top95 (0.95x on 17clue) puzzle by puzzle (`benchmarks/native_versions.py`), for 2-3% more
    nodes."""
    while open_cells > LAST_CELLS:
        queue[0] = 0
        removed = locked(cand, base, queue, tabs)
        if removed <= 0:
            return open_cells if removed == 0 else -1
        st[LOCKED] += removed
        qlen = queue[0]
        for i in range(qlen):  # move the new singles to the front of the queue
            queue[i] = queue[i + 1]
        return settle(cand, base, queue, qlen, open_cells, tabs, full, st)
    return open_cells


@inlined
def branch_cell(cand, base, cells) -> int:
    """The open cell with the fewest candidates (the first one with two ends the scan)."""
    best = -1
    fewest = 64
    for k in range(cells):
        m = cand[base + k]
        if m & (m - 1):
            c = popcount(m)
            if c < fewest:
                fewest = c
                best = k
                if c == 2:
                    break
    return best


@inlined
def widest_cell(cand, base, cells, tabs) -> int:
    """The open cell with the fewest candidates whose units have the most open cells (its
    digit reaches furthest; the first on a tie). Used when solving, it cut top1465's nodes by
    a fifth and the kernel time by 5-15% side by side; counting the 6x6 grids and the
    estimator keep `branch_cell` (the former measured faster with it)."""
    cell_units = tabs[2]
    opened = tabs[10]  # the segment scratch, free outside box-line reduction: 3N <= segments
    for u in range(tabs[1].shape[0]):
        opened[u] = 0
    fewest = 64
    for k in range(cells):
        m = cand[base + k]
        if m & (m - 1):
            opened[cell_units[k, 0]] += 1
            opened[cell_units[k, 1]] += 1
            opened[cell_units[k, 2]] += 1
            if fewest > 2:
                fewest = min(fewest, popcount(m))
    best = -1
    score = -1
    for k in range(cells):
        rest = cand[base + k]
        rest &= rest - 1  # without its lowest digit
        if rest == 0:
            continue
        if rest & (rest - 1) == 0 if fewest == 2 else popcount(rest) + 1 == fewest:
            here = opened[cell_units[k, 0]] + opened[cell_units[k, 1]] + opened[cell_units[k, 2]]
            if here > score:
                score = here
                best = k
    return best
