"""Published technique examples: HoDoKu's "Solving Technique Index" pages (hodoku.sourceforge.net,
by Bernhard Hobiger, GNU FDL 1.3), each a candidate grid typed from the page with the
elimination the page states. Each test checks that our finder makes that elimination (among
the steps of that technique it can take on the grid, applied in turn) and that the eliminated
digits are not in the puzzle's solution, which is computed from the page's original puzzle.
Each example also has a "broken" test: the same grid without one false candidate of the
pattern, where the finder must not make the elimination. Helpers in published.py; the other
techniques are in test_published_examples_patterns.py and test_published_examples_chains.py.
"""

from __future__ import annotations

from published import candidates, cell, check, check_not, edited, hodoku, pencilmarks

from sudokubench.generate.techniques import (
    find_als_xy_wing,
    find_hidden_rectangle,
    find_remote_pair,
    find_skyscraper,
    find_two_string_kite,
    find_unique_rectangle,
    find_w_wing,
    find_xy_wing,
)

SK01 = (
    "...........19.2.6......679.9.2...6..37....95...5.....414...3..57.9.24......8.....",
    """
6 9 7 | 1345 13458 158 | 1458 148 2
45 58 1 | 9 7 2 | 458 6 3
245 258 3 | 145 1458 6 | 7 9 18
9 1 2 | 345 3458 58 | 6 38 7
3 7 4 | 2 6 18 | 9 5 18
8 6 5 | 7 13 9 | 13 2 4
1 4 8 | 6 9 3 | 2 7 5
7 35 9 | 15 2 4 | 138 138 6
25 235 6 | 8 15 7 | 134 134 9
""",
)


def test_skyscraper_hodoku_sk01() -> None:
    # show_example.php?file=sk01&tech=Skyscraper: "1 in r1c6,r3c9 (connected by r5c69)
    # => r1c78,r3c45<>1".
    expected = {(cell(1, 7), 1), (cell(1, 8), 1), (cell(3, 4), 1), (cell(3, 5), 1)}
    check(*SK01, find_skyscraper, expected)


def test_skyscraper_broken_hodoku_sk01() -> None:
    # Without the (false) 1 of r1c6, column 6 has its 1 only in r5c6: no conjugate pair, no
    # skyscraper, and r1c78, r3c45 keep their 1.
    puzzle, grid = SK01
    board = edited(pencilmarks(grid), removed=[(cell(1, 6), 1)])
    check_not(
        puzzle,
        board,
        find_skyscraper,
        {(cell(1, 7), 1), (cell(1, 8), 1), (cell(3, 4), 1), (cell(3, 5), 1)},
    )


W02 = (
    "6......7.....2.....58..1.....4.....2...1..9.6597.4...892.4..6.....5.......68.3...",
    """
6 134 123 | 9 5 48 | 12348 7 14
347 1347 9 | 67 2 48 | 13458 136 145
247 5 8 | 67 3 1 | 24 269 49
1 6 4 | 3 8 9 | 7 5 2
238 38 23 | 1 7 5 | 9 4 6
5 9 7 | 2 4 6 | 13 13 8
9 2 5 | 4 1 7 | 6 8 3
3478 13478 13 | 5 6 2 | 14 19 1479
47 147 6 | 8 9 3 | 1245 12 1457
""",
)


def test_w_wing_hodoku_w02() -> None:
    # file=w02&tech=W-Wing: "4/1 in r1c9,r8c7 connected by 1 in r18c3 => r123c7,r89c9<>4".
    expected = {(cell(r, 7), 4) for r in (1, 2, 3)} | {(cell(r, 9), 4) for r in (8, 9)}
    check(*W02, find_w_wing, expected)


def test_w_wing_broken_hodoku_w02() -> None:
    # Without the 1 of r1c3, column 3's 1 is only in r8c3: nothing joins the two {1,4} cells.
    puzzle, grid = W02
    board = edited(pencilmarks(grid), removed=[(cell(1, 3), 1)])
    check_not(
        puzzle,
        board,
        find_w_wing,
        {(cell(r, 7), 4) for r in (1, 2, 3)} | {(cell(r, 9), 4) for r in (8, 9)},
    )


