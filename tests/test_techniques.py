"""The advanced techniques: each on a crafted candidate grid where it applies (the elimination
worked out by hand in the comment) and on a near miss where it must not.

Positions start from an empty 9x9 board (every candidate everywhere) and restrict a digit to a
few places (`keep`) or a cell to a few candidates (`only`), so the pattern under test is the
only structure on the board. Soundness on real puzzles (no step ever removes a solution digit)
is checked on the shipped collections in `test_every_step_on_the_collections`.
"""

from __future__ import annotations

import pytest
from support import collection

from sudokubench import Grid
from sudokubench.generate import make_puzzle, rate, rate_with
from sudokubench.generate.rating import TECHNIQUES
from sudokubench.generate.techniques import (
    Board,
    find_aic,
    find_als_xy_wing,
    find_als_xz,
    find_bug_plus_one,
    find_empty_rectangle,
    find_finned_swordfish,
    find_finned_x_wing,
    find_forcing,
    find_hidden_quad,
    find_hidden_rectangle,
    find_jellyfish,
    find_naked_quad,
    find_pointing,
    find_remote_pair,
    find_simple_colouring,
    find_skyscraper,
    find_sue_de_coq,
    find_swordfish,
    find_turbot_fish,
    find_two_string_kite,
    find_unique_rectangle,
    find_w_wing,
    find_x_chain,
    find_xy_chain,
    find_xyz_wing,
)
from sudokubench.grid import shape_of

SHAPE = shape_of(3, 3)


def cell(r: int, c: int, n: int = 9) -> int:
    """Cell index from 1-based row and column."""
    return (r - 1) * n + (c - 1)


def open_board(shape=SHAPE) -> Board:
    """An empty board: every cell has every candidate."""
    return Board(Grid.empty(shape))


def keep_in(board: Board, d: int, unit: list[int], rc: list[tuple[int, int]]) -> None:
    """Within `unit` only, digit d stays only in the cells (r, c)."""
    chosen = {cell(r, c, board.n) for r, c in rc}
    for k in unit:
        if k not in chosen:
            board.cand[k] &= ~(1 << (d - 1))


def only(board: Board, r: int, c: int, *digits: int) -> None:
    """Cell (r, c) keeps exactly `digits`."""
    board.cand[cell(r, c, board.n)] = sum(1 << (d - 1) for d in digits)


def row(r: int) -> list[int]:
    return [cell(r, c) for c in range(1, 10)]


def col(c: int) -> list[int]:
    return [cell(r, c) for r in range(1, 10)]


def box(b: int, shape=SHAPE) -> list[int]:
    return list(shape.boxes[b - 1])


def cells(*rc: tuple[int, int]) -> set[int]:
    return {cell(r, c) for r, c in rc}


# -- pointing triple (the name) ------------------------------------------------------------------


def test_pointing_triple_is_named_a_triple() -> None:
    board = open_board()
    keep_in(board, 5, box(1), [(1, 1), (1, 2), (1, 3)])
    step = find_pointing(board)
    assert step.technique == "pointing_triple"
    assert step.text.startswith("pointing triple: in box 1, 5 can only be in row 1")
    board = open_board()
    keep_in(board, 5, box(1), [(1, 1), (1, 2)])
    assert find_pointing(board).technique == "pointing_pair"


# -- single-digit patterns -----------------------------------------------------------------------


def test_skyscraper() -> None:
    # 1 in column 1 only at r1, r8; in column 5 only at r2, r8: the bases r8c1, r8c5 share
    # row 8, so r1c1 or r2c5 is 1: r1c4, r1c6 (row 1, box 2) and r2c2, r2c3 (row 2, box 1)
    # lose it (r1c5 and r2c1 are already out by the columns).
    board = open_board()
    keep_in(board, 1, col(1), [(1, 1), (8, 1)])
    keep_in(board, 1, col(5), [(2, 5), (8, 5)])
    step = find_skyscraper(board)
    assert step.technique == "skyscraper"
    assert {k for k, _ in step.eliminations} == cells((1, 4), (1, 6), (2, 2), (2, 3))
    assert "skyscraper on 1" in step.text
    board = open_board()
    keep_in(board, 1, col(1), [(1, 1), (8, 1)])
    keep_in(board, 1, col(5), [(2, 5), (7, 5)])  # bases r8c1, r7c5 do not see each other
    assert find_skyscraper(board) is None


