"""The compiled kernel of the `native` backend: bitset search, counting and Knuth's estimator.

Everything here is compiled by numba (`@njit(cache=True)`) and touches only integer and float
arrays; the backend module (`native.py`) builds the tables, calls these functions and turns
their arrays into results.

Representation (the ideas of the fastest published solvers, rewritten for any box shape):

- `cand[k]`, an int64 bitset per cell: bit d-1 set when digit d is still a candidate. A cell
  whose set has one bit is decided; it has been removed from its peers once it has left the
  queue. 35 digits fit, so every shape the grid model allows works.
- Search nodes live in one flat array, a block of `cells` entries per level of an explicit
  stack (no recursion). A branch copies its parent's block; the last alternative of a branch
  reuses the parent's block in place, as tdoku and JCZSolve do, so the stack grows only for
  real choices.
- Propagation (`settle`): naked singles through a queue of decided cells, then hidden singles
  found per unit with the "seen once / seen twice" masks (kudoku, fsss2), each unit looked at
  only when one of its cells changed (a 128-bit set of units, lowest first) and the queue
  emptied again after each unit, to a fixpoint; a digit missing from a unit or a cell left
  empty is a contradiction.
- Box-line reduction (`locked`, locked candidates: pointing and claiming) when the singles
  stall: tdoku's write-up explains why fast solvers need it (it is the simplest inference unit
  propagation misses). Measured here it roughly pays for itself on top1465.
- Branching: the open cell with the fewest candidates (the scan stops at the first cell with
  two), digits in increasing order.
- Fast paths for the last cells: below `LAST_CELLS` open cells no box-line reduction, at
  `NAKED_ONLY` or fewer only naked singles, and when only counting (no grid wanted), a node
  with at most `LEAF` open cells counts its completions by a plain enumeration over those
  cells (`leaf_begin`, `leaf_run`: no stack level or propagation per solution, and paused
  and resumed like the search, so a large leaf cannot hold up the deadline). The thresholds
  were tuned on top1465 and the 6x6 counts, side by side (`LEAF` 12 -> 20 -> 26 made counting
  1.6x, then 1.3x faster); they are judgements, not optima.
- Helpers are inlined into `search` and `probes` (`inline="always"`): a third faster than
  calls, which pass every array of the tables and count references on each call, at the price
  of a longer first compilation.

The search is resumable: its whole state (levels, branch cells, untried digits, counters) is
in arrays owned by the caller, and `search` returns after `budget` nodes, so the caller can
check its deadline without a clock in the hot loop and call again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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

#: Below this many open cells a node skips box-line reduction (the fast path for the end).
LAST_CELLS = 20


@njit(cache=True, inline="always")
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
    leaf = work[at : at + 4 * LEAF]
    at += 4 * LEAF
    umask = work[at : at + 2 * cells]
    tabs = (
        peers, units, cell_units, dirty, seg_cells, seg_len, line_others, box_others,
        line_rest, box_rest, seg_or, leaf, umask,
    )  # fmt: skip
    return tabs, cand, open_at, branch_at, todo_at, queue, (1 << n) - 1


@njit(cache=True, inline="always")
def mark(dirty, umask, k) -> None:
    """Mark the three units of cell k as changed (`dirty[0:2]`: a 128-bit set of units)."""
    dirty[0] |= umask[2 * k]
    dirty[1] |= umask[2 * k + 1]


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def locked(cand, base, queue, tabs) -> int:
    """One pass of box-line reduction; candidates removed, or -1 on a contradiction.

    A segment is the intersection of a line and a box. A digit of a segment found nowhere else
    in its box leaves the rest of its line (pointing); one found nowhere else in its line
    leaves the rest of its box (claiming). Newly decided cells are appended to `queue` after
    `queue[0]`, whose slot holds their number.
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
        for side in range(2):
            if side == 0:
                gone = inside & ~in_box & in_line
                rest = line_rest
            else:
                gone = inside & ~in_line & in_box
                rest = box_rest
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
    umask = tabs[12]
    nunits = tabs[1].shape[0]
    for k in range(cells):
        umask[2 * k] = 0
        umask[2 * k + 1] = 0
        for i in range(3):
            u = cell_units[k, i]
            umask[2 * k + u // 64] |= 1 << (u % 64)
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


@njit(cache=True, inline="always")
def reduce_node(cand, base, open_cells, queue, tabs, full, st) -> int:
    """Box-line reduction and singles until neither changes the node; open cells, or -1."""
    while open_cells > LAST_CELLS:
        queue[0] = 0
        removed = locked(cand, base, queue, tabs)
        if removed <= 0:
            return open_cells if removed == 0 else -1
        st[LOCKED] += removed
        qlen = queue[0]
        for i in range(qlen):  # move the new singles to the front of the queue
            queue[i] = queue[i + 1]
        open_cells = settle(cand, base, queue, qlen, open_cells, tabs, full, st)
        if open_cells <= 0:
            return open_cells
    return open_cells


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def leaf_begin(cand, base, cells, tabs, room, st) -> bool:
    """Set up the enumeration of a node's completions when it has at most `LEAF` open cells
    and they cannot exceed `room`; whether it did (then `leaf_run` counts them).

    Every other cell is placed and gone from its peers, so an assignment of the open cells
    from their candidates is a solution exactly when no two open peers share a digit (a unit
    with m open cells misses m digits, and each of them holds only those): a small
    enumeration with the peers among the open cells as bitmasks, kept in `leaf` (`tabs[11]`)
    and `st[LEAF_POS]`, `st[LEAF_SIZE]` so that it can pause and resume like the search.
    """
    cell_units = tabs[2]
    leaf = tabs[11]
    m = 0
    bound = 1.0  # the product of the candidate counts: at least the completions
    for k in range(cells):
        c = cand[base + k]
        if c & (c - 1):
            leaf[m] = k
            leaf[LEAF + m] = c
            m += 1
            bound *= popcount(c)
    if bound > room:
        return False
    # leaf[2 LEAF + i]: the earlier open cells that are peers of open cell i, as a bitmask.
    for i in range(m):
        a = leaf[i]
        earlier = 0
        for j in range(i):
            b = leaf[j]
            if (
                cell_units[a, 0] == cell_units[b, 0]
                or cell_units[a, 1] == cell_units[b, 1]
                or cell_units[a, 2] == cell_units[b, 2]
            ):
                earlier |= 1 << j
        leaf[2 * LEAF + i] = earlier
    # leaf[3 LEAF + i]: the digits open cell i may still take; leaf[i] (the cells are no
    # longer needed) the digit chosen there.
    leaf[3 * LEAF] = leaf[LEAF]
    st[LEAF_POS] = 0
    st[LEAF_SIZE] = m
    return True


@njit(cache=True, inline="always")
def leaf_run(tabs, st, steps) -> int:
    """Go on with the enumeration for at most `steps` steps, counting into `st[COUNT]`; the
    steps left. It has ended when `st[LEAF_POS]` is negative."""
    leaf = tabs[11]
    m = st[LEAF_SIZE]
    pos = st[LEAF_POS]
    total = 0
    while pos >= 0 and steps > 0:
        steps -= 1
        rest = leaf[3 * LEAF + pos]
        if rest == 0:
            pos -= 1
            continue
        bit = rest & -rest
        leaf[3 * LEAF + pos] = rest ^ bit
        if pos == m - 1:
            total += 1
            continue
        leaf[pos] = bit
        pos += 1
        allowed = leaf[LEAF + pos]
        earlier = leaf[2 * LEAF + pos]
        while earlier:
            low = earlier & -earlier
            earlier ^= low
            allowed &= ~leaf[popcount(low - 1)]
        leaf[3 * LEAF + pos] = allowed
    st[COUNT] += total
    st[LEAF_POS] = pos
    return steps


@njit(cache=True)
def digits_of(cand, base, cells, out) -> None:
    """Write the digits of a solved block into `out`."""
    for k in range(cells):
        out[k] = popcount(cand[base + k] - 1) + 1


@njit(cache=True)
def search(work, table, givens, st, sols, limit, budget, drain) -> int:
    """Run (or resume) the depth-first search; FINISHED, LIMIT, PAUSED or FULL.

    `work` holds a block of candidates per level, `open_at[w]` the open cells of level w,
    `branch_at[w]` and `todo_at[w]` the cell branched on at level w and its untried digits.
    Solutions are counted in `st[COUNT]` and written as digits into the free rows of `sols`
    (`st[SAVED]` are used); when `sols` is full the search returns FULL if `drain`, else it
    goes on counting without keeping them (and may then count a node's last open cells by
    enumeration). The search stops when the count reaches `limit` and returns after `budget`
    nodes.
    """
    tabs, cand, open_at, branch_at, todo_at, queue, full = unpack(table, work)
    dirty = tabs[3]
    umask = tabs[12]
    cells = givens.shape[0]
    keep = sols.shape[0]
    spent = 0
    if st[MODE] == DONE:
        return FINISHED
    if st[MODE] == IN_LEAF:
        left = leaf_run(tabs, st, budget * LEAF_STEPS)
        if st[LEAF_POS] >= 0:
            return PAUSED
        st[MODE] = ADVANCE
        spent = budget - left // LEAF_STEPS
    if st[MODE] == START:
        st[MODE] = ADVANCE
        open0 = start(cand, queue, givens, full, tabs, st)
        if open0 < 0:
            st[MODE] = DONE
            return FINISHED
        open_at[0] = open0
        todo_at[0] = 0
        w = 0
        expand = True
    else:
        w = st[FROM] + 1
        expand = False
    while True:
        if expand:
            # Level w is settled and consistent: a solution, or reduce and branch.
            base = w * cells
            open_cells = open_at[w]
            if open_cells > LAST_CELLS:
                open_cells = reduce_node(cand, base, open_cells, queue, tabs, full, st)
                open_at[w] = open_cells
            leaf = (
                0 < open_cells <= LEAF
                and not drain
                and st[SAVED] >= keep
                and leaf_begin(cand, base, cells, tabs, limit - st[COUNT], st)
            )
            if leaf:  # the node's completions counted without descending
                st[FROM] = w - 1
                left = leaf_run(tabs, st, (budget - spent) * LEAF_STEPS)
                spent = budget - left // LEAF_STEPS
                if st[LEAF_POS] >= 0:
                    st[MODE] = IN_LEAF
                    return PAUSED
                if st[COUNT] >= limit:
                    return LIMIT
                j = w - 1
            elif open_cells == 0:
                saved = st[SAVED]
                if saved < keep:
                    digits_of(cand, base, cells, sols[saved])
                    st[SAVED] = saved + 1
                st[COUNT] += 1
                if st[COUNT] >= limit:
                    st[FROM] = w - 1
                    return LIMIT
                if drain and saved + 1 == keep:
                    st[FROM] = w - 1
                    return FULL
                j = w - 1
            elif open_cells < 0:
                st[BACKTRACKS] += 1
                j = w - 1
            else:
                k = branch_cell(cand, base, cells)
                branch_at[w] = k
                todo_at[w] = cand[base + k]
                st[GUESSES] += 1
                j = w
        else:
            j = w - 1
        # Take the next untried digit of the deepest level that has one.
        while j >= 0 and todo_at[j] == 0:
            j -= 1
        if j < 0:
            st[MODE] = DONE
            return FINISHED
        if spent >= budget:
            st[FROM] = j
            return PAUSED
        spent += 1
        st[NODES] += 1
        todo = todo_at[j]
        bit = todo & -todo
        todo ^= bit
        todo_at[j] = todo
        k = branch_at[j]
        if todo:  # more digits to try here: the child gets a copy of the block
            w = j + 1
            src = j * cells
            dst = w * cells
            for i in range(cells):
                cand[dst + i] = cand[src + i]
            if w > st[MAX_DEPTH]:
                st[MAX_DEPTH] = w
        else:  # the last digit: reuse the block
            w = j
        todo_at[w] = 0
        base = w * cells
        cand[base + k] = bit
        mark(dirty, umask, k)
        queue[0] = k
        open_at[w] = settle(cand, base, queue, 1, open_at[j], tabs, full, st)
        expand = True


@njit(cache=True)
def next_random(rng) -> int:
    """xorshift64*: the next pseudo-random non-negative int63 from the state `rng[0]`."""
    x = rng[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    rng[0] = x
    return ((x * 0x2545F4914F6CDD1D) >> 1) & 0x7FFFFFFFFFFFFFFF


@njit(cache=True, inline="always")
def place(cand, base, k, bit, open_cells, queue, tabs, full, st) -> int:
    """Put digit `bit` in cell k of a settled block and settle it fully (box-line reduction
    included); the cells left open, or -1."""
    cand[base + k] = bit
    mark(tabs[3], tabs[12], k)
    queue[0] = k
    left = settle(cand, base, queue, 1, open_cells, tabs, full, st)
    if left > LAST_CELLS:
        left = reduce_node(cand, base, left, queue, tabs, full, st)
    return left


@njit(cache=True, inline="always")
def fold(acc, x) -> None:
    """Welford's update of (count, mean, sum of squared deviations) with one more value."""
    acc[0] += 1.0
    delta = x - acc[1]
    acc[1] += delta / acc[0]
    acc[2] += delta * (x - acc[1])


@njit(cache=True)
def probes(work, table, givens, st, rng, acc, count) -> None:
    """Run `count` of Knuth's random probes and fold their estimates into `acc`.

    A probe walks from the root to a leaf. At each node it settles every digit of the branch
    cell, counts the c digits that survive propagation, multiplies its estimate by c and goes
    on with one of them drawn uniformly; a solution ends the probe with the product, a node
    with no surviving digit with 0. The mean of the products is an unbiased estimate of the
    number of solutions (Knuth 1975). `acc` holds (probes, mean, sum of squared deviations)
    as in Welford's algorithm. Level 0 is the root, level 1 the probe's node, level 2 scratch.
    """
    tabs, cand, open_at, _, _, queue, full = unpack(table, work)
    cells = givens.shape[0]
    open0 = start(cand, queue, givens, full, tabs, st)
    if open0 < 0:
        for _ in range(count):
            fold(acc, 0.0)
        return
    if open0 > LAST_CELLS:
        open0 = reduce_node(cand, 0, open0, queue, tabs, full, st)
    open_at[0] = open0
    node = cells
    scratch = 2 * cells
    for _ in range(count):
        for i in range(cells):
            cand[node + i] = cand[i]
        open_cells = open0
        estimate = 1.0
        while open_cells > 0:
            k = branch_cell(cand, node, cells)
            digits = cand[node + k]
            alive = 0
            todo = digits
            while todo:
                bit = todo & -todo
                todo ^= bit
                for i in range(cells):
                    cand[scratch + i] = cand[node + i]
                left = place(cand, scratch, k, bit, open_cells, queue, tabs, full, st)
                if left >= 0:
                    alive += 1
                else:
                    digits ^= bit
            if alive == 0:
                estimate = 0.0
                break
            estimate *= alive
            pick = next_random(rng) % alive
            while pick:
                digits &= digits - 1
                pick -= 1
            open_cells = place(cand, node, k, digits & -digits, open_cells, queue, tabs, full, st)
            st[NODES] += 1
        fold(acc, estimate)
