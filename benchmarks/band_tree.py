"""The band kernel's search tree: nodes per collection, and what a digit order can save.

Counts only (no timing), so it gives the same figures on a busy machine. Tune on the training
split, judge on the held-out one: the training set is the even lines of top1465 (0-based: the
1st, 3rd, ...), the held-out sets are top95, top1465's odd lines, the first 3,000 of 17clue and
hardest.

    python benchmarks/band_tree.py            # nodes (digits tried) and branch points
    python benchmarks/band_tree.py --orders   # and the order table below

`--orders`: at limit 1 the search stops at the first solution, so a branch point off the
solution's path is searched whole whatever the order, and one on it costs the subtree of its
wrong digit when that digit is tried first (and nothing else). Limit-1 nodes are therefore
exactly the path's branch points plus the wrong subtrees tried first; this walks each
puzzle's path with the kernel's own `branch` and `settle`, measures each wrong subtree (the
kernel's search resumed at that node's block with the wrong digit the only one left, every
node of it; this reads the search's per-level arrays at their offsets in `search`), and
prints for
each order the mean digits tried a puzzle in wrong subtrees: any rule over the two digits'
features can be scored without recompiling the kernel (the cell choice, and so the path,
held fixed).
"""

from __future__ import annotations

import argparse
import gzip
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

from sudokubench.solvers import native_band as nb
from sudokubench.solvers.native_kernel import (
    ADVANCE,
    COUNT,
    FROM,
    GUESSES,
    MODE,
    NODES,
)

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "puzzles"


def lines_of(name: str) -> list[str]:
    """The 81-character puzzles of a file of puzzles/."""
    path = PUZZLES / name
    with gzip.open(path, "rt") if name.endswith(".gz") else path.open() as fh:
        return [line.strip()[:81] for line in fh if len(line.strip()) >= 81]


def collections() -> dict[str, list[str]]:
    """The training split and the held-out sets."""
    top1465 = lines_of("top1465.txt")
    return {
        "train: top1465 even": top1465[0::2],
        "held: top95": lines_of("top95.txt"),
        "held: top1465 odd": top1465[1::2],
        "held: 17clue 3000": lines_of("17clue.txt.gz")[:3000],
        "held: hardest": lines_of("hardest.txt"),
    }


def givens_of(line: str) -> np.ndarray:
    return np.array([0 if ch in ".0" else int(ch) for ch in line], dtype=np.uint8)


class Kernel:
    """The band kernel with its arrays, run to the end (no pause)."""

    def __init__(self) -> None:
        self.work = np.zeros(nb.work_size(2), dtype=np.int64)  # the tables and 2 rows in it
        self.table = nb.band_tables()
        self.work[nb.TABLE_AT : nb.ROWS_AT].view(np.int32)[: nb.TABLE_SIZE] = self.table
        self.sols = self.work[nb.ROWS_AT :].view(np.uint8)[: 2 * 81].reshape(2, 81)

    def run(self, givens: np.ndarray, limit: int, budget: int = 10**9) -> np.ndarray:
        st = nb.state(givens.tobytes(), 2, limit, budget, False)
        nb.search(self.work, st)
        return st

    def subtree(self, row: np.ndarray, d: int) -> int:
        """The nodes of the subtree of digit d at a branch point (`row`: its block and
        cell), that child included, searched by the kernel from that block: the search
        resumed at level 0 with d the only digit left there."""
        base = nb.LEVELS * nb.BLOCK
        self.work[:30] = row[:30]
        self.work[base + nb.LEVELS] = row[30]  # branch_at[0]
        self.work[base + 2 * nb.LEVELS] = 1 << d  # todo_at[0]
        self.work[base + 3 * nb.LEVELS] = 1 << d  # first_at[0]
        st = nb.state(bytes(81), 2, 2, 10**9, False)
        st[MODE] = ADVANCE
        st[FROM] = 0
        nb.search(self.work, st)
        assert st[COUNT] == 0
        return int(st[NODES])


@njit(cache=True)
def child_open(work, t, row, d) -> int:
    """The open cells of the child of a branch point (`row`: its block and cell) with digit d,
    propagated (-1: a contradiction)."""
    for i in range(30):
        work[i] = row[i]
    k = row[30]
    b = k // 27
    dirty = nb.place(work, 0, t, d, b, 1 << (k - 27 * b), 0)
    return nb.settle(work, 0, t, dirty, np.zeros(16, dtype=np.int64))