def test_two_string_kite() -> None:
    # Row 1: 1 at c2, c7; column 1: 1 at r3, r8. r1c2 and r3c1 share box 1, so r1c7 or r8c1 is 1:
    # r8c7 sees both and loses 1.
    board = open_board()
    keep_in(board, 1, row(1), [(1, 2), (1, 7)])
    keep_in(board, 1, col(1), [(3, 1), (8, 1)])
    step = find_two_string_kite(board)
    assert step.eliminations == ((cell(8, 7), 1),)
    board = open_board()
    keep_in(board, 1, row(1), [(1, 2), (1, 7)])
    keep_in(board, 1, col(1), [(4, 1), (8, 1)])  # r4c1 is not in r1c2's box
    assert find_two_string_kite(board) is None


def test_turbot_fish() -> None:
    # Box 1: 1 at r1c1, r3c3; row 5: 1 at c3, c8. r3c3 and r5c3 share column 3, so r1c1 or r5c8
    # is 1: r1c8 sees both (r5c1 does too but row 5 has no other 1).
    board = open_board()
    keep_in(board, 1, box(1), [(1, 1), (3, 3)])
    keep_in(board, 1, row(5), [(5, 3), (5, 8)])
    step = find_turbot_fish(board)
    assert step.eliminations == ((cell(1, 8), 1),)
    board = open_board()
    keep_in(board, 1, box(1), [(1, 1), (3, 3)])
    keep_in(board, 1, row(5), [(5, 4), (5, 8)])
    assert find_turbot_fish(board) is None


def test_empty_rectangle() -> None:
    # Box 5: 1 only at r5c4, r5c6, r4c5, r6c5 (the cross of row 5 and column 5). Column 1: 1
    # only at r2c1, r5c1. If r2c1 is not 1, r5c1 is, so the box's 1 is in column 5: either way
    # r2c5 is not 1.
    board = open_board()
    keep_in(board, 1, box(5), [(5, 4), (5, 6), (4, 5), (6, 5)])
    keep_in(board, 1, col(1), [(2, 1), (5, 1)])
    step = find_empty_rectangle(board)
    assert step.eliminations == ((cell(2, 5), 1),)
    assert "empty rectangle on 1: in box 5" in step.text
    board = open_board()
    keep_in(board, 1, box(5), [(5, 4), (5, 6), (4, 5), (6, 5), (4, 4)])  # r4c4: no cross
    keep_in(board, 1, col(1), [(2, 1), (5, 1)])
    assert find_empty_rectangle(board) is None


def test_simple_colouring_wrap() -> None:
    # Conjugate pairs on 1: row 1 (c1, c5), column 5 (r1, r5), row 5 (c5, c2), column 2 (r5, r2).
    # Colours: r1c1, r5c5, r2c2 / r1c5, r5c2. r1c1 and r2c2 share box 1: their colour is false.
    board = open_board()
    keep_in(board, 1, row(1), [(1, 1), (1, 5)])
    keep_in(board, 1, col(5), [(1, 5), (5, 5)])
    keep_in(board, 1, row(5), [(5, 5), (5, 2)])
    keep_in(board, 1, col(2), [(5, 2), (2, 2)])
    step = find_simple_colouring(board)
    assert "colour wrap" in step.text
    assert set(step.eliminations) == {(k, 1) for k in cells((1, 1), (5, 5), (2, 2))}
    board = open_board()
    keep_in(board, 1, row(1), [(1, 1), (1, 5)])
    keep_in(board, 1, col(5), [(1, 5), (5, 5)])  # three cells: nothing seen by both colours
    assert find_simple_colouring(board) is None


def test_x_chain() -> None:
    # 1 in row 1 at c1, c5 and in column 6 at r2, r6: r1c1 = r1c5 - r2c6 = r6c6 (r1c5, r2c6 share
    # box 2), so r1c1 or r6c6 is 1 and r6c1 loses it.
    board = open_board()
    keep_in(board, 1, row(1), [(1, 1), (1, 5)])
    keep_in(board, 1, col(6), [(2, 6), (6, 6)])
    step = find_x_chain(board)
    assert step.eliminations == ((cell(6, 1), 1),)
    assert "r1c1(1) = r1c5(1) - r2c6(1) = r6c6(1)" in step.text
    board = open_board()
    keep_in(board, 1, row(1), [(1, 1), (1, 5)])
    assert find_x_chain(board) is None


# -- wings and subsets ---------------------------------------------------------------------------


