"""Almost locked sets: N cells of one unit with N+1 candidates between them (an ALS).

Take one candidate out of an ALS and the rest is locked: the N cells hold exactly the other N
digits. Two ALSs share a **restricted common** digit x when every x of one sees every x of the
other: at most one of them holds x.

- **ALS-XZ**: ALSs A and B with a restricted common x: one of them loses x and is locked, so
  any other common digit z is in A or B, and leaves every cell seeing all z of both.
- **ALS-XY-Wing**: a pivot ALS C with restricted commons x to A and y to B: A or B is locked
  on everything but x (y), so a digit z common to A and B leaves the cells seeing all their z.
- **Sue de Coq**: the empty cells where a box meets a line hold N digits among N+2 or more;
  cells of the rest of the line (box) whose digits are disjoint from each other's make the
  whole set locked: each digit leaves the rest of the line or the box, whichever it must stay in.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from sudokubench.generate.techniques.board import Board, Step, bits, cells_of, make_step

__all__ = ["Als", "almost_locked_sets", "find_als_xy_wing", "find_als_xz", "find_sue_de_coq"]

#: Largest ALS searched (cells).
MAX_ALS = 4


class Als(NamedTuple):
    """Cells (mask), their digits (mask), per digit the cells holding it and the cells seeing
    all of those."""

    cells: int
    digits: int
    holding: dict[int, int]
    seeing: dict[int, int]


def almost_locked_sets(board: Board, max_size: int = MAX_ALS) -> list[Als]:
    """Every ALS of up to `max_size` cells, each once (a row part of a box is found once)."""
    return board.memo(f"als{max_size}", lambda: _enumerate(board, max_size))


def _enumerate(board: Board, max_size: int) -> list[Als]:
    cand, geo = board.cand, board.geo
    found: dict[int, Als] = {}
    for unit in geo.unit_mask:
        open_cells = [k for k in cells_of(unit) if cand[k]]
        for size in range(1, min(max_size, len(open_cells) - 1) + 1):
            for group in combinations(open_cells, size):
                digits = 0
                for k in group:
                    digits |= cand[k]
                if digits.bit_count() != size + 1:
                    continue
                mask = sum(1 << k for k in group)
                if mask not in found:
                    found[mask] = _als(board, group, mask, digits)
    return list(found.values())


def _als(board: Board, group, mask: int, digits: int) -> Als:
    holding, seeing = {}, {}
    for d in bits(digits):
        bit = 1 << (d - 1)
        ks = [k for k in group if board.cand[k] & bit]
        holding[d] = sum(1 << k for k in ks)
        sees = -1
        for k in ks:
            sees &= board.geo.peers[k]
        seeing[d] = sees
    return Als(mask, digits, holding, seeing)


def restricted_links(board: Board, sets: list[Als]) -> list[list[tuple[int, int]]]:
    """For each ALS i, the (j, x) with ALS j sharing no cell and x restricted common to both.

    The ALSs holding x in a cell are indexed by that cell, so only the sets whose x-cells lie
    where every x of set i is seen are looked at."""
    index: dict[tuple[int, int], list[int]] = {}
    for j, b in enumerate(sets):
        for x, holding in b.holding.items():
            for p in cells_of(holding):
                index.setdefault((p, x), []).append(j)
    links: list[list[tuple[int, int]]] = [[] for _ in sets]
    for i, a in enumerate(sets):
        for x in bits(a.digits):
            inside = a.seeing[x] & ~a.cells
            found = set()
            for p in cells_of(inside & board.where(x)):
                for j in index.get((p, x), ()):
                    b = sets[j]
                    if j not in found and not b.cells & a.cells and not b.holding[x] & ~inside:
                        found.add(j)
                        links[i].append((j, x))
    return links


def _als_text(board: Board, a: Als) -> str:
    return f"{board.names(cells_of(a.cells))} {{{board.syms(bits(a.digits))}}}"


def find_als_xz(board: Board) -> Step | None:
    """Two ALSs with a restricted common digit x: other common digits z leave cells seeing
    every z of both."""
    sets = almost_locked_sets(board)
    links = board.memo("als_links", lambda: restricted_links(board, sets))
    for i, linked in enumerate(links):
        a = sets[i]
        for j, x in linked:
            b = sets[j]
            if j < i or (a.digits & b.digits).bit_count() < 2:
                continue
            outside = ~(a.cells | b.cells)
            zs = bits(a.digits & b.digits & ~(1 << (x - 1)))
            elims = [e for z in zs for e in board.elims(z, a.seeing[z] & b.seeing[z] & outside)]
            if elims:
                text = (
                    f"ALS-XZ: {_als_text(board, a)} and {_als_text(board, b)} cannot both "
                    f"hold {board.sym(x)} (every {board.sym(x)} of one sees every one of "
                    f"the other), so one is locked without it: {board.removals(elims)}"
                )
                cells = cells_of(a.cells | b.cells)
                return make_step("als_xz", cells, bits(a.digits | b.digits), elims, text)
    return None


def find_als_xy_wing(board: Board) -> Step | None:
    """Pivot ALS C linked to A by x and to B by y: common digits z of A and B are removed."""
    sets = almost_locked_sets(board)
    links = board.memo("als_links", lambda: restricted_links(board, sets))
    for i, linked in enumerate(links):
        c = sets[i]
        for (ja, x), (jb, y) in combinations(linked, 2):
            a, b = sets[ja], sets[jb]
            if x == y or ja == jb or a.cells & b.cells:
                continue
            zs = a.digits & b.digits & ~(1 << (x - 1)) & ~(1 << (y - 1))
            if not zs:
                continue
            outside = ~(a.cells | b.cells | c.cells)
            elims = [
                e for z in bits(zs) for e in board.elims(z, a.seeing[z] & b.seeing[z] & outside)
            ]
            if elims:
                text = (
                    f"ALS-XY-Wing: pivot {_als_text(board, c)} shares {board.sym(x)} with "
                    f"{_als_text(board, a)} and {board.sym(y)} with {_als_text(board, b)}; "
                    f"one of the two is locked, so {board.removals(elims)}"
                )
                cells = cells_of(a.cells | b.cells | c.cells)
                return make_step("als_xy_wing", cells, bits(zs), elims, text)
    return None


def find_sue_de_coq(board: Board) -> Step | None:
    """Box-line intersection cells with N digits among N+2 or more, locked by helper cells."""
    geo, n, cand = board.geo, board.n, board.cand
    for bx in range(n):
        box = geo.unit_mask[2 * n + bx]
        for line in range(2 * n):
            if not box & geo.unit_mask[line]:
                continue
            inter = [k for k in cells_of(box & geo.unit_mask[line]) if cand[k]]
            for size in range(2, len(inter) + 1):
                for core in combinations(inter, size):
                    step = _sue_de_coq_on(board, bx, line, core)
                    if step is not None:
                        return step
    return None


def _helpers(board: Board, cells: list[int], v: int, core_size: int) -> list[tuple]:
    """(cells, digits, mask) of one or two helper cells that could complete a Sue de Coq:
    with the core they may add at most two more digits than cells (the other side's two)."""
    found = []
    for size in (1, 2):
        for group in combinations(cells, size):
            digits = 0
            for k in group:
                digits |= board.cand[k]
            if (v | digits).bit_count() <= core_size + size + 2:
                found.append((group, digits, sum(1 << k for k in group)))
    return found


def _sue_de_coq_on(board: Board, bx: int, line: int, core) -> Step | None:
    geo, n, cand = board.geo, board.n, board.cand
    v = 0
    for k in core:
        v |= cand[k]
    if v.bit_count() < len(core) + 2:
        return None
    core_mask = sum(1 << k for k in core)
    box, row = geo.unit_mask[2 * n + bx], geo.unit_mask[line]
    line_rest = [k for k in cells_of(row & ~box) if cand[k] & v]
    box_rest = [k for k in cells_of(box & ~row) if cand[k] & v]
    for a, va, mask_a in _helpers(board, line_rest, v, len(core)):
        for b, vb, mask_b in _helpers(board, box_rest, v, len(core)):
            if va & vb or (v | va | vb).bit_count() != len(core) + len(a) + len(b):
                continue
            from_line = va | (v & ~vb)
            from_box = vb | (v & ~va)
            elims = [
                (k, d)
                for d in bits(from_line)
                for k in cells_of(board.where(d) & row & ~core_mask & ~mask_a)
            ] + [
                (k, d)
                for d in bits(from_box)
                for k in cells_of(board.where(d) & box & ~core_mask & ~mask_b)
            ]
            if elims:
                text = (
                    f"Sue de Coq: {board.names(core)} ({board.shape.unit_name(line)} x "
                    f"box {bx + 1}) hold {board.syms(bits(v))}; with "
                    f"{board.names(a)} {{{board.syms(bits(va))}}} and {board.names(b)} "
                    f"{{{board.syms(bits(vb))}}} every digit is locked in the line or "
                    f"the box: {board.removals(elims)}"
                )
                cells = list(core) + list(a) + list(b)
                return make_step("sue_de_coq", cells, bits(v | va | vb), elims, text)
    return None
