"""Fish: a digit's places in some lines (the base) covered by as many crossing lines.

- **X-Wing / Swordfish / Jellyfish**: a digit whose places in 2 (3, 4) rows lie in 2 (3, 4)
  columns is removed from the rest of those columns (and with rows and columns swapped).
- **finned / sashimi X-Wing and Swordfish**: the same, except for some extra places (the fins)
  all in one box. Either a fin holds the digit or the fish does; the cells of the cover lines
  inside the fins' box lose it either way. Sashimi when a base line keeps only one place in
  the cover lines.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from sudokubench.generate.techniques.board import Board, Step, cells_of, geometry
from sudokubench.grid import Shape

__all__ = [
    "find_finned_swordfish",
    "find_finned_x_wing",
    "find_jellyfish",
    "find_swordfish",
    "find_x_wing",
]

_FISH_NAME = {2: ("x_wing", "X-Wing"), 3: ("swordfish", "Swordfish"), 4: ("jellyfish", "Jellyfish")}
_ORIENTATIONS = (("rows", "columns", False), ("columns", "rows", True))


def _spots(board: Board, d: int, transposed: bool) -> list[int]:
    """For each base line, the mask of cover-line indexes where d is a candidate."""
    n, geo = board.n, board.geo
    where = board.where(d)
    if not transposed:  # row i is bits i*n .. i*n+n-1 of the cell mask
        full = (1 << n) - 1
        return [(where >> (i * n)) & full for i in range(n)]
    spots = [0] * n
    for k in cells_of(where):
        spots[geo.col[k]] |= 1 << geo.row[k]
    return spots


def _indexes(mask: int) -> list[int]:
    return [j for j in range(mask.bit_length()) if mask >> j & 1]


def _fish_text(board, title, d, base_kind, cover_kind, chosen, cover, rest: str, elims) -> str:
    s = board.sym(d)
    base_names = " ".join(str(i + 1) for i in chosen)
    cover_names = " ".join(str(j + 1) for j in _indexes(cover))
    return (
        f"{title} on {s}: in {base_kind} {base_names}, {s} can only be in {cover_kind} "
        f"{cover_names}{rest}: {board.removals(elims)}"
    )


def _find_fish(board: Board, size: int) -> Step | None:
    n = board.n
    for d in range(1, n + 1):
        for base_kind, cover_kind, transposed in _ORIENTATIONS:
            spots = _spots(board, d, transposed)
            lines = [i for i in range(n) if 2 <= spots[i].bit_count() <= size]
            for chosen in combinations(lines, size):
                cover = 0
                for i in chosen:
                    cover |= spots[i]
                if cover.bit_count() != size:
                    continue
                elims = [
                    ((j * n + i) if transposed else (i * n + j), d)
                    for j in _indexes(cover)
                    for i in range(n)
                    if i not in chosen and spots[i] >> j & 1
                ]
                if elims:
                    corners = [
                        (j * n + i) if transposed else (i * n + j)
                        for i in chosen
                        for j in _indexes(spots[i])
                    ]
                    key, title = _FISH_NAME[size]
                    rest = f", so those {cover_kind} have no other {board.sym(d)}"
                    text = _fish_text(
                        board, title, d, base_kind, cover_kind, chosen, cover, rest, elims
                    )
                    return Step(key, tuple(sorted(corners)), (d,), None, tuple(sorted(elims)), text)
    return None


@cache
def _bands(shape: Shape, transposed: bool) -> tuple[tuple[int, int], ...]:
    """Per box: (mask of its base-line indexes, mask of its cover-line indexes)."""
    geo = geometry(shape)
    found = []
    for b in range(shape.n):
        cells = shape.boxes[b]
        rows = sum(1 << i for i in {geo.row[k] for k in cells})
        cols = sum(1 << j for j in {geo.col[k] for k in cells})
        found.append((cols, rows) if transposed else (rows, cols))
    return tuple(found)


def _find_finned(board: Board, size: int) -> Step | None:
    n = board.n
    for d in range(1, n + 1):
        for _, _, transposed in _ORIENTATIONS:
            spots = _spots(board, d, transposed)
            for band, stack in _bands(board.shape, transposed):
                # Base lines: their places off box b must fit in the `size` cover lines.
                off_box = [spots[i] & ~stack if band >> i & 1 else spots[i] for i in range(n)]
                lines = [i for i in range(n) if spots[i] and off_box[i].bit_count() <= size]
                for chosen in combinations(lines, size):
                    found = _finned_on(spots, size, chosen, band, stack)
                    if found is not None:
                        cover, fins, targets = found
                        cell = (lambda i, j: j * n + i) if transposed else (lambda i, j: i * n + j)
                        fin_cells = sorted(cell(i, j) for i, j in fins)
                        target_cells = sorted(cell(i, j) for i, j in targets)
                        return _finned_step(
                            board,
                            d,
                            size,
                            chosen,
                            spots,
                            cover,
                            fin_cells,
                            target_cells,
                            transposed,
                        )
    return None


def _finned_on(spots, size, chosen, band, stack):
    """(cover, fins, targets) of a finned fish on base lines `chosen` with fins in the box
    (band x stack), if it removes something; None otherwise."""
    if not any(band >> i & 1 and spots[i] & stack for i in chosen):
        return None
    outside = 0  # cover indexes of the places outside the box
    for i in chosen:
        outside |= spots[i] & ~stack if band >> i & 1 else spots[i]
    if outside.bit_count() > size:
        return None
    for extra in combinations(_indexes(stack & ~outside), size - outside.bit_count()):
        cover = outside | sum(1 << j for j in extra)
        if not cover & stack or any(not spots[i] & cover for i in chosen):
            continue
        fins = [(i, j) for i in chosen for j in _indexes(spots[i] & ~cover)]
        if not fins:
            continue
        targets = [
            (i, j)
            for j in _indexes(cover & stack)
            for i in _indexes(band)
            if i not in chosen and spots[i] >> j & 1
        ]
        if targets:
            return cover, fins, targets
    return None


def _finned_step(board, d, size, chosen, spots, cover, fins, targets, transposed) -> Step:
    base_kind, cover_kind = ("columns", "rows") if transposed else ("rows", "columns")
    sashimi = any((spots[i] & cover).bit_count() < 2 for i in chosen)
    key, title = _FISH_NAME[size]
    kind = "sashimi" if sashimi else "finned"
    elims = sorted((k, d) for k in targets)
    rest = (
        f" but for the fin{'s' if len(fins) > 1 else ''} {board.names(fins)}; either a fin "
        f"is {board.sym(d)} or the {title} holds, and both rule out {board.sym(d)} in the cover "
        f"cells of the fins' box"
    )
    text = _fish_text(
        board, f"{kind} {title}", d, base_kind, cover_kind, chosen, cover, rest, elims
    )
    return Step(f"{kind}_{key}", tuple(fins), (d,), None, tuple(elims), text)


def find_x_wing(board: Board) -> Step | None:
    """A digit with two places in each of two rows (columns), in the same two columns (rows)."""
    return _find_fish(board, 2)


def find_swordfish(board: Board) -> Step | None:
    """The three-line X-Wing: three rows (columns) whose places lie in three columns (rows)."""
    return _find_fish(board, 3)


def find_jellyfish(board: Board) -> Step | None:
    """The four-line X-Wing."""
    return _find_fish(board, 4)


def find_finned_x_wing(board: Board) -> Step | None:
    """An X-Wing with fins in one box (finned or sashimi)."""
    return _find_finned(board, 2)


def find_finned_swordfish(board: Board) -> Step | None:
    """A Swordfish with fins in one box (finned or sashimi)."""
    return _find_finned(board, 3)
