"""The last resort: forcing chains and nets (cell and unit forcing), then trial by search.

An *assumption* is one candidate taken as true; it is followed by rounds of singles: each
round places every naked and hidden single the previous round made. Rounds are counted, so a
conclusion has a **depth** (the rounds it needed). All assumptions advance together, one round
at a time, and the first round that proves something wins, so the step found is the shallowest
there is:

- **contradiction**: an assumption leads to a cell without candidates or a digit without a
  place in a unit: it is false.
- **cell forcing**: every candidate of one cell leads to the same placement or elimination.
- **unit forcing**: every place of a digit in one unit leads to it.

A conclusion within `CHAIN_DEPTH` rounds is a **forcing chain**; a deeper one a **forcing net**
(the branches fan out and join). Both cost more the deeper they go (`Step.extra`).

When no assumption proves anything even after its singles run out, a **trial** refutes one
candidate by search: assume it, then split on the cell with the fewest candidates, recursively,
until every branch dies. The candidate whose refutation needs the fewest nodes is removed,
and the step costs more the more nodes it took. The solution is never consulted: only
contradictions found by search count.
"""

from __future__ import annotations

from math import ceil, log2

from sudokubench.generate.techniques.board import Board, Step, bits, make_step

__all__ = ["CHAIN_DEPTH", "Branch", "find_forcing", "find_trial"]

#: Rounds of singles a forcing chain may take; deeper conclusions are forcing nets.
CHAIN_DEPTH = 4
#: Rounds after which a forcing net gives up (a whole 9x9 cascade takes far fewer).
NET_DEPTH = 30
#: Search nodes a trial may spend on one candidate.
TRIAL_BUDGET = 4000


class Branch:
    """One assumption followed round by round: candidates, placements, removals (node bits)."""

    __slots__ = ("board", "cand", "dead", "placed", "removed", "rounds", "todo", "trail", "used")
    __slots__ += ("where", "why")

    def __init__(
        self, board: Board, cand: list[int], k: int, d: int, where: list[int] | None = None
    ) -> None:
        self.board = board
        self.cand = cand[:]
        # digit -> mask of the cells still holding it (`where` if the caller has it)
        self.where = where[:] if where is not None else where_all(cand, board.n)
        self.todo = {k: d}
        self.placed = 0  # node bits: (d-1) * cells + k
        self.removed = 0
        self.dead = False
        self.why = ""
        self.rounds = 0
        self.trail: list[tuple[int, int]] = []
        self.used = [0] * (3 * board.n)  # digits placed per unit in this branch

    def advance(self) -> bool:
        """One round: place the pending singles, find the next ones; False when settled."""
        if self.dead or not self.todo:
            return False
        self.rounds += 1
        board, cand, where, used = self.board, self.cand, self.where, self.used
        cells, geo = board.shape.cells, board.geo
        peer_mask, cell_units = geo.peers, geo.units
        touched = 0
        units: set[tuple[int, int]] = set()
        for k, d in self.todo.items():
            bit = 1 << (d - 1)
            ku = cell_units[k]
            if not cand[k] & bit or used[ku[0]] & bit or used[ku[1]] & bit or used[ku[2]] & bit:
                self.die(f"{board.name(k)} = {board.sym(d)} clashes with another placement")
                return False
            others = cand[k] & ~bit
            while others:
                low = others & -others
                e = low.bit_length()
                others ^= low
                self.removed |= 1 << ((e - 1) * cells + k)
                where[e] &= ~(1 << k)
                units.update(((ku[0], e), (ku[1], e), (ku[2], e)))
            cand[k] = 0
            where[d] &= ~(1 << k)
            self.placed |= 1 << ((d - 1) * cells + k)
            self.trail.append((k, d))
            used[ku[0]] |= bit
            used[ku[1]] |= bit
            used[ku[2]] |= bit
            hit = where[d] & peer_mask[k]
            if hit:
                where[d] &= ~hit
                self.removed |= hit << ((d - 1) * cells)
                touched |= hit
                while hit:
                    low = hit & -hit
                    p = low.bit_length() - 1
                    hit ^= low
                    cand[p] &= ~bit
                    pu = cell_units[p]
                    units.update(((pu[0], d), (pu[1], d), (pu[2], d)))
        for k in self.todo:
            touched &= ~(1 << k)
        self.todo = self._singles(touched, units)
        return not self.dead

    def die(self, why: str) -> None:
        """The branch reached a contradiction, and why."""
        self.dead = True
        self.why = why

    def _singles(self, touched: int, units: set[tuple[int, int]]) -> dict[int, int]:
        cand, where, used = self.cand, self.where, self.used
        unit_mask = self.board.geo.unit_mask
        todo: dict[int, int] = {}
        while touched:
            low = touched & -touched
            p = low.bit_length() - 1
            touched ^= low
            mask = cand[p]
            if not mask:
                self.die(f"{self.board.name(p)} has no candidate left")
                return {}
            if not mask & (mask - 1):
                todo[p] = mask.bit_length()
        for u, d in units:
            if used[u] >> (d - 1) & 1:
                continue
            places = where[d] & unit_mask[u]
            if not places:
                board = self.board
                self.die(f"{board.sym(d)} has no place left in {board.shape.unit_name(u)}")
                return {}
            if not places & (places - 1):
                k = places.bit_length() - 1
                if todo.get(k, d) != d:
                    self.die(f"{self.board.name(k)} would need two digits")
                    return {}
                todo[k] = d
        return todo


def where_all(cand: list[int], n: int) -> list[int]:
    """Digit d -> mask of the cells where d is a candidate (index 0 unused)."""
    where = [0] * (n + 1)
    for p, mask in enumerate(cand):
        while mask:
            low = mask & -mask
            where[low.bit_length()] |= 1 << p
            mask ^= low
    return where


