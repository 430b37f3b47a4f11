"""Naked and hidden subsets: pairs, triples and quads inside one unit.

- **naked pair / triple / quad**: 2 (3, 4) cells of a unit whose candidates together are
  2 (3, 4) digits: those digits leave the unit's other cells.
- **hidden pair / triple / quad**: 2 (3, 4) digits of a unit that together have 2 (3, 4)
  places: those cells lose their other candidates.
"""

from __future__ import annotations

from itertools import combinations

from sudokubench.generate.techniques.board import Board, Step, bits, cells_of

__all__ = [
    "find_hidden_pair",
    "find_hidden_quad",
    "find_hidden_triple",
    "find_naked_pair",
    "find_naked_quad",
    "find_naked_triple",
]

_SIZE_WORD = {2: "pair", 3: "triple", 4: "quad"}


def _find_naked(board: Board, size: int) -> Step | None:
    shape = board.shape
    cand = board.cand
    for u, unit in enumerate(shape.units):
        open_cells = [k for k in unit if cand[k]]
        if len(open_cells) <= size:
            continue
        small = [k for k in open_cells if 2 <= cand[k].bit_count() <= size]
        for group in combinations(small, size):
            union = 0
            for k in group:
                union |= cand[k]
            if union.bit_count() != size:
                continue
            elims = [(k, d) for k in open_cells if k not in group for d in bits(cand[k] & union)]
            if elims:
                digits = bits(union)
                text = (
                    f"naked {_SIZE_WORD[size]} {board.syms(digits)} in {shape.unit_name(u)} "
                    f"({board.names(group)}): those cells take these digits, so "
                    f"{board.removals(elims)}"
                )
                name = f"naked_{_SIZE_WORD[size]}"
                return Step(name, tuple(group), tuple(digits), None, tuple(elims), text)
    return None


def _find_hidden(board: Board, size: int) -> Step | None:
    shape, n, cand = board.shape, board.n, board.cand
    where = [board.where(d) for d in range(n + 1)]
    for u, mask in enumerate(board.geo.unit_mask):
        places = {d: where[d] & mask for d in range(1, n + 1)}
        if sum(1 for d in places if places[d]) <= size:
            continue
        few = [d for d in range(1, n + 1) if 2 <= places[d].bit_count() <= size]
        for digits in combinations(few, size):
            union = 0
            for d in digits:
                union |= places[d]
            if union.bit_count() != size:
                continue
            keep = 0
            for d in digits:
                keep |= 1 << (d - 1)
            cells = cells_of(union)
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


def find_naked_quad(board: Board) -> Step | None:
    """Four cells of a unit whose candidates together are four digits."""
    return _find_naked(board, 4)


def find_hidden_pair(board: Board) -> Step | None:
    """Two digits of a unit with the same two places."""
    return _find_hidden(board, 2)


def find_hidden_triple(board: Board) -> Step | None:
    """Three digits of a unit with three places between them."""
    return _find_hidden(board, 3)


def find_hidden_quad(board: Board) -> Step | None:
    """Four digits of a unit with four places between them."""
    return _find_hidden(board, 4)
