"""The 9x9 kernel of the `native` backend: per-digit bands of 27 bits, compiled by numba.

The general kernel (`native_kernel.py`, `native_search.py`) walks peer and segment tables cell
by cell, the same code for every shape. On 9x9 this one does a band's work in a few integer
operations, the idea of the band-wise solvers (JCZSolve, fsss2), written anew for numba:

- State: for each digit d and band b (three rows), `F[3d + b]`, the 27 cells of the band
  where d is still a candidate (bit 9r + c: row r of the band, column c); and `F[27 + b]`,
  the band's cells not yet placed. A level of the search is a block of `BLOCK` int64 words.
  Cell 27b + p of the grid (row-major) is bit p of band b.
- A digit's update (`digit`): its three bands' triads (row of the band x box: 9 bits) are
  reduced to the union of the permutations they hold (a band's digit takes one triad in each
  row and each box; table `SHRINK`): pointing and claiming inside the band in one lookup, and
  a contradiction when none is left. Across the bands, through the bands' column projections:
  a box whose digit lies in one column takes that column from the other bands (pointing down
  a stack), a column left to one band keeps that band's box to it (claiming), a column with
  no place is a contradiction. Then its singles: a row, box or column of the digit with one
  cell left places the digit there (hidden singles, and the cells already placed).
- Naked singles per band from "seen once / seen twice" over the nine digits; a cell with no
  candidate is a contradiction.
- Placing digit d at a cell (`place`) clears the cell in the other digits and the cell's row,
  box (`ROWBOX`) and column (`COLS`) in d; every digit touched is marked for an update (a
  9-bit set). Propagation runs the updates and the naked singles to a fixpoint (`settle`).
- Branching on a cell with two candidates when there is one (else the fewest), digits in
  increasing order, on an explicit stack of blocks; the last digit of a cell reuses the
  parent's block. Resumable every `budget` nodes like the general kernel's search (same
  state array, return codes and counters), so the deadline stays cooperative.

A full grid is a solution: each placement removed the digit from the cell's peers, and a cell
is only placed with a digit it still holds.

numba's cache checks `search` against this file only: the constants imported from
`native_kernel.py` (the state layout, return codes) are compiled in, so after changing them
clear the cache as that module's docstring says.
"""

from __future__ import annotations

import numpy as np
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
    HIDDEN,
    LIMIT,
    LOCKED,
    MAX_DEPTH,
    MODE,
    NODES,
    PAUSED,
    SAVED,
    START,
    inlined,
)

#: int64 words a level of the stack takes: 27 digit-bands, 3 masks of unplaced cells, spare.
BLOCK = 32
#: Stack levels: one per placed guess at most, and the root.
LEVELS = 82
BAND = (1 << 27) - 1

# Offsets of the tables in the flat `table` array (`band_tables`).
T_TRIADS = 0  # 512: a row's 9 bits -> its three triads present (3 bits)
T_SHRINK = 512  # 512: a band's 9 triads -> the union of the permutations they hold
T_TCELLS = 1024  # 512: 9 triads -> their cells (27 bits)
T_COLS = 1536  # 512: 9 columns -> their cells in a band (27 bits)
T_ROWBOX = 2048  # 27: a cell's row and box in its band, itself excluded
T_BOX = 2075  # 3: the cells of box k of a band
T_LOCK = 2078  # 512: a band's columns -> those alone in their box (a box in one column)
T_CLAIM = 2590  # 512: columns alone in a band -> the cells of their boxes off them (| BAD)
T_FORCED = 3102  # 512: 9 triads -> those alone in their row or their box
T_SOLO = 3614  # 512: a row's 9 bits -> its 3-bit groups with exactly one bit
T_SPREAD = 4126  # 512: a row's 9 bits -> one 4-bit counter per column (bit c -> 1 << 4c)
TABLE_SIZE = 4638
#: The flag of `T_CLAIM` for two columns of one box left to one band: a contradiction.
BAD = 1 << 40