def test_xyz_wing() -> None:
    # Pivot r1c1 {1,2,3}, r1c5 {1,3}, r2c2 {2,3}: one is 3, so r1c2, r1c3 (seeing all) lose 3.
    board = open_board()
    only(board, 1, 1, 1, 2, 3)
    only(board, 1, 5, 1, 3)
    only(board, 2, 2, 2, 3)
    step = find_xyz_wing(board)
    assert set(step.eliminations) == {(cell(1, 2), 3), (cell(1, 3), 3)}
    only(board, 1, 5, 1, 4)
    assert find_xyz_wing(board) is None


def test_w_wing() -> None:
    # r1c1 and r5c9 are {1,2}; row 9 has 1 only at c1 and c9 (seeing r1c1 and r5c9): one of the
    # two cells is 2, so r1c9 and r5c1 lose 2.
    board = open_board()
    only(board, 1, 1, 1, 2)
    only(board, 5, 9, 1, 2)
    keep_in(board, 1, row(9), [(9, 1), (9, 9)])
    step = find_w_wing(board)
    assert set(step.eliminations) == {(cell(1, 9), 2), (cell(5, 1), 2)}
    keep_in(board, 1, row(9), [(9, 1), (9, 5), (9, 9)])
    board.cand[cell(9, 5)] |= 1  # three places for 1 in row 9: no link
    assert find_w_wing(board) is None


def test_remote_pair() -> None:
    # {1,2} at r1c1, r1c5, r4c5, r4c8, each seeing the next: r1c1 and r4c5 hold one digit,
    # r1c5 and r4c8 the other. r1c8 sees r1c1 and r4c8; r4c1 sees r1c1 and r4c5... and r4c8.
    board = open_board()
    for r, c in ((1, 1), (1, 5), (4, 5), (4, 8)):
        only(board, r, c, 1, 2)
    step = find_remote_pair(board)
    removed = set(step.eliminations)
    assert {(cell(1, 8), 1), (cell(1, 8), 2), (cell(4, 1), 1), (cell(4, 1), 2)} <= removed
    assert not {k for k, _ in removed} & cells((2, 2), (9, 9))  # r2c2 sees only r1c1
    board = open_board()
    for r, c in ((1, 1), (1, 5), (4, 5)):
        only(board, r, c, 1, 2)
    assert find_remote_pair(board) is None


def test_naked_and_hidden_quads() -> None:
    board = open_board()
    for c, digits in ((1, (1, 2)), (2, (2, 3)), (3, (3, 4)), (4, (1, 4))):
        only(board, 1, c, *digits)
    step = find_naked_quad(board)
    assert step.technique == "naked_quad"
    assert set(step.eliminations) == {(cell(1, c), d) for c in range(5, 10) for d in (1, 2, 3, 4)}
    only(board, 1, 4, 1, 5)
    assert find_naked_quad(board) is None
    board = open_board()
    for d in (1, 2, 3, 4):
        keep_in(board, d, row(1), [(1, 1), (1, 2), (1, 3), (1, 4)])
    step = find_hidden_quad(board)
    assert set(step.eliminations) == {(cell(1, c), d) for c in (1, 2, 3, 4) for d in range(5, 10)}
    board.cand[cell(1, 9)] |= 1 << 3  # 4 also in r1c9: five cells
    assert find_hidden_quad(board) is None


# -- fish ----------------------------------------------------------------------------------------


def test_jellyfish() -> None:
    # 1 in rows 1, 3, 5, 7 only in columns 1, 3, 5, 7 (two each, no three rows in three columns).
    board = open_board()
    spots = {1: (1, 3), 3: (3, 5), 5: (5, 7), 7: (7, 1)}
    for r, cs in spots.items():
        keep_in(board, 1, row(r), [(r, c) for c in cs])
    assert find_swordfish(board) is None
    step = find_jellyfish(board)
    assert set(step.eliminations) == {
        (cell(r, c), 1) for c in (1, 3, 5, 7) for r in range(1, 10) if r not in spots
    }
    board = open_board()
    spots[7] = (7, 9)
    for r, cs in spots.items():
        keep_in(board, 1, row(r), [(r, c) for c in cs])
    assert find_jellyfish(board) is None


