"""Wings: short chains through cells with two or three candidates.

- **XY-Wing**: a pivot {x,y} sees a cell {x,z} and a cell {y,z}; whichever digit the pivot
  takes, one of them is z, so z leaves every cell that sees both.
- **XYZ-Wing**: a pivot {x,y,z} sees {x,z} and {y,z}: one of the three is z, so z leaves every
  cell that sees all three.
- **W-Wing**: two cells {x,y} that do not see each other, and a conjugate pair on x with one
  end seeing each: one of the two cells is y, so y leaves the cells seeing both.
- **remote pair**: cells with the same two candidates chained by seeing each other alternate
  between the two digits; cells that see two cells of opposite parity lose both digits.
"""

from __future__ import annotations

from sudokubench.generate.techniques.board import (
    Board,
    Step,
    bits,
    cells_of,
    make_step,
    seen_by_both,
)
from sudokubench.generate.techniques.single_digit import conjugate_pairs

__all__ = ["find_remote_pair", "find_w_wing", "find_xy_wing", "find_xyz_wing"]


def find_xy_wing(board: Board) -> Step | None:
    """Pivot {x,y} seeing pincers {x,z} and {y,z}: z leaves every cell seeing both pincers."""
    cand, geo = board.cand, board.geo
    pairs = [k for k, mask in enumerate(cand) if mask.bit_count() == 2]
    for pivot in pairs:
        pm = cand[pivot]
        x, y = bits(pm)
        wings = [k for k in pairs if geo.sees(pivot, k) and cand[k] != pm and cand[k] & pm]
        for a in wings:
            am = cand[a]
            if am & pm != 1 << (x - 1):
                continue
            z_bit = am & ~pm
            z = z_bit.bit_length()
            for b in wings:
                if cand[b] != (1 << (y - 1)) | z_bit:
                    continue
                elims = board.elims(z, geo.peers[a] & geo.peers[b] & ~(1 << pivot))
                if elims:
                    text = (
                        f"XY-Wing: pivot {board.cand_text(pivot)} sees {board.cand_text(a)} "
                        f"and {board.cand_text(b)}; one of them is {board.sym(z)}, so "
                        f"{board.removals(elims)}"
                    )
                    return make_step("xy_wing", (pivot, a, b), (x, y, z), elims, text)
    return None


def find_xyz_wing(board: Board) -> Step | None:
    """Pivot {x,y,z} seeing {x,z} and {y,z}: z leaves every cell seeing all three."""
    cand, geo = board.cand, board.geo
    pairs = [k for k, mask in enumerate(cand) if mask.bit_count() == 2]
    for pivot, pm in enumerate(cand):
        if pm.bit_count() != 3:
            continue
        wings = [k for k in pairs if geo.sees(pivot, k) and cand[k] & ~pm == 0]
        for i, a in enumerate(wings):
            for b in wings[i + 1 :]:
                z_bit = cand[a] & cand[b]
                if cand[a] == cand[b] or not z_bit:
                    continue
                z = z_bit.bit_length()
                elims = board.elims(z, geo.peers[a] & geo.peers[b] & geo.peers[pivot])
                if elims:
                    text = (
                        f"XYZ-Wing: pivot {board.cand_text(pivot)} sees {board.cand_text(a)} "
                        f"and {board.cand_text(b)}; one of the three is {board.sym(z)}, so "
                        f"{board.removals(elims)}"
                    )
                    return make_step("xyz_wing", (pivot, a, b), bits(pm), elims, text)
    return None


def find_w_wing(board: Board) -> Step | None:
    """Two equal bivalue cells joined by a conjugate pair on one of their digits."""
    cand, geo = board.cand, board.geo
    pairs = [k for k, mask in enumerate(cand) if mask.bit_count() == 2]
    links = {d: conjugate_pairs(board, d) for d in range(1, board.n + 1)}
    for i, a in enumerate(pairs):
        for b in pairs[i + 1 :]:
            if cand[a] != cand[b] or geo.sees(a, b):
                continue
            for x in bits(cand[a]):
                y = (cand[a] & ~(1 << (x - 1))).bit_length()
                step = _w_wing_link(board, a, b, x, y, links[x])
                if step is not None:
                    return step
    return None


def _w_wing_link(board: Board, a, b, x, y, links) -> Step | None:
    geo = board.geo
    for p, q, u in links:
        for pa, qb in ((p, q), (q, p)):
            if pa in (a, b) or qb in (a, b) or not geo.sees(pa, a) or not geo.sees(qb, b):
                continue
            elims = board.elims(y, geo.peers[a] & geo.peers[b])
            if elims:
                text = (
                    f"W-Wing: {board.cand_text(a)} and {board.cand_text(b)}, joined by the "
                    f"conjugate pair {board.name(pa)} = {board.name(qb)} on {board.sym(x)} "
                    f"({board.shape.unit_name(u)}): they cannot both be {board.sym(x)}, so one "
                    f"is {board.sym(y)}: {board.removals(elims)}"
                )
                return make_step("w_wing", (a, pa, qb, b), (x, y), elims, text)
    return None


def find_remote_pair(board: Board) -> Step | None:
    """A chain of four or more cells {x,y} seeing each other in turn: opposite ends differ."""
    cand, geo = board.cand, board.geo
    by_pair: dict[int, list[int]] = {}
    for k, mask in enumerate(cand):
        if mask.bit_count() == 2:
            by_pair.setdefault(mask, []).append(k)
    for mask, cells in by_pair.items():
        if len(cells) < 4:
            continue
        for side_a, side_b in _parity_groups(board, cells):
            if len(side_a) + len(side_b) < 4:
                continue
            targets = seen_by_both(geo, side_a, side_b)
            elims = [e for d in bits(mask) for e in board.elims(d, targets)]
            if elims:
                digits = bits(mask)
                text = (
                    f"remote pair {board.syms(digits)}: {board.names(side_a)} hold one digit and "
                    f"{board.names(side_b)} the other, so cells seeing both groups hold neither: "
                    f"{board.removals(elims)}"
                )
                return make_step("remote_pair", side_a + side_b, digits, elims, text)
    return None


def _parity_groups(board: Board, cells: list[int]) -> list[tuple[list[int], list[int]]]:
    """Connected groups of the cells (linked by seeing each other), two-coloured; groups
    where two cells of one colour see each other are left out."""
    geo = board.geo
    chosen = sum(1 << k for k in cells)
    colour: dict[int, int] = {}
    groups = []
    for start in cells:
        if start in colour:
            continue
        colour[start] = 0
        sides: tuple[list[int], list[int]] = ([start], [])
        todo, clash = [start], False
        while todo:
            k = todo.pop()
            for m in cells_of(geo.peers[k] & chosen):
                if m not in colour:
                    colour[m] = 1 - colour[k]
                    sides[colour[m]].append(m)
                    todo.append(m)
                elif colour[m] == colour[k]:
                    clash = True
        if not clash:
            groups.append((sorted(sides[0]), sorted(sides[1])))
    return groups