def _seeds(board: Board) -> list[tuple[str, int, int, list[tuple[int, int]]]]:
    """(kind, cell or unit, digit, assumptions): every cell, then every unit, with 2-3 options."""
    seeds = []
    for k, mask in enumerate(board.cand):
        if 2 <= mask.bit_count() <= 3:
            seeds.append(("cell", k, 0, [(k, d) for d in bits(mask)]))
    for u, unit in enumerate(board.shape.units):
        for d in range(1, board.n + 1):
            places = board.places(unit, d)
            if 2 <= len(places) <= 3:
                seeds.append(("unit", u, d, [(k, d) for k in places]))
    return seeds


def find_forcing(board: Board) -> Step | None:
    """The shallowest contradiction, cell forcing or unit forcing, by rounds of singles."""
    where = where_all(board.cand, board.n)
    branches = {
        (k, d): Branch(board, board.cand, k, d, where)
        for k, m in enumerate(board.cand)
        for d in bits(m)
    }
    seeds = _seeds(board)
    for depth in range(1, NET_DEPTH + 1):
        moving = [b.advance() for b in branches.values()]
        step = _conclusion(board, branches, seeds, depth)
        if step is not None or not any(moving):
            return step
    return None


def _conclusion(board: Board, branches, seeds, depth: int) -> Step | None:
    key = "forcing_chain" if depth <= CHAIN_DEPTH else "forcing_net"
    title = key.replace("_", " ")
    extra = 40 * (depth - 1)
    for (k, d), branch in branches.items():
        if branch.dead:
            text = (
                f"{title} (contradiction, {depth} rounds): {board.name(k)} = {board.sym(d)} "
                f"leads to {_trail(board, branch)}, and then {branch.why}, so "
                f"{board.removals([(k, d)])}"
            )
            return make_step(key, (k,), (d,), [(k, d)], text, extra)
    cells = board.shape.cells
    for kind, where, d, options in seeds:
        group = [branches[a] for a in options]
        placed = removed = -1
        for b in group:
            placed &= b.placed
            removed &= b.removed
        if not (placed or removed):
            continue
        node = (placed or removed) & -(placed or removed)
        e, k = divmod(node.bit_length() - 1, cells)
        what = "places" if placed else "removes"
        if kind == "cell":
            premise = f"cell forcing on {board.cand_text(where)}"
        else:
            premise = f"unit forcing on {board.sym(d)} in {board.shape.unit_name(where)}"
        paths = "; ".join(
            f"if {board.name(a)} = {board.sym(x)}: {_trail(board, b)}"
            for (a, x), b in zip(options, group, strict=True)
        )
        text = (
            f"{title} ({premise}, {depth} rounds): {paths}; every case {what} "
            f"{board.sym(e + 1)} {'in' if placed else 'from'} {board.name(k)}"
        )
        cells_used = [a for a, _ in options]
        if placed:
            return Step(key, tuple(cells_used), (e + 1,), (k, e + 1), (), text, extra)
        return make_step(key, cells_used, [e + 1], [(k, e + 1)], text, extra)
    return None


def _trail(board: Board, branch: Branch, limit: int = 6) -> str:
    shown = [f"{board.name(k)}={board.sym(d)}" for k, d in branch.trail[1 : limit + 1]]
    if len(branch.trail) > limit + 1:
        shown.append(f"... ({len(branch.trail) - 1} placements)")
    return ", ".join(shown) if shown else "nothing more"


def _refute(board: Board, cand: list[int], k: int, d: int, budget: int) -> int | None:
    """Search nodes to show that k = d has no solution (None if it has one, or over budget)."""
    stack = [(cand, where_all(cand, board.n), k, d)]
    nodes = 0
    while stack:
        state, where, k, d = stack.pop()
        nodes += 1
        if nodes > budget:
            return None
        branch = Branch(board, state, k, d, where)
        while branch.advance():
            pass
        if branch.dead:
            continue
        open_cells = [(m.bit_count(), p) for p, m in enumerate(branch.cand) if m]
        if not open_cells:
            return None  # a solution: not refuted
        _, p = min(open_cells)
        stack.extend((branch.cand, branch.where, p, e) for e in bits(branch.cand[p]))
    return nodes


def find_trial(board: Board) -> Step | None:
    """Remove the candidate whose refutation by search is smallest (cells with fewest first)."""
    order = sorted((m.bit_count(), k) for k, m in enumerate(board.cand) if m.bit_count() >= 2)
    best: tuple[int, int, int] | None = None
    for _, k in order[:12]:
        for d in bits(board.cand[k]):
            budget = TRIAL_BUDGET if best is None else best[0] - 1
            nodes = _refute(board, board.cand, k, d, budget)
            if nodes is not None and (best is None or nodes < best[0]):
                best = (nodes, k, d)
        if best is not None and best[0] <= 2:
            break
    if best is None:  # every candidate of the first cells took long: search one to the end
        k = order[0][1]
        for d in bits(board.cand[k]):
            nodes = _refute(board, board.cand, k, d, 1 << 40)
            if nodes is not None:
                best = (nodes, k, d)
                break
    if best is None:
        return None
    nodes, k, d = best
    text = (
        f"trial: nothing simpler applies; assuming {board.name(k)} = {board.sym(d)} and "
        f"splitting on the cell with fewest candidates, all {nodes} branches of the search end "
        f"in a contradiction, so {board.removals([(k, d)])}"
    )
    return make_step("trial", (k,), (d,), [(k, d)], text, 100 * ceil(log2(nodes + 1)))
