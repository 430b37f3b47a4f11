"""Chains of alternating inference: X-chains, XY-chains and AICs (with discontinuous nice loops).

A candidate is a *node* (cell k, digit d). A **strong link** joins two nodes of which at least
one is true: the two candidates of a cell with two, or the two places of a digit in a unit
with two. A **weak link** joins two nodes that cannot both be true: two candidates of a cell,
or one digit in two cells that see each other. A chain that starts with a strong link from
node s and alternates (strong, weak, strong, ...) up to a strong link into node t proves
"s or t": if s is false, every strong link in turn forces its far end true, up to t. A
candidate weakly linked to both s and t is therefore false.

- **X-chain**: one digit; strong links are conjugate pairs, weak links cells seeing each other.
- **XY-chain**: strong links inside cells with two candidates, weak links on one digit between
  cells that see each other (so it runs from cell to cell).
- **AIC** (alternating inference chain): both kinds of link. When the chain comes back to its
  own start cell it is a discontinuous **nice loop** and says so.

The search is breadth first over nodes as bit sets (node (k, d) is bit (d-1)*cells + k), from
every start, keeping the shortest chain that removes something; `MAX_LINKS` bounds it.
"""

from __future__ import annotations

from sudokubench.generate.techniques.board import Board, Step, make_step
from sudokubench.generate.techniques.board import cells_of as _set_bits  # node masks too

__all__ = ["MAX_LINKS", "Links", "find_aic", "find_x_chain", "find_xy_chain"]

#: The longest chain searched (links).
MAX_LINKS = 15


class Links:
    """The strong and weak links of a board, as node bit sets, for one kind of chain."""

    def __init__(self, board: Board, use_cells: bool, use_units: bool, weak_cells: bool) -> None:
        self.board = board
        n, cells = board.n, board.shape.cells
        self.cells = cells
        geo, cand = board.geo, board.cand
        self.strong: dict[int, int] = {}
        if use_cells:
            for k, mask in enumerate(cand):
                if mask.bit_count() == 2:
                    x, y = (d for d in range(1, n + 1) if mask >> (d - 1) & 1)
                    self._join((x - 1) * cells + k, (y - 1) * cells + k)
        if use_units:
            for d in range(1, n + 1):
                where = board.where(d)
                for unit in geo.unit_mask:
                    places = where & unit
                    if places.bit_count() == 2:
                        a, b = _set_bits(places)
                        self._join((d - 1) * cells + a, (d - 1) * cells + b)
        self.weak_cells = weak_cells
        self.has_strong = sum(1 << v for v in self.strong)
        self._weak: dict[int, int] = {}
        self._weak_all: dict[int, int] = {}
        self._step: dict[int, int] = {}

    def _join(self, a: int, b: int) -> None:
        self.strong[a] = self.strong.get(a, 0) | 1 << b
        self.strong[b] = self.strong.get(b, 0) | 1 << a

    def node(self, v: int) -> tuple[int, int]:
        """(cell, digit) of node v."""
        d, k = divmod(v, self.cells)
        return k, d + 1

    def weak_all(self, v: int) -> int:
        """Every node weakly linked to v (same cell, or same digit in a peer cell)."""
        found = self._weak_all.get(v)
        if found is None:
            k, d = self.node(v)
            board, cells = self.board, self.cells
            found = (board.where(d) & board.geo.peers[k]) << ((d - 1) * cells)
            others = board.cand[k] & ~(1 << (d - 1))
            while others:
                low = others & -others
                found |= 1 << ((low.bit_length() - 1) * cells + k)
                others ^= low
            self._weak_all[v] = found
        return found

    def weak(self, v: int) -> int:
        """The weak links the chain may follow from v."""
        if self.weak_cells:
            return self.weak_all(v)
        k, d = self.node(v)
        board = self.board
        return (board.where(d) & board.geo.peers[k]) << ((d - 1) * self.cells)

    def step(self, v: int) -> int:
        """Nodes reached from v (true) by a weak link then a strong link: they are true."""
        found = self._step.get(v)
        if found is None:
            found = 0
            for u in _set_bits(self.weak(v) & self.has_strong):
                found |= self.strong[u]
            self._step[v] = found
        return found

    def shortest(self, max_links: int) -> tuple[int, int, int, int] | None:
        """(links, start, end, eliminated node mask) of the shortest useful chain."""
        best: tuple[int, int, int, int] | None = None
        for s in sorted(self.strong):
            weak_s = self.weak_all(s)
            frontier = seen = self.strong[s]
            links = 1
            while frontier and links <= max_links and (best is None or links < best[0]):
                for t in _set_bits(frontier):
                    if links < 3 and t != s:
                        continue  # a single strong link removes nothing new
                    gone = weak_s & self.weak_all(t) & ~(1 << s | 1 << t)
                    if gone:
                        best = (links, s, t, gone)
                        break
                else:
                    nxt = 0
                    for t in _set_bits(frontier):
                        nxt |= self.step(t)
                    frontier = nxt & ~seen
                    seen |= frontier
                    links += 2
                    continue
                break
        return best

    def path(self, s: int, t: int) -> list[int]:
        """Nodes of a shortest chain s = v1 - u1 = v2 ... = t (alternating strong, weak)."""
        parent: dict[int, tuple[int, int]] = {}
        frontier = _set_bits(self.strong[s])
        reached = set(frontier)
        while t not in reached:
            nxt = []
            for v in frontier:
                for u in _set_bits(self.weak(v) & self.has_strong):
                    for w in _set_bits(self.strong[u]):
                        if w not in reached:
                            reached.add(w)
                            parent[w] = (v, u)
                            nxt.append(w)
            frontier = nxt
        chain = [t]
        while chain[-1] in parent:
            v, u = parent[chain[-1]]
            chain += [u, v]
        return [s, *chain[::-1]]