def test_finned_and_sashimi_x_wing() -> None:
    # Row 1: 1 at c2, c8; row 5: at c2, c8 and the fin c9 (box 6). Either the X-Wing holds or
    # r5c9 is 1: r4c8, r6c8 (column 8, inside box 6) lose 1.
    board = open_board()
    keep_in(board, 1, row(1), [(1, 2), (1, 8)])
    keep_in(board, 1, row(5), [(5, 2), (5, 8), (5, 9)])
    step = find_finned_x_wing(board)
    assert step.technique == "finned_x_wing"
    assert set(step.eliminations) == {(cell(4, 8), 1), (cell(6, 8), 1)}
    # Sashimi: row 5 has c2 and the fin c7, no c8: r4c8, r6c8 lose 1 (fin r5c7, cover c2 c8),
    # and symmetrically r2c7, r3c7 (fin r1c8, cover c2 c7): the first box searched wins.
    board = open_board()
    keep_in(board, 1, row(1), [(1, 2), (1, 8)])
    keep_in(board, 1, row(5), [(5, 2), (5, 7)])
    step = find_finned_x_wing(board)
    assert step.technique == "sashimi_x_wing"
    assert set(step.eliminations) in (
        {(cell(4, 8), 1), (cell(6, 8), 1)},
        {(cell(2, 7), 1), (cell(3, 7), 1)},
    )
    board = open_board()
    keep_in(board, 1, row(1), [(1, 2), (1, 8)])
    keep_in(board, 1, row(5), [(5, 2), (5, 8), (5, 4)])  # fin in box 5, no cover column there
    assert find_finned_x_wing(board) is None


def test_finned_swordfish() -> None:
    # Rows 1, 4, 7 in columns 1, 4, 7, with a fin r7c8 (box 9): r8c7, r9c7 lose 1.
    board = open_board()
    for r, cs in ((1, (1, 4)), (4, (4, 7)), (7, (1, 7, 8))):
        keep_in(board, 1, row(r), [(r, c) for c in cs])
    step = find_finned_swordfish(board)
    assert step.technique == "finned_swordfish"
    assert set(step.eliminations) == {(cell(8, 7), 1), (cell(9, 7), 1)}
    board = open_board()
    for r, cs in ((1, (1, 4)), (4, (4, 7)), (7, (1, 2, 7, 9))):  # fins in boxes 7 and 9
        keep_in(board, 1, row(r), [(r, c) for c in cs])
    assert find_finned_swordfish(board) is None


# -- uniqueness ----------------------------------------------------------------------------------


