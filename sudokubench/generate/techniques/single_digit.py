"""Patterns of one digit built from conjugate pairs (a unit where the digit has two places).

- **skyscraper**: two parallel lines each with a conjugate pair on the digit, one end of each
  in a common crossing line; one of the two other ends holds the digit, so cells seeing both
  lose it.
- **two-string kite**: a row pair and a column pair with one end of each in a common box; the
  two far ends see a cell that loses the digit.
- **turbot fish**: the same shape of chain (strong, weak, strong) with a box pair or with
  ends linked some other way.
- **empty rectangle**: a box whose places for the digit lie on one row and one column (a
  cross), and a conjugate pair outside the box with an end on that row (column); the cell
  where the pair's other line meets the cross's column (row) loses the digit.
- **simple colouring**: the digit's conjugate pairs chained and coloured alternately: one
  colour is true. Two cells of one colour that see each other make that colour false (colour
  wrap); a cell that sees both colours cannot hold the digit (colour trap).
"""

from __future__ import annotations

from sudokubench.generate.techniques.board import Board, Step, cells_of, make_step, seen_by_both

__all__ = [
    "conjugate_pairs",
    "find_empty_rectangle",
    "find_simple_colouring",
    "find_skyscraper",
    "find_turbot_fish",
    "find_two_string_kite",
]


def conjugate_pairs(board: Board, d: int) -> list[tuple[int, int, int]]:
    """(a, b, unit) for every unit where d has exactly two places a < b."""
    where = board.where(d)
    found = []
    for u, mask in enumerate(board.geo.unit_mask):
        places = where & mask
        if places.bit_count() == 2:
            a, b = cells_of(places)
            found.append((a, b, u))
    return found


def _kind(board: Board, u1: int, u2: int, b: int, c: int) -> str:
    """Which name the chain (a=b in u1) - (c=e in u2) goes by, b and c being the weak link."""
    n, geo = board.n, board.geo
    k1, k2 = u1 // n, u2 // n  # 0 row, 1 column, 2 box
    if k1 == k2 == 0 and geo.col[b] == geo.col[c]:
        return "skyscraper"
    if k1 == k2 == 1 and geo.row[b] == geo.row[c]:
        return "skyscraper"
    if {k1, k2} == {0, 1} and geo.box[b] == geo.box[c]:
        return "two_string_kite"
    return "turbot_fish"


_TITLES = {"skyscraper": "skyscraper", "two_string_kite": "two-string kite"}


def _find_turbot(board: Board, want: str) -> Step | None:
    """The first chain of kind `want`; the three kinds are searched together once per board."""
    return board.memo("turbot", lambda: _all_turbots(board)).get(want)


def _all_turbots(board: Board) -> dict[str, Step]:
    geo = board.geo
    found: dict[str, Step] = {}
    for d in range(1, board.n + 1):
        pairs = conjugate_pairs(board, d)
        by_start: dict[int, list[tuple[int, int]]] = {}
        for a, b, u in pairs:
            by_start.setdefault(a, []).append((b, u))
            by_start.setdefault(b, []).append((a, u))
        starts = sum(1 << k for k in by_start)
        for a, b, u1 in [(a, b, u) for a, b, u in pairs] + [(b, a, u) for a, b, u in pairs]:
            for c in cells_of(geo.peers[b] & starts & ~(1 << a)):
                for e, u2 in by_start[c]:
                    if u1 == u2 or e in (a, b):
                        continue
                    kind = _kind(board, u1, u2, b, c)
                    if kind in found:
                        continue
                    elims = board.elims(d, geo.peers[a] & geo.peers[e] & ~(1 << b | 1 << c))
                    if elims:
                        found[kind] = _turbot_step(board, kind, d, (a, b, c, e), (u1, u2), elims)
                        if len(found) == 3:
                            return found
    return found


def _turbot_step(board: Board, kind: str, d: int, chain, units, elims) -> Step:
    a, b, c, e = chain
    s = board.sym(d)
    title = _TITLES.get(kind, "turbot fish")
    text = (
        f"{title} on {s}: {board.name(a)} = {board.name(b)} "
        f"({board.shape.unit_name(units[0])}) - {board.name(c)} = {board.name(e)} "
        f"({board.shape.unit_name(units[1])}); {board.name(b)} and {board.name(c)} "
        f"cannot both be {s}, so {board.name(a)} or {board.name(e)} is: "
        f"{board.removals(elims)}"
    )
    return make_step(kind, chain, (d,), elims, text)


def find_skyscraper(board: Board) -> Step | None:
    """Two parallel conjugate pairs with one end of each on a common crossing line."""
    return _find_turbot(board, "skyscraper")


def find_two_string_kite(board: Board) -> Step | None:
    """A row pair and a column pair with one end of each in a common box."""
    return _find_turbot(board, "two_string_kite")


def find_turbot_fish(board: Board) -> Step | None:
    """Strong - weak - strong on one digit, in the shapes not named above."""
    return _find_turbot(board, "turbot_fish")


