"""Uniqueness techniques: a puzzle with one solution cannot end in a deadly pattern.

A **deadly pattern** is four empty cells on two rows, two columns and two boxes that would
hold x, y, x, y: the swapped digits would also fit, so a unique puzzle never ends that way.
These steps are only sound for puzzles proven unique, which `rate` requires.

- **unique rectangle type 1**: three corners are {x,y}: the fourth is not x or y.
- **type 2**: two corners {x,y}, the other two {x,y,z}: one of those two is z, so z leaves
  the cells seeing both.
- **type 3**: the extra digits of the two other corners act as one cell in a naked subset
  with other cells of their common unit.
- **type 4**: the two other corners are the only places of x in a unit: they must hold x
  there... and cannot hold y (both y would be deadly): y leaves them.
- **hidden rectangle**: one corner {x,y}; x is a conjugate pair on both lines through the
  opposite corner, which therefore loses y.
- **BUG+1**: every empty cell has two candidates but one with three: that one takes the digit
  it holds three times in a unit (else every cell would be two-valued: two solutions).
"""

from __future__ import annotations

from itertools import combinations

from sudokubench.generate.techniques.board import Board, Step, bits, cells_of, make_step

__all__ = ["find_bug_plus_one", "find_hidden_rectangle", "find_unique_rectangle", "rectangles"]


def rectangles(board: Board) -> list[tuple[int, int, int, int, int]]:
    """(a, b, c, e, pair mask): a bivalue corner a, b on a's row, c on a's column, e opposite,
    all four empty, holding both digits, in exactly two boxes."""
    cand, geo, n = board.cand, board.geo, board.n
    found = []
    for a, pm in enumerate(cand):
        if pm.bit_count() != 2:
            continue
        ra, ca = geo.row[a], geo.col[a]
        for b in range(ra * n, ra * n + n):
            if b == a or cand[b] & pm != pm:
                continue
            for rc in range(n):
                c = rc * n + ca
                e = rc * n + geo.col[b]
                if rc == ra or cand[c] & pm != pm or cand[e] & pm != pm:
                    continue
                if len({geo.box[a], geo.box[b], geo.box[c], geo.box[e]}) == 2:
                    found.append((a, b, c, e, pm))
    return found


def _ur_text(board: Board, kind: str, corners, pm: int, why: str, elims) -> str:
    x, y = bits(pm)
    return (
        f"unique rectangle {kind} on {board.syms((x, y))} ({board.names(sorted(corners))}): "
        f"{why}, or the rectangle would have two solutions: {board.removals(elims)}"
    )


def find_unique_rectangle(board: Board) -> Step | None:
    """Unique rectangle types 1 to 4, the simplest type first."""
    rects = rectangles(board)
    for finder in (_ur_type1, _ur_type2, _ur_type4, _ur_type3):
        for a, b, c, e, pm in rects:
            step = finder(board, (a, b, c, e), pm)
            if step is not None:
                return step
    return None


def _floor_roof(board: Board, corners, pm: int) -> tuple[list[int], list[int]] | None:
    """Two bivalue corners (floor) and two with extras (roof) sharing a row or column."""
    floor = [k for k in corners if board.cand[k] == pm]
    roof = [k for k in corners if board.cand[k] != pm]
    if len(floor) != 2:
        return None
    geo = board.geo
    if geo.row[roof[0]] != geo.row[roof[1]] and geo.col[roof[0]] != geo.col[roof[1]]:
        return None
    return floor, roof


def _ur_type1(board: Board, corners, pm: int) -> Step | None:
    extra = [k for k in corners if board.cand[k] != pm]
    if len(extra) != 1:
        return None
    (k,) = extra
    elims = [(k, d) for d in bits(pm)]
    text = _ur_text(board, "type 1", corners, pm, f"{board.name(k)} must hold another digit", elims)
    return make_step("unique_rectangle_1", corners, bits(pm), elims, text)


def _ur_type2(board: Board, corners, pm: int) -> Step | None:
    split = _floor_roof(board, corners, pm)
    if split is None:
        return None
    _, roof = split
    extra = board.cand[roof[0]] & ~pm
    if extra.bit_count() != 1 or board.cand[roof[1]] & ~pm != extra:
        return None
    z = extra.bit_length()
    geo = board.geo
    elims = board.elims(z, geo.peers[roof[0]] & geo.peers[roof[1]])
    if not elims:
        return None
    why = f"{board.name(roof[0])} or {board.name(roof[1])} must be {board.sym(z)}"
    text = _ur_text(board, "type 2", corners, pm, why, elims)
    return make_step("unique_rectangle_2", corners, [*bits(pm), z], elims, text)