XY01 = (
    "....6........1.863..3..9...9.4......3.....7.457.82.........658.69...7.......4..3.",
    """
8 145 57 | 3 6 25 | 9 147 12
27 45 9 | 47 1 25 | 8 6 3
127 6 3 | 47 8 9 | 24 147 5
9 2 4 | 6 7 3 | 1 5 8
3 8 6 | 9 5 1 | 7 2 4
5 7 1 | 8 2 4 | 3 9 6
4 3 2 | 1 9 6 | 5 8 7
6 9 8 | 5 3 7 | 24 14 12
17 15 57 | 2 4 8 | 6 3 9
""",
)


def test_xy_wing_hodoku_xy01() -> None:
    # file=xy01&tech=XY-Wing: "5/7/2 in r1c36,r2c1 => r2c6<>2".
    check(*XY01, find_xy_wing, {(cell(2, 6), 2)})


def test_xy_wing_broken_hodoku_xy01() -> None:
    # Without the 5 of r1c6 the wing is {2} alone, not a pair: no XY-Wing, r2c6 keeps its 2.
    puzzle, grid = XY01
    board = edited(pencilmarks(grid), removed=[(cell(1, 6), 5)])
    check_not(puzzle, board, find_xy_wing, {(cell(2, 6), 2)})


U101 = (
    ".....896.1..7......675..3..21...78....489...37....4..5.219....4................26",
    """
5 34 2 | 134 134 8 | 9 6 7
1 389 89 | 7 36 69 | 4 5 2
49 6 7 | 5 24 29 | 3 8 1
2 1 3 | 6 5 7 | 8 4 9
6 5 4 | 8 9 1 | 2 7 3
7 89 89 | 23 23 4 | 6 1 5
8 2 1 | 9 67 56 | 57 3 4
3 47 6 | 124 1247 25 | 157 9 8
49 479 5 | 14 8 3 | 17 2 6
""",
)


def test_unique_rectangle_type_1_hodoku_u101() -> None:
    # file=u101&tech=Unique+Rectangle+Type+1: "8/9 in r2c23,r6c23 => r2c2<>8, r2c2<>9".
    steps = check(*U101, find_unique_rectangle, {(cell(2, 2), 8), (cell(2, 2), 9)})
    assert steps[0].technique == "unique_rectangle_1"


def test_unique_rectangle_type_1_broken_hodoku_u101() -> None:
    # Without the 9 of r2c3 that corner is not 8/9: no rectangle, r2c2 keeps 8 and 9.
    puzzle, grid = U101
    board = edited(pencilmarks(grid), removed=[(cell(2, 3), 9)])
    check_not(puzzle, board, find_unique_rectangle, {(cell(2, 2), 8), (cell(2, 2), 9)})


U202 = (
    ".79.....6..5..14..6.............8.2..98.1.....1.2...54.......6885.4..2.3..6......",
    """
14 7 9 | 38 23458 235 | 135 18 6
3 28 5 | 6 2789 1 | 4 789 29
6 248 12 | 3789 2345789 23579 | 13579 1789 1259
5 6 4 | 379 379 8 | 19 2 19
2 9 8 | 5 1 4 | 6 3 7
7 1 3 | 2 69 69 | 8 5 4
149 234 127 | 1379 23579 23579 | 1579 6 8
8 5 17 | 4 679 679 | 2 179 3
19 23 6 | 13789 235789 23579 | 1579 4 159
""",
)


def test_unique_rectangle_type_2_hodoku_u202() -> None:
    # file=u202&tech=Unique+Rectangle+Type+2: rectangle 6/9 in r6c56, r8c56, the roof r8c56
    # {6,7,9}: 7 leaves the cells seeing both (the page marks r7c4, r7c5, r7c6 among them).
    expected = {(cell(7, c), 7) for c in (4, 5, 6)}
    steps = check(*U202, find_unique_rectangle, expected)
    assert steps[0].technique == "unique_rectangle_2"


