"""Singles and intersections: the techniques of easy and medium puzzles.

- **naked single**: a cell with one candidate left gets it.
- **hidden single**: a digit with one place left in a unit goes there.
- **pointing pair / triple**: a digit whose places in a box all lie in one row (column) is
  removed from the rest of that row (column); a pair or a triple by the number of places.
- **box/line reduction**: a digit whose places in a row (column) all lie in one box is removed
  from the rest of that box.
"""

from __future__ import annotations

from sudokubench.generate.techniques.board import Board, Step, cells_of, units_boxes_first

__all__ = ["find_box_line", "find_hidden_single", "find_naked_single", "find_pointing"]

_GROUP_WORD = {2: "pair", 3: "triple", 4: "quad"}


def find_naked_single(board: Board) -> Step | None:
    """A cell with exactly one candidate."""
    for k, mask in enumerate(board.cand):
        if mask and not mask & (mask - 1):
            d = mask.bit_length()
            text = f"{board.name(k)} = {board.sym(d)}: the only digit left for {board.name(k)}"
            return Step("naked_single", (k,), (d,), (k, d), (), text)
    return None


def find_hidden_single(board: Board) -> Step | None:
    """A digit with exactly one place in a unit (boxes, then rows, then columns)."""
    shape = board.shape
    cand = board.cand
    for u, unit in units_boxes_first(shape):
        once = twice = 0
        for k in unit:
            mask = cand[k]
            twice |= once & mask
            once |= mask
        single = once & ~twice
        if single:
            d = (single & -single).bit_length()
            k = next(k for k in unit if cand[k] & (1 << (d - 1)))
            where = shape.unit_name(u)
            text = f"{board.name(k)} = {board.sym(d)}: the only place for {board.sym(d)} in {where}"
            return Step("hidden_single", (k,), (d,), (k, d), (), text)
    return None


def find_pointing(board: Board) -> Step | None:
    """A digit confined to one row or column inside a box leaves the rest of that line."""
    geo, n = board.geo, board.n
    unit_mask = geo.unit_mask
    for b in range(n):
        box_mask = unit_mask[2 * n + b]
        for d in range(1, n + 1):
            places = board.where(d) & box_mask
            if places & (places - 1) == 0:  # none or one: a single, not a pointing group
                continue
            first = places.bit_length() - 1
            for kind, u in (("row", geo.row[first]), ("column", n + geo.col[first])):
                if places & ~unit_mask[u]:
                    continue
                elims = board.elims(d, unit_mask[u] & ~box_mask)
                if elims:
                    where = cells_of(places)
                    s, line_name = board.sym(d), f"{kind} {u % n + 1}"
                    word = _GROUP_WORD.get(len(where), f"group of {len(where)}")
                    text = (
                        f"pointing {word}: in box {b + 1}, {s} can only be in {line_name} "
                        f"({board.names(where)}), so {line_name} has no {s} outside box {b + 1}: "
                        f"{board.removals(elims)}"
                    )
                    key = "pointing_pair" if len(where) == 2 else "pointing_triple"
                    return Step(key, tuple(where), (d,), None, tuple(elims), text)
    return None


def find_box_line(board: Board) -> Step | None:
    """A digit confined to one box inside a row or column leaves the rest of that box."""
    geo, n = board.geo, board.n
    unit_mask = geo.unit_mask
    for u in range(2 * n):
        for d in range(1, n + 1):
            places = board.where(d) & unit_mask[u]
            if places & (places - 1) == 0:
                continue
            b = geo.box[places.bit_length() - 1]
            box_mask = unit_mask[2 * n + b]
            if places & ~box_mask:
                continue
            elims = board.elims(d, box_mask & ~unit_mask[u])
            if elims:
                s, line_name = board.sym(d), board.shape.unit_name(u)
                text = (
                    f"box/line reduction: in {line_name}, {s} can only be in box {b + 1} "
                    f"({board.names(cells_of(places))}), so box {b + 1} has no {s} outside "
                    f"{line_name}: {board.removals(elims)}"
                )
                return Step(
                    "box_line_reduction", tuple(cells_of(places)), (d,), None, tuple(elims), text
                )
    return None