def _ur_type4(board: Board, corners, pm: int) -> Step | None:
    split = _floor_roof(board, corners, pm)
    if split is None:
        return None
    _, roof = split
    geo = board.geo
    shared = set(geo.units_of(roof[0])) & set(geo.units_of(roof[1]))
    for u in sorted(shared):
        for x in bits(pm):
            if board.where(x) & geo.unit_mask[u] != (1 << roof[0]) | (1 << roof[1]):
                continue
            y = (pm & ~(1 << (x - 1))).bit_length()
            elims = [(k, y) for k in roof]
            why = (
                f"{board.sym(x)} must be in {board.names(roof)} ({board.shape.unit_name(u)}), "
                f"so neither is {board.sym(y)}"
            )
            text = _ur_text(board, "type 4", corners, pm, why, elims)
            return make_step("unique_rectangle_4", corners, bits(pm), elims, text)
    return None


def _ur_type3(board: Board, corners, pm: int) -> Step | None:
    split = _floor_roof(board, corners, pm)
    if split is None:
        return None
    _, roof = split
    cand, geo = board.cand, board.geo
    extra = (cand[roof[0]] | cand[roof[1]]) & ~pm
    shared = set(geo.units_of(roof[0])) & set(geo.units_of(roof[1]))
    for u in sorted(shared):
        others = [k for k in cells_of(geo.unit_mask[u]) if cand[k] and k not in roof]
        for size in range(1, 4):
            for group in combinations(others, size):
                union = extra
                for k in group:
                    union |= cand[k]
                if union.bit_count() != size + 1:
                    continue
                elims = [(k, d) for k in others if k not in group for d in bits(cand[k] & union)]
                if elims:
                    why = (
                        f"one of {board.names(roof)} holds {board.syms(bits(extra))}, a naked "
                        f"subset {board.syms(bits(union))} with {board.names(group)} in "
                        f"{board.shape.unit_name(u)}"
                    )
                    text = _ur_text(board, "type 3", corners, pm, why, elims)
                    return make_step("unique_rectangle_3", corners, bits(union), elims, text)
    return None


def find_hidden_rectangle(board: Board) -> Step | None:
    """Corner a {x,y}; x a conjugate pair on both lines through the opposite corner e: e != y."""
    geo, n = board.geo, board.n
    for a, b, c, e, pm in rectangles(board):
        for x in bits(pm):
            where = board.where(x)
            row_e, col_e = geo.unit_mask[geo.row[e]], geo.unit_mask[n + geo.col[e]]
            if where & row_e != (1 << e | 1 << c) or where & col_e != (1 << e | 1 << b):
                continue
            y = (pm & ~(1 << (x - 1))).bit_length()
            elims = board.elims(y, 1 << e)
            if elims:
                text = (
                    f"hidden rectangle on {board.syms(bits(pm))} "
                    f"({board.names(sorted((a, b, c, e)))}): {board.name(a)} is {{x,y}} and "
                    f"{board.sym(x)} has only two places on both lines through "
                    f"{board.name(e)}; {board.name(e)} = {board.sym(y)} would force the deadly "
                    f"pattern: {board.removals(elims)}"
                )
                return make_step("hidden_rectangle", (a, b, c, e), bits(pm), elims, text)
    return None


def find_bug_plus_one(board: Board) -> Step | None:
    """All empty cells bivalue but one trivalue cell: it takes the digit whose removal would
    leave a BUG (every digit twice or not at all in every unit: no unique solution)."""
    cand, geo = board.cand, board.geo
    open_cells = [k for k, m in enumerate(cand) if m]
    odd = [k for k in open_cells if cand[k].bit_count() != 2]
    if len(odd) != 1 or cand[odd[0]].bit_count() != 3:
        return None
    (k,) = odd
    for d in bits(cand[k]):
        if not _grave_without(board, k, d):
            continue
        for u in geo.units_of(k):
            if (board.where(d) & geo.unit_mask[u]).bit_count() == 3:
                text = (
                    f"{board.name(k)} = {board.sym(d)}: BUG+1, every other empty cell has two "
                    f"candidates; without {board.sym(d)} here, {board.sym(d)} would have three "
                    f"places in {board.shape.unit_name(u)}, every digit of every unit two, "
                    "and the rest two solutions"
                )
                return Step("bug_plus_one", (k,), (d,), (k, d), (), text)
    return None


def _grave_without(board: Board, k: int, d: int) -> bool:
    """Whether every digit has 0 or 2 places in every unit once d is taken out of cell k."""
    for e in range(1, board.n + 1):
        where = board.where(e) & ~(1 << k) if e == d else board.where(e)
        if any((where & mask).bit_count() not in (0, 2) for mask in board.geo.unit_mask):
            return False
    return True