def find_empty_rectangle(board: Board) -> Step | None:
    """A box whose places for a digit form a cross, and a conjugate pair hitting the cross."""
    geo, n = board.geo, board.n
    for d in range(1, n + 1):
        where = board.where(d)
        pairs = [(a, b, u) for a, b, u in conjugate_pairs(board, d) if u < 2 * n]
        for bx in range(n):
            places = where & geo.unit_mask[2 * n + bx]
            if places.bit_count() < 2:
                continue
            for r, c in _crosses(board, bx, places):
                step = _er_from_pairs(board, d, bx, r, c, pairs)
                if step is not None:
                    return step
    return None


def _crosses(board: Board, bx: int, places: int) -> list[tuple[int, int]]:
    """(row, column) of the box whose union holds every place, with places off both lines."""
    geo, n = board.geo, board.n
    cells = cells_of(places)
    found = []
    for r in sorted({geo.row[k] for k in cells}):
        for c in sorted({geo.col[k] for k in cells}):
            line_mask = geo.unit_mask[r] | geo.unit_mask[n + c]
            if places & ~line_mask:
                continue
            if places & geo.unit_mask[r] & ~geo.unit_mask[n + c] and (
                places & geo.unit_mask[n + c] & ~geo.unit_mask[r]
            ):
                found.append((r, c))
    return found


def _er_from_pairs(board: Board, d, bx, r, c, pairs) -> Step | None:
    geo, n = board.geo, board.n
    box_mask = geo.unit_mask[2 * n + bx]
    for a, b, u in pairs:
        for near, far in ((a, b), (b, a)):
            if (box_mask >> near & 1) or (box_mask >> far & 1):
                continue
            if u >= n and geo.row[near] == r:  # a column pair with an end on the cross's row
                target = geo.row[far] * n + c
            elif u < n and geo.col[near] == c:  # a row pair with an end on the cross's column
                target = r * n + geo.col[far]
            else:
                continue
            if box_mask >> target & 1 or target in (near, far):
                continue
            elims = board.elims(d, 1 << target)
            if elims:
                s = board.sym(d)
                text = (
                    f"empty rectangle on {s}: in box {bx + 1}, {s} lies on row {r + 1} or column "
                    f"{c + 1}; {board.name(near)} = {board.name(far)} "
                    f"({board.shape.unit_name(u)}): if {board.name(far)} is not {s}, "
                    f"{board.name(near)} is, and the box's {s} is on the other line; "
                    f"{board.removals(elims)}"
                )
                return make_step("empty_rectangle", (near, far), (d,), elims, text)
    return None


def _colour(board: Board, d: int) -> list[tuple[list[int], list[int]]]:
    """Connected groups of conjugate pairs on d, two-coloured: (colour A cells, colour B)."""
    links: dict[int, set[int]] = {}
    for a, b, _ in conjugate_pairs(board, d):
        links.setdefault(a, set()).add(b)
        links.setdefault(b, set()).add(a)
    seen: dict[int, int] = {}
    groups = []
    for start in sorted(links):
        if start in seen:
            continue
        seen[start] = 0
        sides: tuple[list[int], list[int]] = ([start], [])
        todo = [start]
        while todo:
            k = todo.pop()
            for m in sorted(links[k]):
                if m not in seen:
                    seen[m] = 1 - seen[k]
                    sides[seen[m]].append(m)
                    todo.append(m)
        if len(sides[0]) + len(sides[1]) >= 3:
            groups.append((sorted(sides[0]), sorted(sides[1])))
    return groups


def find_simple_colouring(board: Board) -> Step | None:
    """Colour wrap (a colour sees itself: it is false) or colour trap (sees both colours)."""
    geo = board.geo
    for d in range(1, board.n + 1):
        for side_a, side_b in _colour(board, d):
            s = board.sym(d)
            for same, other in ((side_a, side_b), (side_b, side_a)):
                clash = next(((x, y) for x in same for y in same if x < y and geo.sees(x, y)), None)
                if clash:
                    elims = [(k, d) for k in same]
                    text = (
                        f"simple colouring (colour wrap) on {s}: chain of conjugate pairs "
                        f"coloured {board.names(same)} / {board.names(other)}; "
                        f"{board.name(clash[0])} and {board.name(clash[1])} share a colour and "
                        f"see each other, so that colour is false: {board.removals(elims)}"
                    )
                    return make_step("simple_colouring", same + other, (d,), elims, text)
            elims = board.elims(d, seen_by_both(geo, side_a, side_b))
            if elims:
                text = (
                    f"simple colouring (colour trap) on {s}: chain of conjugate pairs coloured "
                    f"{board.names(side_a)} / {board.names(side_b)}; one colour is {s}, so cells "
                    f"seeing both colours are not: {board.removals(elims)}"
                )
                return make_step("simple_colouring", side_a + side_b, (d,), elims, text)
    return None