def test_unique_rectangle_type_2_broken_hodoku_u202() -> None:
    # Without the 9 of r6c5 the floor r6c56 is not 6/9 twice: no rectangle, the 7s stay.
    puzzle, grid = U202
    board = edited(pencilmarks(grid), removed=[(cell(6, 5), 9)])
    check_not(puzzle, board, find_unique_rectangle, {(cell(7, c), 7) for c in (4, 5, 6)})


U402 = (
    "..9..7......6....3...5218...14..5..7.83...2...............8.64..6...3..17.......5",
    """
8 25 9 | 34 34 7 | 15 1256 26
145 2457 157 | 6 9 8 | 45 257 3
346 347 67 | 5 2 1 | 8 79 49
2 1 4 | 8 36 5 | 39 369 7
569 8 3 | 149 7 469 | 2 156 46
569 579 567 | 12349 1346 2469 | 145 1356 8
135 35 15 | 7 8 29 | 6 4 29
49 6 28 | 249 5 3 | 7 289 1
7 49 28 | 1249 146 2469 | 39 2389 5
""",
)


def test_unique_rectangle_type_4_hodoku_u402() -> None:
    # file=u402&tech=Unique+Rectangle+Type+4: 2/8 in r8c3, r9c3, r8c8, r9c8; 8 in column 8
    # only in r8c8, r9c8, so neither is 2.
    steps = check(*U402, find_unique_rectangle, {(cell(8, 8), 2), (cell(9, 8), 2)})
    assert any(s.technique == "unique_rectangle_4" for s in steps)


def test_unique_rectangle_type_4_broken_hodoku_u402() -> None:
    # Without the 8 of r8c3 that corner is not 2/8: no rectangle, r89c8 keep their 2.
    puzzle, grid = U402
    board = edited(pencilmarks(grid), removed=[(cell(8, 3), 8)])
    check_not(puzzle, board, find_unique_rectangle, {(cell(8, 8), 2), (cell(9, 8), 2)})


HR02 = (
    "....5.2..3..7.....7...9..1.9..1..746............5....9.29...4...6...4....8...23.1",
    """
68 9 168 | 4 5 136 | 2 378 37
3 145 2 | 7 8 16 | 56 9 45
7 45 468 | 2 9 36 | 568 1 345
9 3 5 | 1 2 8 | 7 4 6
28 7 148 | 6 34 9 | 158 238 235
268 14 1468 | 5 34 7 | 18 238 9
1 2 9 | 3 7 5 | 4 6 8
5 6 3 | 8 1 4 | 9 27 27
4 8 7 | 9 6 2 | 3 5 1
""",
)


def test_hidden_rectangle_hodoku_hr02() -> None:
    # file=hr02&tech=Hidden+Rectangle: "4/5 in r2c29,r3c29 => r2c9<>5".
    check(*HR02, find_hidden_rectangle, {(cell(2, 9), 5)})


def test_hidden_rectangle_broken_hodoku_hr02() -> None:
    # Without the 5 of r3c2 that corner is not 4/5: no rectangle, r2c9 keeps its 5.
    puzzle, grid = HR02
    board = edited(pencilmarks(grid), removed=[(cell(3, 2), 5)])
    check_not(puzzle, board, find_hidden_rectangle, {(cell(2, 9), 5)})


HR01 = (
    ".9...21.....73..2.52......81.3.47.......6..3.8.......57.68.4...9..........1.....4",
    """
3 9 4 | 6 8 2 | 1 5 7
6 1 8 | 7 3 5 | 4 2 9
5 2 7 | 4 19 19 | 3 6 8
1 5 3 | 29 4 7 | 289 89 6
4 7 29 | 5 6 8 | 29 3 1
8 6 29 | 1239 129 139 | 7 4 5
7 3 6 | 8 159 4 | 59 19 2
9 4 5 | 12 127 16 | 68 178 3
2 8 1 | 39 579 369 | 569 79 4
""",
)