def band_tables() -> np.ndarray:
    """The band kernel's lookup tables as one flat int64 array (offsets `T_*`)."""
    t = np.zeros(TABLE_SIZE, dtype=np.int64)
    for v in range(512):
        t[T_TRIADS + v] = sum(1 << k for k in range(3) if v & (7 << 3 * k))
        t[T_COLS + v] = v | v << 9 | v << 18
    for k in range(3):
        t[T_BOX + k] = 7 << 3 * k | 7 << (9 + 3 * k) | 7 << (18 + 3 * k)
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for tri in range(512):
        keep = 0
        for p in perms:
            bits = sum(1 << (3 * r + p[r]) for r in range(3))
            if tri & bits == bits:
                keep |= bits
        t[T_SHRINK + tri] = keep
        t[T_TCELLS + tri] = sum(7 << (9 * (i // 3) + 3 * (i % 3)) for i in range(9) if tri >> i & 1)
    for v in range(512):
        groups = [(v >> 3 * k) & 7 for k in range(3)]
        t[T_LOCK + v] = sum(g << 3 * k for k, g in enumerate(groups) if g & (g - 1) == 0)
        t[T_SOLO + v] = t[T_LOCK + v]  # (the same rule on a row's three triads)
        claim = 0
        for k, g in enumerate(groups):
            if g & (g - 1):
                claim |= BAD
            elif g:
                claim |= int(t[T_BOX + k]) & ~int(t[T_COLS + (g << 3 * k)])
        t[T_CLAIM + v] = claim
        forced = 0
        for i in range(9):
            r, k = divmod(i, 3)
            row = (v >> 3 * r) & 7
            box = (v >> k) & 0b1001001
            if v >> i & 1 and (row & (row - 1) == 0 or box & (box - 1) == 0):
                forced |= 1 << i
        t[T_FORCED + v] = forced
        t[T_SPREAD + v] = sum(1 << 4 * c for c in range(9) if v >> c & 1)
    for p in range(27):
        r, c = divmod(p, 9)
        row = 511 << 9 * r
        box = int(t[T_BOX + c // 3])
        t[T_ROWBOX + p] = (row | box) & ~(1 << p)
    return t


@inlined
def low_index(bit: int) -> int:
    """The index of the single set bit of `bit` (below 2**27)."""
    m = bit - 1
    m = m - ((m >> 1) & 0x55555555)
    m = (m & 0x33333333) + ((m >> 2) & 0x33333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F
    return (m * 0x01010101 & 0xFFFFFFFF) >> 24


@inlined
def bits27(m: int) -> int:
    """The number of set bits of `m` (below 2**32)."""
    m = m - ((m >> 1) & 0x55555555)
    m = (m & 0x33333333) + ((m >> 2) & 0x33333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F
    return (m * 0x01010101 & 0xFFFFFFFF) >> 24


@inlined
def place(f, o, t, d, b, bit, dirty) -> int:
    """Place digit d at cell `bit` of band b (block at offset o); the updated dirty set."""
    nbit = ~bit
    for e in range(9):
        i = o + 3 * e + b
        m = f[i]
        if m & bit and e != d:
            f[i] = m & nbit
            dirty |= 1 << (3 * e + b)
    p = low_index(bit)
    f[o + 3 * d + b] &= ~t[T_ROWBOX + p]
    col = ~t[T_COLS + (1 << (p % 9))]
    for ob in range(3):
        if ob != b:
            f[o + 3 * d + ob] &= col
    f[o + 27 + b] &= nbit
    return dirty | (7 << 3 * d)


@inlined
def digit(f, o, t, d, bands, st) -> int:
    """The update of digit d whose bands in the 3-bit set `bands` changed (module docstring):
    -1 on a contradiction, else the digit-bands to update again (a set of bits 3d + b)."""
    base = o + 3 * d
    x0 = f[base]
    x1 = f[base + 1]
    x2 = f[base + 2]
    # Triads of the changed bands, reduced to the permutations they hold.
    if bands & 1:
        tri = t[T_TRIADS + (x0 & 511)] | t[T_TRIADS + ((x0 >> 9) & 511)] << 3
        tri |= t[T_TRIADS + (x0 >> 18)] << 6
        s = t[T_SHRINK + tri]
        if s == 0:
            return -1
        x0 &= t[T_TCELLS + s]
    if bands & 2:
        tri = t[T_TRIADS + (x1 & 511)] | t[T_TRIADS + ((x1 >> 9) & 511)] << 3
        tri |= t[T_TRIADS + (x1 >> 18)] << 6
        s = t[T_SHRINK + tri]
        if s == 0:
            return -1
        x1 &= t[T_TCELLS + s]
    if bands & 4:
        tri = t[T_TRIADS + (x2 & 511)] | t[T_TRIADS + ((x2 >> 9) & 511)] << 3
        tri |= t[T_TRIADS + (x2 >> 18)] << 6
        s = t[T_SHRINK + tri]
        if s == 0:
            return -1
        x2 &= t[T_TCELLS + s]
    # Columns across the bands.
    p0 = (x0 | x0 >> 9 | x0 >> 18) & 511
    p1 = (x1 | x1 >> 9 | x1 >> 18) & 511
    p2 = (x2 | x2 >> 9 | x2 >> 18) & 511
    if p0 | p1 | p2 != 511:
        return -1
    # A box whose digit lies in one column takes it from the other bands (pointing down).
    lock0 = t[T_LOCK + p0]
    lock1 = t[T_LOCK + p1]
    lock2 = t[T_LOCK + p2]
    again = 0
    if (lock0 & (p1 | p2)) | (lock1 & (p0 | p2)) | (lock2 & (p0 | p1)):
        x0 &= ~t[T_COLS + (lock1 | lock2)]
        x1 &= ~t[T_COLS + (lock0 | lock2)]
        x2 &= ~t[T_COLS + (lock0 | lock1)]
        again = 7
        p0 = (x0 | x0 >> 9 | x0 >> 18) & 511
        p1 = (x1 | x1 >> 9 | x1 >> 18) & 511
        p2 = (x2 | x2 >> 9 | x2 >> 18) & 511
        if p0 | p1 | p2 != 511:
            return -1
    # A column left to one band keeps that band's box to it (claiming).
    c0 = t[T_CLAIM + (p0 & ~(p1 | p2))]
    c1 = t[T_CLAIM + (p1 & ~(p0 | p2))]
    c2 = t[T_CLAIM + (p2 & ~(p0 | p1))]
    if (c0 | c1 | c2) & BAD:
        return -1
    if (x0 & c0) | (x1 & c1) | (x2 & c2):
        again |= (1 if x0 & c0 else 0) | (2 if x1 & c1 else 0) | (4 if x2 & c2 else 0)
        x0 &= ~c0
        x1 &= ~c1
        x2 &= ~c2
    if x0 != f[base] or x1 != f[base + 1] or x2 != f[base + 2]:
        st[LOCKED] += bits27(f[base] ^ x0) + bits27(f[base + 1] ^ x1) + bits27(f[base + 2] ^ x2)
    f[base] = x0
    f[base + 1] = x1
    f[base + 2] = x2
    # Singles: a column's one cell; a row's or a box's (its only triad, with one cell).
    once = x0 & 511
    v = (x0 >> 9) & 511
    twice = once & v
    once |= v
    v = x0 >> 18
    twice |= once & v
    once |= v
    v = x1 & 511
    twice |= once & v
    once |= v
    v = (x1 >> 9) & 511
    twice |= once & v
    once |= v
    v = x1 >> 18
    twice |= once & v
    once |= v
    v = x2 & 511
    twice |= once & v
    once |= v
    v = (x2 >> 9) & 511
    twice |= once & v
    once |= v
    v = x2 >> 18
    twice |= once & v
    once |= v
    colone = t[T_COLS + (once & ~twice)]
    dirty = again << 3 * d
    rowbox = bands | again  # the bands whose rows and boxes may hold new singles
    for b in range(3):
        x = f[base + b]
        solo = x & colone
        if rowbox >> b & 1:
            lo = x & 511
            mid = (x >> 9) & 511
            hi = x >> 18
            tri = t[T_TRIADS + lo] | t[T_TRIADS + mid] << 3 | t[T_TRIADS + hi] << 6
            one = t[T_SOLO + lo] | t[T_SOLO + mid] << 9 | t[T_SOLO + hi] << 18
            solo |= x & one & t[T_TCELLS + t[T_FORCED + tri]]
        solo &= f[o + 27 + b]
        while solo:
            bit = solo & -solo
            solo ^= bit
            if f[base + b] & bit:
                st[HIDDEN] += 1
                dirty = place(f, o, t, d, b, bit, dirty)
            # else: placed in this loop in a peer; the next update finds the contradiction
    return dirty


@inlined
def settle(f, o, t, dirty, st) -> int:
    """Digit updates and naked singles to a fixpoint; the open cells, or -1."""
    while True:
        while dirty:
            d = low_index(dirty & -dirty) // 3
            bands = (dirty >> 3 * d) & 7
            dirty ^= bands << 3 * d
            more = digit(f, o, t, d, bands, st)
            if more < 0:
                return -1
            dirty |= more
        placed = False
        for b in range(3):
            unplaced = f[o + 27 + b]
            if unplaced == 0:
                continue
            once = 0
            twice = 0
            for d in range(9):
                m = f[o + 3 * d + b]
                twice |= once & m
                once |= m
            if once != BAND:
                return -1
            single = unplaced & ~twice
            while single:
                bit = single & -single
                single ^= bit
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        dirty = place(f, o, t, d, b, bit, dirty)
                        placed = True
                        break
        if not placed:
            return bits27(f[o + 27]) + bits27(f[o + 28]) + bits27(f[o + 29])


@inlined
def branch(f, o, t) -> int:
    """The cell to branch on (27b + p): among the cells with two candidates (else with the
    fewest), the one whose row, column and box have the most open cells."""
    best = -1
    fewest = 10
    score = -1
    colpack = 0  # the open cells of each column, 4 bits a column
    for b in range(3):
        u = f[o + 27 + b]
        colpack += t[T_SPREAD + (u & 511)] + t[T_SPREAD + ((u >> 9) & 511)]
        colpack += t[T_SPREAD + (u >> 18)]
    for b in range(3):
        unplaced = f[o + 27 + b]
        if unplaced == 0:
            continue
        once = 0
        twice = 0
        thrice = 0
        for d in range(9):
            m = f[o + 3 * d + b]
            thrice |= twice & m
            twice |= once & m
            once |= m
        two = unplaced & ~thrice
        if two:
            if fewest > 2:
                fewest = 2
                score = -1
            while two:
                bit = two & -two
                two ^= bit
                p = low_index(bit)
                here = bits27(unplaced & t[T_ROWBOX + p]) + ((colpack >> 4 * (p % 9)) & 15)
                if here > score:
                    score = here
                    best = 27 * b + p
        elif fewest > 2:
            while unplaced:
                bit = unplaced & -unplaced
                unplaced ^= bit
                c = 0
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        c += 1
                if c < fewest:
                    fewest = c
                    best = 27 * b + low_index(bit)
    return best


@njit(cache=True)
def digits_of(f, o, out) -> None:
    """Write the digits of a solved block into `out` (row-major cells)."""
    for d in range(9):
        for b in range(3):
            x = f[o + 3 * d + b]
            while x:
                bit = x & -x
                x ^= bit
                out[27 * b + low_index(bit)] = d + 1


@njit(cache=True)
def start(f, t, givens) -> bool:
    """Level 0 from the givens, each placed (not yet propagated); False when two conflict.

    A function of its own, called once a search: inlining it would compile `place` once more.
    """
    for i in range(27):
        f[i] = BAND
    for b in range(3):
        f[27 + b] = BAND
    for k in range(81):
        g = givens[k]
        if g:
            b = k // 27
            bit = 1 << (k - 27 * b)
            if f[3 * (g - 1) + b] & bit == 0:
                return False
            place(f, 0, t, g - 1, b, bit, 0)
    return True


@njit(cache=True)
def search(work, table, givens, st, sols, limit, budget, drain) -> int:
    """Run (or resume) the search of a 9x9 puzzle; FINISHED, LIMIT, PAUSED or FULL.

    The contract of `native_search.search` (the same arguments, state and return codes), on
    this module's layout: `work` holds `LEVELS` blocks, then the open cells, branch cells and
    untried digits of each level; `table` is `band_tables()`.
    """
    f = work
    t = table
    open_at = work[LEVELS * BLOCK : LEVELS * BLOCK + LEVELS]
    branch_at = work[LEVELS * BLOCK + LEVELS : LEVELS * BLOCK + 2 * LEVELS]
    todo_at = work[LEVELS * BLOCK + 2 * LEVELS : LEVELS * BLOCK + 3 * LEVELS]
    keep = sols.shape[0]
    spent = 0
    if st[MODE] == DONE:
        return FINISHED
    if st[MODE] == START:
        st[MODE] = ADVANCE
        open0 = settle(f, 0, t, BAND, st) if start(f, t, givens) else -1
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
            o = w * BLOCK
            open_cells = open_at[w]
            if open_cells == 0:
                saved = st[SAVED]
                if saved < keep:
                    digits_of(f, o, sols[saved])
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
                k = branch(f, o, t)
                b = k // 27
                bit = 1 << (k - 27 * b)
                todo = 0
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        todo |= 1 << d
                branch_at[w] = k
                todo_at[w] = todo
                st[GUESSES] += 1
                j = w
        else:
            j = w - 1
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
        low = todo & -todo
        todo ^= low
        todo_at[j] = todo
        k = branch_at[j]
        if todo:  # more digits to try here: the child gets a copy of the block
            w = j + 1
            src = j * BLOCK
            dst = w * BLOCK
            for i in range(30):
                f[dst + i] = f[src + i]
            if w > st[MAX_DEPTH]:
                st[MAX_DEPTH] = w
        else:  # the last digit: reuse the block
            w = j
        todo_at[w] = 0
        o = w * BLOCK
        b = k // 27
        bit = 1 << (k - 27 * b)
        dirty = place(f, o, t, low_index(low), b, bit, 0)
        open_at[w] = settle(f, o, t, dirty, st)
        expand = True


#: The size of the band kernel's work array (int64 words).
WORK_SIZE = LEVELS * BLOCK + 3 * LEVELS