@njit(cache=True)
def solution_path(f, t, givens, solution, out) -> int:
    """The branch points of the solution's path (the kernel's own `settle` and `branch`, the
    solution's digit placed at each): the block and the branch cell of each written to a row
    of `out` (words 0-29, 30); their number, or -1 when the path ends otherwise."""
    if not nb.start(f, t, givens):
        return -1
    open_cells = nb.settle(f, 0, t, nb.BAND, np.zeros(16, dtype=np.int64))
    n = 0
    while open_cells > 0:
        k = nb.branch(f, 0, t)
        b = k // 27
        bit = 1 << (k - 27 * b)
        for i in range(30):
            out[n, i] = f[i]
        out[n, 30] = k
        n += 1
        dirty = nb.place(f, 0, t, solution[k] - 1, b, bit, 0)
        open_cells = nb.settle(f, 0, t, dirty, np.zeros(16, dtype=np.int64))
    return n if open_cells == 0 else -1


PEERS = []
for _k in range(81):
    _r, _c = divmod(_k, 9)
    _br, _bc = _r // 3 * 3, _c // 3 * 3
    _units = (
        [9 * _r + j for j in range(9)]
        + [9 * i + _c for i in range(9)]
        + [9 * (_br + i) + _bc + j for i in range(3) for j in range(3)]
    )
    PEERS.append(sorted(set(_units) - {_k}))