def test_hidden_rectangle_hodoku_hr01() -> None:
    # file=hr01&tech=Hidden+Rectangle: "5/9 in r7c57,r9c57 => r9c5<>9".
    check(*HR01, find_hidden_rectangle, {(cell(9, 5), 9)})


def test_hidden_rectangle_broken_hodoku_hr01() -> None:
    # Without the 9 of r7c7 that corner is not 5/9: no rectangle, r9c5 keeps its 9.
    puzzle, grid = HR01
    board = edited(pencilmarks(grid), removed=[(cell(7, 7), 9)])
    check_not(puzzle, board, find_hidden_rectangle, {(cell(9, 5), 9)})


AXY01 = (
    "4.6....7......1.6.....8....23..........34.......8..95..9.........2.5761.5...2...4",
    """
4 125 6 | 25 39 359 | 12358 7 12589
89 258 3589 | 257 379 1 | 4 6 259
179 1257 359 | 6 8 4 | 1235 239 1259
2 3 589 | 57 1679 569 | 178 4 167
16789 1567 589 | 3 4 569 | 1278 28 1267
167 1467 147 | 8 167 2 | 9 5 3
678 9 14 | 14 36 368 | 23578 238 2578
3 48 2 | 49 5 7 | 6 1 89
5 1678 17 | 19 2 368 | 378 389 4
""",
)


def test_als_xy_wing_hodoku_axy01() -> None:
    # file=axy01&tech=ALS-XY-Wing: the step removes 3 from r7c7.
    check(*AXY01, find_als_xy_wing, {(cell(7, 7), 3)})


def test_als_xy_wing_broken_hodoku_axy01() -> None:
    # A (false) 8 in r9c3 gives the pivot r9c3, r9c4 four digits in two cells: no ALS.
    puzzle, grid = AXY01
    board = edited(pencilmarks(grid), added=[(cell(9, 3), 8)])
    check_not(puzzle, board, find_als_xy_wing, {(cell(7, 7), 3)})


RP01 = (
    "..845...6..3..1.........87........48.2.1.37...6..9....9...14.3.1.7.2..5.2........",
    """
7 9 8 | 4 5 2 | 3 1 6
6 45 3 | 7 8 1 | 45 9 2
45 1 2 | 69 3 69 | 8 7 45
3 7 19 | 2 6 5 | 19 4 8
8 2 59 | 1 4 3 | 7 6 59
45 6 145 | 8 9 7 | 15 2 3
9 8 56 | 56 1 4 | 2 3 7
1 34 7 | 369 2 8 | 469 5 49
2 345 456 | 3569 7 69 | 469 8 1
""",
)


def test_remote_pair_hodoku_rp01() -> None:
    # file=rp01&tech=Remote+Pair: "4/5 r2c7 -5- r2c2 -4- r3c1 -5- r6c1 => r6c7<>5".
    check(*RP01, find_remote_pair, {(cell(6, 7), 5)})


def test_remote_pair_broken_hodoku_rp01() -> None:
    # Without the 5 of r6c1 the chain's last cell is not {4,5}: r6c7 keeps its 5.
    puzzle, grid = RP01
    board = edited(pencilmarks(grid), removed=[(cell(6, 1), 5)])
    check_not(puzzle, board, find_remote_pair, {(cell(6, 7), 5)})


RP02 = (
    "1.8....5...4...6.72....3......5...4.6......9....91.7....73.........75.6.38.4.6..5",
    """
1 7 8 | 6 24 9 | 234 5 234
9 3 4 | 1 5 28 | 6 28 7
2 5 6 | 7 48 3 | 489 1 489
7 9 3 | 5 6 28 | 28 4 1
6 4 1 | 28 3 7 | 5 9 28
8 2 5 | 9 1 4 | 7 3 6
5 6 7 | 3 289 1 | 2489 28 2489
4 1 29 | 28 7 5 | 2389 6 2389
3 8 29 | 4 29 6 | 1 7 5
""",
)


