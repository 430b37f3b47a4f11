"""The depth-first search of the `native` kernel: solving and counting, resumable.

Compiled by numba like `native_kernel.py`, whose propagation and layouts it uses (inlined).

- Search nodes live in one flat array, a block of `cells` entries per level of an explicit
  stack (no recursion). A branch copies its parent's block; the last alternative of a branch
  reuses the parent's block in place, as tdoku and JCZSolve do, so the stack grows only for
  real choices.
- When only counting (no grid wanted), a node with at most `LEAF` open cells counts its
  completions by a plain enumeration over those cells (`leaf_begin`, `leaf_run`: no stack
  level or propagation per solution, and paused and resumed like the search, so a large leaf
  cannot hold up the deadline). `LEAF` 12 -> 20 -> 26 made counting the 6x6 grids 1.6x, then
  1.3x faster, side by side. The enumeration stops at the limit itself, so a leaf is taken
  whatever the limit (it used to wait until its candidates' product fitted under the limit:
  `count(..., limit=10**6)` searched 11,303 nodes of the 6x6 first row where no limit took 50,
  and ran 2x slower). A leaf that has counted `MEMO_AFTER` solutions memoises the count below
  a checkpoint cell (`memo_begin`, `memo_key`, `leaf_run`): 0.32-0.37x the time of counting
  the 6x6 grids with a first row, column or box given, side by side.

The search is resumable: its whole state (levels, branch cells, untried digits, counters) is
in arrays owned by the caller, and `search` returns after `budget` nodes, so the caller can
check its deadline without a clock in the hot loop and call again. The work array has been
`native_kernel.prime`d once (its shape-only parts), so a search starts from the givens alone.
"""

from __future__ import annotations

from numba import njit

from sudokubench.solvers.native_kernel import (
    ADVANCE,
    BACKTRACKS,
    COUNT,
    DONE,
    FINISHED,
    FROM,
    FULL,
    GUESSES,
    IN_LEAF,
    LAST_CELLS,
    LEAF,
    LEAF_POS,
    LEAF_SIZE,
    LEAF_STEPS,
    LEAF_UNITS,
    LIMIT,
    M_AT,
    M_BASE,
    M_GEN,
    M_PER,
    M_SLOT,
    M_UNITS,
    M_WAKE,
    M_WORDS,
    MAX_DEPTH,
    MEMO_AFTER,
    MEMO_CELLS,
    MEMO_KEY,
    MEMO_SLOTS,
    MEMO_TABLE,
    MEMO_UNIT_LIST,
    MEMO_WORDS,
    MODE,
    NODES,
    PAUSED,
    SAVED,
    START,
    branch_cell,
    inlined,
    mark,
    popcount,
    reduce_node,
    settle,
    start,
    unpack,
    widest_cell,
)


@inlined
def leaf_begin(cand, base, cells, tabs, st) -> None:
    """Set up the enumeration of a node's completions (at most `LEAF` open cells; `leaf_run`
    counts them).

    Every other cell is placed and gone from its peers, so an assignment of the open cells
    from their candidates is a solution exactly when no two open peers share a digit (a unit
    with m open cells misses m digits, and each of them holds only those): a small
    enumeration with the peers among the open cells as bitmasks, kept in `leaf` (`tabs[11]`)
    and `st[LEAF_POS]`, `st[LEAF_SIZE]` so that it can pause and resume like the search, and
    stop at the limit like it.
    """
    cell_units = tabs[2]
    leaf = tabs[11]
    m = 0
    for k in range(cells):
        c = cand[base + k]
        if c & (c - 1):
            leaf[m] = k
            leaf[LEAF + m] = c
            m += 1
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
    # leaf[LEAF_UNITS + 3 i ...]: the units of open cell i.
    for i in range(m):
        for t in range(3):
            leaf[LEAF_UNITS + 3 * i + t] = cell_units[leaf[i], t]
    leaf[M_AT] = -1  # no memo until `MEMO_AFTER` solutions (`memo_begin`)
    leaf[M_WAKE] = st[COUNT] + MEMO_AFTER
    # leaf[3 LEAF + i]: the digits open cell i may still take; leaf[i] (the cells are no
    # longer needed) the digit chosen there.
    leaf[3 * LEAF] = leaf[LEAF]
    st[LEAF_POS] = 0
    st[LEAF_SIZE] = m


@njit(cache=True)
def memo_begin(leaf, seen, n, m) -> int:
    """Set up the memo of a leaf of `m` open cells (N digits, `seen` a scratch of 3N); its
    checkpoint, or -1 for none (its key would not fit a slot).

    Called once a leaf has counted `MEMO_AFTER` solutions: the enumeration may then be below
    the checkpoint, where no slot is filled until it next reaches it.
    """
    # The memo's checkpoint: of the open cells `MEMO_CELLS` +- 4 before the last (the nearest
    # first), the one whose cells before and from it on share the fewest units; its key, the
    # digits placed in those units (the others' hold none of the earlier cells).
    best = 3 * n + 1
    at = -1
    for t in range(9):
        here = m - MEMO_CELLS + (t + 1) // 2 * (1 if t % 2 else -1)
        if here < 1 or here > m - 2:
            continue
        for u in range(3 * n):
            seen[u] = 0
        for i in range(LEAF_UNITS, LEAF_UNITS + 3 * here):
            seen[leaf[i]] |= 1
        for i in range(LEAF_UNITS + 3 * here, LEAF_UNITS + 3 * m):
            seen[leaf[i]] |= 2
        shared = 0
        for u in range(3 * n):
            if seen[u] == 3:
                shared += 1
        if shared < best:
            best = shared
            at = here
    if at >= 1:
        for u in range(3 * n):
            seen[u] = 0
        for i in range(LEAF_UNITS, LEAF_UNITS + 3 * at):
            seen[leaf[i]] |= 1
        units = 0
        for i in range(LEAF_UNITS + 3 * at, LEAF_UNITS + 3 * m):
            u = leaf[i]
            if seen[u] == 1:
                seen[u] = 3
                leaf[MEMO_UNIT_LIST + units] = u
                units += 1
        per = 64 // n
        words = (units + per - 1) // per
        if words <= MEMO_WORDS:
            leaf[M_AT] = at
            leaf[M_UNITS] = units
            leaf[M_PER] = per
            leaf[M_WORDS] = words
            leaf[M_GEN] += 1
            leaf[M_SLOT] = -1
    return leaf[M_AT]