def rectangle(board: Board, roof: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    """Floor r1c1, r2c1 = {1,2}; roof r1c4, r2c4 with the given candidates."""
    only(board, 1, 1, 1, 2)
    only(board, 2, 1, 1, 2)
    only(board, 1, 4, *roof[0])
    only(board, 2, 4, *roof[1])


def test_unique_rectangle_type_1() -> None:
    board = open_board()
    rectangle(board, ((1, 2), (1, 2, 3, 4)))
    step = find_unique_rectangle(board)
    assert step.technique == "unique_rectangle_1"
    assert set(step.eliminations) == {(cell(2, 4), 1), (cell(2, 4), 2)}
    board = open_board()  # rows 1 and 5, columns 1 and 4: four boxes, no deadly pattern
    for r, c in ((1, 1), (1, 4), (5, 1)):
        only(board, r, c, 1, 2)
    only(board, 5, 4, 1, 2, 3, 4)
    assert find_unique_rectangle(board) is None


def test_unique_rectangle_type_2() -> None:
    # Roof {1,2,5} twice: one of r1c4, r2c4 is 5; column 4 and box 2 lose 5 elsewhere.
    board = open_board()
    rectangle(board, ((1, 2, 5), (1, 2, 5)))
    step = find_unique_rectangle(board)
    assert step.technique == "unique_rectangle_2"
    expected = (set(col(4)) | set(box(2))) - cells((1, 4), (2, 4))
    assert set(step.eliminations) == {(k, 5) for k in expected}
    board = open_board()
    rectangle(board, ((1, 2, 5), (1, 2, 6)))
    assert find_unique_rectangle(board) is None


def test_unique_rectangle_type_3() -> None:
    # Roof extras {5} and {6}; r5c4 {5,6} in column 4 makes a naked pair with the roof's extra.
    board = open_board()
    rectangle(board, ((1, 2, 5), (1, 2, 6)))
    only(board, 5, 4, 5, 6)
    step = find_unique_rectangle(board)
    assert step.technique == "unique_rectangle_3"
    rest = set(col(4)) - cells((1, 4), (2, 4), (5, 4))
    assert set(step.eliminations) == {(k, d) for k in rest for d in (5, 6)}
    only(board, 5, 4, 5, 7)
    assert find_unique_rectangle(board) is None


def test_unique_rectangle_type_4() -> None:
    # 1 in column 4 only in the roof: one of them is 1, so neither is 2.
    board = open_board()
    rectangle(board, ((1, 2, 5), (1, 2, 6)))
    keep_in(board, 1, col(4), [(1, 4), (2, 4)])
    step = find_unique_rectangle(board)
    assert step.technique == "unique_rectangle_4"
    assert set(step.eliminations) == {(cell(1, 4), 2), (cell(2, 4), 2)}
    board.cand[cell(6, 4)] |= 1  # a third place for 1 in column 4
    assert find_unique_rectangle(board) is None


def test_hidden_rectangle() -> None:
    # r1c1 {1,2}; 1 in row 2 only at c1, c4 and in column 4 only at r1, r2: r2c4 = 2 would force
    # r2c1 = r1c4 = 1 and r1c1 = 2, the deadly pattern. So r2c4 is not 2.
    board = open_board()
    only(board, 1, 1, 1, 2)
    keep_in(board, 1, row(2), [(2, 1), (2, 4)])
    keep_in(board, 1, col(4), [(1, 4), (2, 4)])
    step = find_hidden_rectangle(board)
    assert step.eliminations == ((cell(2, 4), 2),)
    board.cand[cell(2, 7)] |= 1
    assert find_hidden_rectangle(board) is None


def test_bug_plus_one() -> None:
    # Rows 1-2 x columns 1, 4, 7 hold {1,2}, {2,3}, {1,3} twice: every digit twice in every
    # unit, a BUG (two solutions). r1c1 also holds 3, three times in row 1: r1c1 = 3.
    board = open_board()
    board.cand = [0] * 81
    for r in (1, 2):
        only(board, r, 1, 1, 2)
        only(board, r, 4, 2, 3)
        only(board, r, 7, 1, 3)
    only(board, 1, 1, 1, 2, 3)
    step = find_bug_plus_one(board)
    assert step.placement == (cell(1, 1), 3)
    only(board, 5, 5, 5, 6)  # 5 and 6 once in row 5: no BUG without the 3, nothing follows
    assert find_bug_plus_one(board) is None
    only(board, 5, 5)
    only(board, 1, 9, 1, 2, 4)  # two cells with three candidates
    assert find_bug_plus_one(board) is None


# -- chains and sets -----------------------------------------------------------------------------


def test_xy_chain() -> None:
    # r1c1 {1,2} - r1c5 {2,3} - r5c5 {3,4} - r5c9 {4,1}: r1c1 or r5c9 is 1, so r1c9 and r5c1 lose 1.
    board = open_board()
    for (r, c), ds in {(1, 1): (1, 2), (1, 5): (2, 3), (5, 5): (3, 4), (5, 9): (4, 1)}.items():
        only(board, r, c, *ds)
    step = find_xy_chain(board)
    assert set(step.eliminations) == {(cell(1, 9), 1), (cell(5, 1), 1)}
    only(board, 5, 9, 4, 5)
    assert find_xy_chain(board) is None


def test_aic() -> None:
    # (1)r1c1 = (2)r1c1 - (2)r1c6 = (2)r7c6 - (1)r7c6 = (1)r7c2: r1c1 or r7c2 is 1, so the cells
    # seeing both lose 1: r1c2, r2c2, r3c2 (column 2) and r8c1, r9c1 (box 7).
    board = open_board()
    only(board, 1, 1, 1, 2)
    keep_in(board, 2, col(6), [(1, 6), (7, 6)])
    keep_in(board, 1, row(7), [(7, 6), (7, 2)])
    step = find_aic(board)
    assert set(step.eliminations) == {(k, 1) for k in cells((1, 2), (2, 2), (3, 2), (8, 1), (9, 1))}
    assert "r1c1(1) = r1c1(2) - r1c6(2) = r7c6(2) - r7c6(1) = r7c2(1)" in step.text
    only(board, 1, 1, 1, 2, 3)
    assert find_aic(board) is None


def test_als_xz() -> None:
    # A = r1c1 {1,2}, B = r5c1 {1,3} + r5c2 {2,3}; 1 is restricted (r1c1 sees r5c1): one of them
    # is locked without 1, so 2 is in r1c1 or r5c2 and the cells seeing both lose it.
    board = open_board()
    only(board, 1, 1, 1, 2)
    only(board, 5, 1, 1, 3)
    only(board, 5, 2, 2, 3)
    step = find_als_xz(board)
    assert set(step.eliminations) == {(k, 2) for k in cells((1, 2), (2, 2), (3, 2), (4, 1), (6, 1))}
    only(board, 5, 2, 3, 4)
    assert find_als_xz(board) is None


def test_als_xy_wing() -> None:
    # Pivot C = r5c5 {1,2}; A = r1c5 {1,3} (1 restricted with C), B = r5c1 {2,3} (2 restricted):
    # 3 is in A or B, so r1c1 loses it.
    board = open_board()
    only(board, 5, 5, 1, 2)
    only(board, 1, 5, 1, 3)
    only(board, 5, 1, 2, 3)
    step = find_als_xy_wing(board)
    assert step.eliminations == ((cell(1, 1), 3),)
    only(board, 5, 1, 2, 4)
    assert find_als_xy_wing(board) is None


def test_sue_de_coq() -> None:
    # r1c1, r1c2 {1,2,3,4}; r1c5 {1,2} in row 1, r2c1 {3,4} in box 1: four cells, four digits.
    # 1, 2 leave the rest of row 1; 3, 4 the rest of box 1 (r1c3 is in both).
    board = open_board()
    only(board, 1, 1, 1, 2, 3, 4)
    only(board, 1, 2, 1, 2, 3, 4)
    only(board, 1, 5, 1, 2)
    only(board, 2, 1, 3, 4)
    step = find_sue_de_coq(board)
    line = set(row(1)) - cells((1, 1), (1, 2), (1, 5))
    square = set(box(1)) - cells((1, 1), (1, 2), (2, 1))
    expected = {(k, d) for k in line for d in (1, 2)} | {(k, d) for k in square for d in (3, 4)}
    assert set(step.eliminations) == expected
    only(board, 2, 1, 3, 5)
    assert find_sue_de_coq(board) is None


# -- other shapes ----------------------------------------------------------------------------------


def test_patterns_on_rectangular_boxes() -> None:
    """6x6, boxes of 2 rows x 3 columns: a skyscraper and a unique rectangle."""
    shape = shape_of(2, 3)
    board = open_board(shape)
    # 1 in column 1 at r1, r5 and in column 4 at r2, r5: the bases r5c1, r5c4 share row 5.
    keep_in(board, 1, list(shape.cols[0]), [(1, 1), (5, 1)])
    keep_in(board, 1, list(shape.cols[3]), [(2, 4), (5, 4)])
    step = find_skyscraper(board)
    # r1c1 (box 1) or r2c4 (box 2) is 1: r1c5, r1c6 (row 1, box 2) and r2c2, r2c3 (row 2, box 1).
    assert {k for k, _ in step.eliminations} == {
        cell(1, 5, 6),
        cell(1, 6, 6),
        cell(2, 2, 6),
        cell(2, 3, 6),
    }
    board = open_board(shape)
    for r, c in ((1, 1), (1, 4), (2, 1)):
        only(board, r, c, 1, 2)
    only(board, 2, 4, 1, 2, 3)  # rows 1-2 (one band), columns 1 and 4 (two boxes)
    step = find_unique_rectangle(board)
    assert step.eliminations == ((cell(2, 4, 6), 1), (cell(2, 4, 6), 2))


# -- the last resort -----------------------------------------------------------------------------


def test_forcing_on_a_hard_puzzle_agrees_with_the_solution() -> None:
    record = collection("hardest", 1)[0]
    solution = rate(record.puzzle).solution
    board = Board(record.puzzle)
    step = find_forcing(board)
    assert step.technique in ("forcing_chain", "forcing_net")
    if step.placement:
        assert solution[step.placement[0]] == step.placement[1]
    assert all(solution[k] != d for k, d in step.eliminations)
    assert "rounds" in step.text
    assert find_forcing(open_board()) is None  # nothing forces anything on an empty board


# -- soundness on real puzzles -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["top95", "easy50", "hardest"])
def test_every_step_on_the_collections(name: str) -> None:
    """`rate_with` checks every step against the solution (raising AssertionError if a
    technique removed a solution digit)."""
    used = set()
    for record in collection(name):
        rating = rate(record.puzzle)
        used.update(rating.techniques)
    assert used


@pytest.mark.slow
def test_every_step_on_generated_puzzles() -> None:
    for seed in range(40):
        puzzle, solution = make_puzzle(SHAPE, seed)
        rating = rate_with(puzzle, solution)
        assert rating.steps


def test_ladder_keys_are_unique_and_titled() -> None:
    keys = [t.key for t in TECHNIQUES]
    assert len(keys) == len(set(keys))
    assert all(t.title for t in TECHNIQUES)
