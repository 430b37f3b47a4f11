"""Knuth's estimator of the number of solutions, compiled with the `native` kernel.

Random probes from the root to a leaf (`probes`), each settling its node with the kernel's
propagation (`native_kernel.py`, inlined), a xorshift64* generator (`next_random`) whose state
the caller owns, and Welford's running mean and variance of the probes' products (`fold`).
The caller's work array has been `native_kernel.prime`d (its shape-only parts filled once).
"""

from __future__ import annotations

from numba import njit

from sudokubench.solvers.native_kernel import (
    LAST_CELLS,
    NODES,
    branch_cell,
    inlined,
    mark,
    reduce_node,
    settle,
    start,
    unpack,
)


@njit(cache=True)
def next_random(rng) -> int:
    """xorshift64*: the next pseudo-random non-negative int63 from the state `rng[0]`."""
    x = rng[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    rng[0] = x
    return ((x * 0x2545F4914F6CDD1D) >> 1) & 0x7FFFFFFFFFFFFFFF


@inlined
def place(cand, base, k, bit, open_cells, queue, tabs, full, st) -> int:
    """Put digit `bit` in cell k of a settled block and settle it fully (box-line reduction
    included); the cells left open, or -1. Compiled once and inlined by LLVM at both of its
    calls in `probes` (`inlined`); numba's own inlining, which compiles a helper again at each
    call, made it a call to keep the first compilation short. Inlined, the estimator ran
    0.94-0.96x the time of the call's (side by side, load 6)."""
    cand[base + k] = bit
    mark(tabs[3], tabs[12], k)
    queue[0] = k
    left = settle(cand, base, queue, 1, open_cells, tabs, full, st)
    if left > LAST_CELLS:
        left = reduce_node(cand, base, left, queue, tabs, full, st)
    return left


@inlined
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