class Node:
    """A branch point of a solution's path: its block, cell, digits, features."""

    def __init__(self, block: np.ndarray, k: int, right: int) -> None:
        self.f = [int(x) for x in block[:30]]
        self.k = k
        self.digits = [d for d in range(9) if self.cand(d, k)]
        self.right = self.digits.index(right) if right in self.digits else -1
        self.wrong_size = 0
        self.wide_cost = -1  # a cell of three candidates or more: its wrong subtrees' nodes
        self.opens = [0, 0]

    def cand(self, d: int, cell: int) -> int:
        return self.f[3 * d + cell // 27] >> (cell % 27) & 1

    def is_open(self, cell: int) -> int:
        return self.f[27 + cell // 27] >> (cell % 27) & 1

    def places(self, d: int) -> int:
        """`native_band.places`: d's places in the cell's row, column and box."""
        r, c = divmod(self.k, 9)
        br, bc = r // 3 * 3, c // 3 * 3
        row = sum(self.cand(d, 9 * r + j) for j in range(9))
        col = sum(self.cand(d, 9 * i + c) for i in range(9))
        box = sum(self.cand(d, 9 * (br + i) + bc + j) for i in range(3) for j in range(3))
        return row + col + box

    def total(self, d: int) -> int:
        """d's open candidates in the grid."""
        return sum(self.cand(d, x) and self.is_open(x) for x in range(81))

    def two_peers(self, d: int) -> int:
        """Two-candidate peers of the cell holding d (each placed when d is)."""
        return sum(
            1
            for x in PEERS[self.k]
            if self.is_open(x) and self.cand(d, x) and sum(self.cand(e, x) for e in range(9)) == 2
        )

    def cascade(self, d: int) -> int:
        """Cells placed by naked singles among the two-candidate cells alone when d is
        placed (-1: two of them clash)."""
        pairs = {}
        for x in range(81):
            if self.is_open(x):
                ds = [e for e in range(9) if self.cand(e, x)]
                if len(ds) == 2:
                    pairs[x] = ds
        given = {self.k: d}
        todo = [self.k]
        while todo:
            x = todo.pop()
            e = given[x]
            for y in PEERS[x]:
                if y in given:
                    if given[y] == e:
                        return -1
                    continue
                if y in pairs and e in pairs[y]:
                    given[y] = pairs[y][1] if pairs[y][0] == e else pairs[y][0]
                    todo.append(y)
        return len(given) - 1


def path_nodes(kernel: Kernel, line: str) -> list[Node]:
    """The branch points of a puzzle's solution path; of a two-candidate cell, the size of its
    wrong digit's subtree and the open cells each digit leaves after propagation."""
    givens = givens_of(line)
    st = kernel.run(givens, 1)
    assert st[COUNT] == 1, line
    solution = kernel.sols[0].copy()
    out = np.zeros((81, 32), dtype=np.int64)
    f = np.zeros(nb.BLOCK, dtype=np.int64)
    n = solution_path(f, kernel.table, givens, solution, out)
    assert n >= 0, line
    nodes = []
    for row in out[:n]:
        node = Node(row, int(row[30]), int(solution[row[30]]) - 1)
        if len(node.digits) != 2:  # rare: the digits in increasing order, as the kernel
            node.wide_cost = sum(kernel.subtree(row, d) for d in node.digits[: node.right])
        else:
            for i, d in enumerate(node.digits):
                node.opens[i] = child_open(kernel.work, kernel.table, row, d)
                if i != node.right:
                    node.wrong_size = kernel.subtree(row, d)
        nodes.append(node)
    return nodes


def by_feature(feature: Callable[[Node, int], int], more: bool) -> Callable[[Node], int]:
    """The rule trying first the digit with more (or fewer) of `feature`, else the lower."""

    def rule(node: Node) -> int:
        a, b = (feature(node, d) for d in node.digits)
        return 1 if (b > a if more else b < a) else 0

    return rule


def by_open(node: Node) -> int:
    """The digit leaving fewer open cells after propagation (a contradiction: the other
    digit), ties by places."""
    a, b = node.opens
    if a < 0 or b < 0:
        return 1 if a < 0 else 0
    if a == b:
        return by_feature(Node.places, True)(node)
    return 0 if a < b else 1


def by_cascade(node: Node) -> int:
    a, b = (node.cascade(d) for d in node.digits)
    if a < 0 or b < 0:
        return 0 if a < 0 else 1
    if a == b:
        return by_feature(Node.places, True)(node)
    return 0 if a > b else 1


ORDERS: list[tuple[str, Callable[[Node], int], int]] = [
    # (name, rule, digits tried on top of the wrong subtrees when the right digit is first)
    ("lower digit first", lambda node: 0, 0),
    ("more places in row, column, box (kept)", by_feature(Node.places, True), 0),
    ("fewer places", by_feature(Node.places, False), 0),
    ("more candidates in the grid", by_feature(Node.total, True), 0),
    ("fewer two-candidate peers holding it", by_feature(Node.two_peers, False), 0),
    ("longer naked-single chain among pairs", by_cascade, 0),
    ("fewer open cells after settle (if free)", by_open, 0),
    ("lookahead: both settled, fewer open", by_open, 1),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", action="store_true", help="also score digit orders")
    args = parser.parse_args()
    kernel = Kernel()
    sets = collections()
    print("mean a puzzle: nodes (digits tried) / branch points")
    first_nodes = {}
    for name, lines in sets.items():
        shown = []
        for limit in (1, 2):
            nodes = guesses = 0
            for line in lines:
                st = kernel.run(givens_of(line), limit)
                nodes += int(st[NODES])
                guesses += int(st[GUESSES])
            shown.append(f"limit {limit} {nodes / len(lines):6.2f} / {guesses / len(lines):5.2f}")
            if limit == 1:
                first_nodes[name] = nodes / len(lines)
        print(f"{name:20} {len(lines):5}  " + "   ".join(shown), flush=True)
    if not args.orders:
        return
    paths = {name: [path_nodes(kernel, line) for line in lines] for name, lines in sets.items()}
    print("\nlimit 1, digits tried a puzzle in wrong subtrees (+ extra settles), by order")
    print(f"{'order':42}" + "".join(f"{name.split(': ')[1]:>14}" for name in sets))
    print(
        f"{'(path branch points)':42}"
        + "".join(f"{sum(map(len, p)) / len(p):14.2f}" for p in paths.values())
    )
    print(
        f"{'(check: kernel limit-1 nodes)':42}"
        + "".join(f"{first_nodes[name]:14.2f}" for name in sets)
    )
    print(
        f"{'(= path + wrong subtrees tried first)':42}"
        + "".join(f"{path_cost(per, ORDERS[1][1]):14.2f}" for per in paths.values())
    )
    for name, per in paths.items():  # the decomposition holds for the kernel's own order
        assert abs(path_cost(per, ORDERS[1][1]) - first_nodes[name]) < 1e-9, name
    for title, rule, extra in [("oracle (the solution's digit)", None, 0), *ORDERS]:
        row = []
        for per_puzzle in paths.values():
            cost = 0
            for nodes in per_puzzle:
                for node in nodes:
                    if node.wide_cost >= 0:
                        continue
                    if rule is None or rule(node) == node.right:
                        cost += extra
                    else:
                        cost += node.wrong_size
            row.append(cost / len(per_puzzle))
        print(f"{title:42}" + "".join(f"{c:14.2f}" for c in row), flush=True)
    print(
        f"{'(wrong digit failing at once: share)':42}"
        + "".join(
            f"{sum(n.wrong_size == 1 for p in per for n in p) / sum(map(len, per)):14.2f}"
            for per in paths.values()
        )
    )
    print(
        f"{'(largest tenth of wrong subtrees: share)':42}"
        + "".join(f"{tenth(per):14.2f}" for per in paths.values())
    )


def path_cost(per_puzzle: list[list[Node]], rule: Callable[[Node], int]) -> float:
    """Limit-1 nodes a puzzle from the decomposition: each path branch point's right digit
    and the wrong subtrees tried before it (`rule` on two-candidate cells)."""
    total = 0
    for nodes in per_puzzle:
        for node in nodes:
            total += 1
            if node.wide_cost >= 0:
                total += node.wide_cost
            elif rule(node) != node.right:
                total += node.wrong_size
    return total / len(per_puzzle)


def tenth(per_puzzle: list[list[Node]]) -> float:
    """The share of the wrong subtrees' nodes in the largest tenth of them."""
    sizes = sorted(
        (n.wrong_size for nodes in per_puzzle for n in nodes if n.wide_cost < 0), reverse=True
    )
    return sum(sizes[: len(sizes) // 10]) / max(1, sum(sizes))


if __name__ == "__main__":
    main()
