"""Human solving techniques over candidate sets, each finding one logged `Step` at a time.

A `Board` (`board.py`) holds the digits placed so far and each empty cell's candidates (a bit
mask: bit d-1 set when digit d is still possible). Every technique is a function
`find_*(board)` that returns the first `Step` it can make, or None, without changing the
board; `Board.apply` makes the step. The rater (`rating.py`) tries them from the simplest up.

The techniques, for every shape (rows, columns and boxes are all units of N cells; rectangular
boxes are fine):

- **naked single**: a cell with one candidate left gets it.
- **hidden single**: a digit with one place left in a unit goes there.
- **pointing pair** (or triple): a digit whose places in a box all lie in one row (column) is
  removed from the rest of that row (column).
- **box/line reduction**: a digit whose places in a row (column) all lie in one box is removed
  from the rest of that box.
- **naked pair / triple**: 2 (3) cells of a unit whose candidates together are 2 (3) digits:
  those digits leave the unit's other cells.
- **hidden pair / triple**: 2 (3) digits of a unit that together have 2 (3) places: those
  cells lose their other candidates.
- **X-Wing / Swordfish**: a digit whose places in 2 (3) rows lie in 2 (3) columns is removed
  from the rest of those columns (and the same with rows and columns swapped).
- **XY-Wing**: a pivot cell {x,y} sees a cell {x,z} and a cell {y,z}; whichever digit the pivot
  takes, one of them is z, so z leaves every cell that sees both.
- **guess**: when nothing applies, the cell with the fewest candidates gets its digit from the
  known solution (the rater has it from the uniqueness proof); a person would have to try.
"""

from __future__ import annotations

from itertools import combinations

from sudokubench.generate.board import Board, Step, bits, units_boxes_first

__all__ = [
    "FINDERS",
    "Board",
    "Step",
    "find_box_line",
    "find_guess",
    "find_hidden_pair",
    "find_hidden_single",
    "find_hidden_triple",
    "find_naked_pair",
    "find_naked_single",
    "find_naked_triple",
    "find_pointing",
    "find_swordfish",
    "find_x_wing",
    "find_xy_wing",
]

# -- singles -----------------------------------------------------------------------------------


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


# -- intersections -----------------------------------------------------------------------------