@inlined
def memo_key(leaf, seen, at) -> int:
    """The key of the cells from the checkpoint `at` on (the digits the cells before it placed
    in each of their units, `64 // N` units a word) into `leaf[MEMO_KEY:]`; its slot."""
    units = leaf[M_UNITS]
    for q in range(units):
        seen[leaf[MEMO_UNIT_LIST + q]] = 0
    for j in range(at):  # (units of no later cell collect digits too, unread)
        d = leaf[j]
        seen[leaf[LEAF_UNITS + 3 * j]] |= d
        seen[leaf[LEAF_UNITS + 3 * j + 1]] |= d
        seen[leaf[LEAF_UNITS + 3 * j + 2]] |= d
    per = leaf[M_PER]
    shift = 64 // per
    h = leaf[M_GEN]
    q = 0
    for w in range(leaf[M_WORDS]):
        word = 0
        for r in range(per):
            if q < units:  # (no shift of the first: 64 bits when one unit fills a word)
                value = seen[leaf[MEMO_UNIT_LIST + q]]
                word = value if r == 0 else (word << shift) | value
                q += 1
        leaf[MEMO_KEY + w] = word
        h = (h ^ word) * -7046029254386353131  # 0x9E3779B97F4A7C15 as an int64
        h ^= h >> 29
    return (h >> 7) & (MEMO_SLOTS - 1)


@inlined
def leaf_run(tabs, st, steps, limit) -> int:
    """Go on with the enumeration for at most `steps` steps, counting into `st[COUNT]` until it
    reaches `limit`; the steps left. It has ended when `st[LEAF_POS]` is negative (stopped at
    the limit, it resumes after the last solution counted).

    At the checkpoint (`leaf[M_AT]`) the cells from it on are looked up in the memo by what
    the earlier cells leave them (`memo_key`): a slot of this leaf with the same key gives
    their count at once (when it stays under the limit); else their enumeration fills the
    slot when it ends. A key holds everything the count below depends on: the candidates of
    the later cells (this leaf's) and the digits already in their units.
    """
    leaf = tabs[11]
    seen = tabs[10]
    m = st[LEAF_SIZE]
    pos = st[LEAF_POS]
    total = st[COUNT]
    at = leaf[M_AT]
    wake = leaf[M_WAKE]
    while pos >= 0 and steps > 0:
        steps -= 1
        rest = leaf[3 * LEAF + pos]
        if rest == 0:
            if pos == at and leaf[M_SLOT] >= 0:  # below the checkpoint, counted: remember it
                slot = MEMO_TABLE + leaf[M_SLOT] * (2 + MEMO_WORDS)
                leaf[slot] = leaf[M_GEN]
                leaf[slot + 1] = total - leaf[M_BASE]
                for w in range(leaf[M_WORDS]):
                    leaf[slot + 2 + w] = leaf[MEMO_KEY + w]
                leaf[M_SLOT] = -1
            pos -= 1
            continue
        bit = rest & -rest
        leaf[3 * LEAF + pos] = rest ^ bit
        if pos == m - 1:
            total += 1
            if total == wake:  # a large leaf: worth a memo
                at = memo_begin(leaf, seen, tabs[1].shape[1], m)
            if total >= limit:
                break
            continue
        leaf[pos] = bit
        pos += 1
        allowed = leaf[LEAF + pos]
        earlier = leaf[2 * LEAF + pos]
        while earlier:
            low = earlier & -earlier
            earlier ^= low
            allowed &= ~leaf[popcount(low - 1)]
        if pos == at and allowed:
            found = memo_key(leaf, seen, at)
            slot = MEMO_TABLE + found * (2 + MEMO_WORDS)
            hit = leaf[slot] == leaf[M_GEN] and total + leaf[slot + 1] < limit
            w = 0
            while hit and w < leaf[M_WORDS]:
                hit = leaf[slot + 2 + w] == leaf[MEMO_KEY + w]
                w += 1
            if hit:
                total += leaf[slot + 1]
                pos -= 1
                continue
            leaf[M_SLOT] = found
            leaf[M_BASE] = total
        leaf[3 * LEAF + pos] = allowed
    st[COUNT] = total
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
        left = leaf_run(tabs, st, budget * LEAF_STEPS, limit)
        if st[LEAF_POS] >= 0:
            return LIMIT if st[COUNT] >= limit else PAUSED
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
            if 0 < open_cells <= LEAF and not drain and st[SAVED] >= keep:
                # the node's completions counted without descending
                leaf_begin(cand, base, cells, tabs, st)
                st[FROM] = w - 1
                left = leaf_run(tabs, st, (budget - spent) * LEAF_STEPS, limit)
                spent = budget - left // LEAF_STEPS
                if st[LEAF_POS] >= 0:  # paused, or stopped at the limit
                    st[MODE] = IN_LEAF
                    return LIMIT if st[COUNT] >= limit else PAUSED
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
                if drain:
                    k = widest_cell(cand, base, cells, tabs)
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