def test_remote_pair_hodoku_rp02() -> None:
    # file=rp02&tech=Remote+Pair: eight cells {2,8} from r7c8 to r8c4 => r18c7,r7c59,r8c9<>2,
    # r38c7,r7c59,r8c9<>8.
    twos = {(cell(1, 7), 2), (cell(8, 7), 2), (cell(7, 5), 2), (cell(7, 9), 2), (cell(8, 9), 2)}
    eights = {(cell(3, 7), 8), (cell(8, 7), 8), (cell(7, 5), 8), (cell(7, 9), 8), (cell(8, 9), 8)}
    check(*RP02, find_remote_pair, twos | eights)


def test_remote_pair_broken_hodoku_rp02() -> None:
    # Without the 8 of r2c6 the eight-cell chain breaks there: r1c7 keeps its 2.
    puzzle, grid = RP02
    board = edited(pencilmarks(grid), removed=[(cell(2, 6), 8)])
    check_not(puzzle, board, find_remote_pair, {(cell(1, 7), 2)})


D2SK02 = (
    "...1.7......9.5.....3.8.5...9.....7...52.64..1.......87.......9..6.4.3...2.....1.",
    """
5 46 9 | 1 236 7 | 8 246 346
246 8 7 | 9 236 5 | 1 246 346
26 1 3 | 46 8 24 | 5 9 7
36 9 4 | 358 1 38 | 2 7 56
8 7 5 | 2 9 6 | 4 3 1
1 36 2 | 345 7 34 | 9 56 8
7 34 1 | 38 25 238 | 6 45 9
9 5 6 | 7 4 1 | 3 8 2
34 2 8 | 36 56 9 | 7 1 45
""",
)


def test_two_string_kites_hodoku_d2sk02() -> None:
    # file=d2sk02&tech=Dual+2-String+Kite: "4 in r2c1,r7c8/in r1c2,r9c9 (connected by r7c2,r9c1)
    # => r1c9,r2c8<>4": two kites sharing box 7, one elimination each.
    check(*D2SK02, find_two_string_kite, {(cell(1, 9), 4), (cell(2, 8), 4)})


def test_two_string_kites_broken_hodoku_d2sk02() -> None:
    # Without the 4 of r7c2 box 7 has its 4 only in r9c1, the two kites' shared link is gone:
    # r1c9 and r2c8 keep their 4.
    puzzle, grid = D2SK02
    board = edited(pencilmarks(grid), removed=[(cell(7, 2), 4)])
    check_not(puzzle, board, find_two_string_kite, {(cell(1, 9), 4), (cell(2, 8), 4)})


def test_hodoku_lines_load_as_the_typed_grids() -> None:
    # The pages' "load into HoDoKu" lines (placed digits marked +, deleted candidates, then
    # the eliminations) give the very grids typed above: the loader the other files use.
    sk01 = (
        ":0400:1:+6+9+7.....+2..19+72.6+3..+3..679.9+12...6.+737+4+2+6.95.+8+65+7.+9.+2414+8+6+93+"
        "2+757.9.24..+6..+68.+7..+9::117 118 134 135:"
    )
    u402 = (
        ":0603:2:+8.9..7......6+9+8..3...5218..+214+8.5..7.83.+7.2..........+8...+78.64..6..+"
        "53+7.17.......5:312 412 417 419 223 127 128 638 639 958 959 367 967 968 971 272 972 "
        "273 292 392 193:288 298:"
    )
    for line, (puzzle, grid) in ((sk01, SK01), (u402, U402)):
        givens, board, elims, _ = hodoku(line)
        typed = pencilmarks(grid)
        assert givens == puzzle and board.cells == typed.cells and board.cand == typed.cand
    assert elims == candidates("288 298") == {(cell(8, 8), 2), (cell(9, 8), 2)}