def find_pointing(board: Board) -> Step | None:
    """A digit confined to one row or column inside a box leaves the rest of that line."""
    shape = board.shape
    n = shape.n
    for b, box in enumerate(shape.boxes):
        for d in range(1, n + 1):
            where = board.places(box, d)
            if len(where) < 2:
                continue
            for kind, index in (("row", lambda k: k // n), ("column", lambda k: k % n)):
                lines = {index(k) for k in where}
                if len(lines) != 1:
                    continue
                line_no = lines.pop()
                line = shape.rows[line_no] if kind == "row" else shape.cols[line_no]
                elims = [(k, d) for k in board.places(line, d) if k not in box]
                if elims:
                    s, line_name = board.sym(d), f"{kind} {line_no + 1}"
                    text = (
                        f"pointing {'pair' if len(where) == 2 else 'triple'}: in box {b + 1}, "
                        f"{s} can only be in {line_name} ({board.names(where)}), so {line_name} "
                        f"has no {s} outside box {b + 1}: {board.removals(elims)}"
                    )
                    return Step("pointing_pair", tuple(where), (d,), None, tuple(elims), text)
    return None


def find_box_line(board: Board) -> Step | None:
    """A digit confined to one box inside a row or column leaves the rest of that box."""
    shape = board.shape
    n = shape.n
    for u, line in enumerate(shape.rows + shape.cols):
        for d in range(1, n + 1):
            where = board.places(line, d)
            if len(where) < 2:
                continue
            boxes = {shape.cell_units[k][2] for k in where}
            if len(boxes) != 1:
                continue
            b = boxes.pop()
            elims = [(k, d) for k in board.places(shape.boxes[b], d) if k not in line]
            if elims:
                s, line_name = board.sym(d), shape.unit_name(u)
                text = (
                    f"box/line reduction: in {line_name}, {s} can only be in box {b + 1} "
                    f"({board.names(where)}), so box {b + 1} has no {s} outside {line_name}: "
                    f"{board.removals(elims)}"
                )
                return Step("box_line_reduction", tuple(where), (d,), None, tuple(elims), text)
    return None


# -- subsets -----------------------------------------------------------------------------------

_SIZE_WORD = {2: "pair", 3: "triple"}


def _find_naked(board: Board, size: int) -> Step | None:
    shape = board.shape
    cand = board.cand
    for u, unit in enumerate(shape.units):
        open_cells = [k for k in unit if cand[k]]
        small = [k for k in open_cells if 2 <= cand[k].bit_count() <= size]
        for group in combinations(small, size):
            union = 0
            for k in group:
                union |= cand[k]
            if union.bit_count() != size:
                continue
            digits = bits(union)
            elims = [
                (k, d)
                for k in open_cells
                if k not in group
                for d in digits
                if cand[k] & (1 << (d - 1))
            ]
            if elims:
                text = (
                    f"naked {_SIZE_WORD[size]} {board.syms(digits)} in {shape.unit_name(u)} "
                    f"({board.names(group)}): those cells take these digits, so "
                    f"{board.removals(elims)}"
                )
                name = f"naked_{_SIZE_WORD[size]}"
                return Step(name, tuple(group), tuple(digits), None, tuple(elims), text)
    return None


def _find_hidden(board: Board, size: int) -> Step | None:
    shape = board.shape
    n = shape.n
    cand = board.cand
    for u, unit in enumerate(shape.units):
        where = {d: board.places(unit, d) for d in range(1, n + 1)}
        few = [d for d in range(1, n + 1) if 2 <= len(where[d]) <= size]
        for digits in combinations(few, size):
            cells = sorted({k for d in digits for k in where[d]})
            if len(cells) != size:
                continue
            keep = 0
            for d in digits:
                keep |= 1 << (d - 1)
            elims = [(k, d) for k in cells for d in bits(cand[k] & ~keep)]
            if elims:
                text = (
                    f"hidden {_SIZE_WORD[size]} {board.syms(digits)} in {shape.unit_name(u)}: "
                    f"they can only go in {board.names(cells)}, so those cells hold nothing "
                    f"else: {board.removals(elims)}"
                )
                name = f"hidden_{_SIZE_WORD[size]}"
                return Step(name, tuple(cells), digits, None, tuple(elims), text)
    return None


def find_naked_pair(board: Board) -> Step | None:
    """Two cells of a unit with the same two candidates."""
    return _find_naked(board, 2)


def find_naked_triple(board: Board) -> Step | None:
    """Three cells of a unit whose candidates together are three digits."""
    return _find_naked(board, 3)


def find_hidden_pair(board: Board) -> Step | None:
    """Two digits of a unit with the same two places."""
    return _find_hidden(board, 2)


def find_hidden_triple(board: Board) -> Step | None:
    """Three digits of a unit with three places between them."""
    return _find_hidden(board, 3)


# -- fish and wings ----------------------------------------------------------------------------

_FISH_NAME = {2: ("x_wing", "X-Wing"), 3: ("swordfish", "Swordfish")}


def _find_fish(board: Board, size: int) -> Step | None:
    shape = board.shape
    n = shape.n
    for d in range(1, n + 1):
        for base_kind, cover_kind, base, cover in (
            ("rows", "columns", shape.rows, shape.cols),
            ("columns", "rows", shape.cols, shape.rows),
        ):
            spots: dict[int, set[int]] = {}
            for i, line in enumerate(base):
                where = board.places(line, d)
                if 2 <= len(where) <= size:
                    spots[i] = {line.index(k) for k in where}
            for chosen in combinations(sorted(spots), size):
                covered = set().union(*(spots[i] for i in chosen))
                if len(covered) != size:
                    continue
                corners = [
                    base[i][j]
                    for i in chosen
                    for j in sorted(covered)
                    if board.cand[base[i][j]] & (1 << (d - 1))
                ]
                elims = [
                    (k, d)
                    for j in sorted(covered)
                    for k in board.places(cover[j], d)
                    if k not in corners
                ]
                if elims:
                    key, title = _FISH_NAME[size]
                    s = board.sym(d)
                    base_names = " ".join(str(i + 1) for i in chosen)
                    cover_names = " ".join(str(j + 1) for j in sorted(covered))
                    text = (
                        f"{title} on {s}: in {base_kind} {base_names}, {s} can only be in "
                        f"{cover_kind} {cover_names}, so those {cover_kind} have no other {s}: "
                        f"{board.removals(elims)}"
                    )
                    return Step(key, tuple(corners), (d,), None, tuple(elims), text)
    return None


def find_x_wing(board: Board) -> Step | None:
    """A digit with two places in each of two rows (columns), in the same two columns (rows)."""
    return _find_fish(board, 2)


def find_swordfish(board: Board) -> Step | None:
    """The three-line X-Wing: three rows (columns) whose places lie in three columns (rows)."""
    return _find_fish(board, 3)


def find_xy_wing(board: Board) -> Step | None:
    """Pivot {x,y} seeing pincers {x,z} and {y,z}: z leaves every cell seeing both pincers."""
    cand = board.cand
    peers = board.peer_sets
    pairs = [k for k, mask in enumerate(cand) if mask.bit_count() == 2]
    for pivot in pairs:
        pm = cand[pivot]
        x, y = bits(pm)
        wings = [k for k in pairs if k in peers[pivot] and cand[k] != pm]
        for a in wings:
            am = cand[a]
            if am & pm != 1 << (x - 1):
                continue
            z_bit = am & ~pm
            for b in wings:
                if cand[b] != (1 << (y - 1)) | z_bit:
                    continue
                z = z_bit.bit_length()
                seen = peers[a] & peers[b]
                elims = sorted((k, z) for k in seen if k != pivot and cand[k] & z_bit)
                if elims:
                    text = (
                        f"XY-Wing: pivot {board.name(pivot)} {{{board.syms((x, y))}}} sees "
                        f"{board.name(a)} {{{board.syms(bits(am))}}} and {board.name(b)} "
                        f"{{{board.syms(bits(cand[b]))}}}; one of them is {board.sym(z)}, so "
                        f"{board.removals(elims)}"
                    )
                    cells = (pivot, a, b)
                    return Step("xy_wing", cells, (x, y, z), None, tuple(elims), text)
    return None


def find_guess(board: Board) -> Step | None:
    """The cell with the fewest candidates gets its digit from the solution (None without one)."""
    if board.solution is None:
        return None
    open_cells = [k for k, mask in enumerate(board.cand) if mask]
    if not open_cells:
        return None
    k = min(open_cells, key=lambda k: board.cand[k].bit_count())
    d = board.solution[k]
    options = board.syms(bits(board.cand[k]))
    text = (
        f"{board.name(k)} = {board.sym(d)}: a guess, no technique applies "
        f"({board.name(k)} is one of {options}; the right one, from the solution)"
    )
    return Step("guess", (k,), (d,), (k, d), (), text)


#: Every finder, simplest first (the rater's order; `rating.TECHNIQUES` adds levels, weights).
FINDERS = {
    "naked_single": find_naked_single,
    "hidden_single": find_hidden_single,
    "pointing_pair": find_pointing,
    "box_line_reduction": find_box_line,
    "naked_pair": find_naked_pair,
    "hidden_pair": find_hidden_pair,
    "naked_triple": find_naked_triple,
    "hidden_triple": find_hidden_triple,
    "x_wing": find_x_wing,
    "xy_wing": find_xy_wing,
    "swordfish": find_swordfish,
    "guess": find_guess,
}