def chain_text(board: Board, links: Links, chain: list[int]) -> str:
    """`r1c2(4) = r1c7(4) - r3c9(4) = r3c1(4)`: strong links `=`, weak links `-`."""
    parts = []
    for i, v in enumerate(chain):
        k, d = links.node(v)
        if i:
            parts.append("=" if i % 2 else "-")
        parts.append(f"{board.name(k)}({board.sym(d)})")
    return " ".join(parts)


def _find_chain(board: Board, key: str, title: str, links: Links) -> Step | None:
    found = links.shortest(MAX_LINKS)
    if found is None:
        return None
    _, s, t, gone = found
    chain = links.path(s, t)
    elims = [links.node(v) for v in _set_bits(gone)]
    (ks, ds), (kt, dt) = links.node(s), links.node(t)
    if ks == kt:
        title = "nice loop" if key == "aic" else title
        ends = f"it starts and ends at {board.name(ks)}, so {board.name(ks)} is {board.sym(ds)}"
        if s != t:
            ends = f"{board.name(ks)} is {board.sym(ds)} or {board.sym(dt)}"
    else:
        ends = f"{board.name(ks)} is {board.sym(ds)} or {board.name(kt)} is {board.sym(dt)}"
    text = f"{title}: {chain_text(board, links, chain)}; {ends}, so {board.removals(elims)}"
    cells = [links.node(v)[0] for v in chain]
    digits = sorted({links.node(v)[1] for v in chain})
    return make_step(key, list(dict.fromkeys(cells)), digits, elims, text)


def find_x_chain(board: Board) -> Step | None:
    """One digit: conjugate pairs joined by cells that see each other."""
    return _find_chain(board, "x_chain", "X-chain", Links(board, False, True, False))


def find_xy_chain(board: Board) -> Step | None:
    """Cells with two candidates, joined by one digit between cells that see each other."""
    return _find_chain(board, "xy_chain", "XY-chain", Links(board, True, False, False))


def find_aic(board: Board) -> Step | None:
    """Any alternating chain of strong and weak links (and discontinuous nice loops)."""
    return _find_chain(board, "aic", "AIC", Links(board, True, True, True))
