"""Published technique examples: HoDoKu's "Solving Technique Index" pages (hodoku.sourceforge.net,
by Bernhard Hobiger, GNU FDL 1.3), each a candidate grid typed from the page with the
elimination the page states. Each test checks that our finder makes that elimination (among
the steps of that technique it can take on the grid, applied in turn) and that the eliminated
digits are not in the puzzle's solution, which is computed from the page's original puzzle.
"""

from __future__ import annotations

from collections.abc import Callable

from sudokubench import Grid
from sudokubench.generate import rate
from sudokubench.generate.techniques import (
    Board,
    Step,
    find_als_xy_wing,
    find_hidden_rectangle,
    find_remote_pair,
    find_skyscraper,
    find_two_string_kite,
    find_unique_rectangle,
    find_w_wing,
    find_xy_wing,
)


def pencilmarks(text: str) -> Board:
    """A board from a candidate grid: 81 cells in reading order, separators ignored; a cell
    with one digit is taken as placed (HoDoKu shows placed digits and candidates alike)."""
    tokens = [t for t in text.replace("|", " ").split() if t.isdigit()]
    assert len(tokens) == 81, len(tokens)
    placed = "".join(t if len(t) == 1 else "." for t in tokens)
    board = Board(Grid.parse(placed))
    for k, t in enumerate(tokens):
        if len(t) > 1:
            board.cand[k] = sum(1 << (int(ch) - 1) for ch in t)
    return board


def cell(r: int, c: int) -> int:
    return (r - 1) * 9 + (c - 1)


def steps_of(board: Board, find: Callable[[Board], Step | None], limit: int = 30) -> list[Step]:
    """Every step `find` makes on the board, each applied before looking for the next."""
    found = []
    for _ in range(limit):
        step = find(board)
        if step is None:
            break
        found.append(step)
        board.apply(step)
    return found


def check(puzzle: str, grid: str, find, expected: set[tuple[int, int]]) -> list[Step]:
    """The published eliminations are among ours, and none removes a solution digit."""
    solution = rate(Grid.parse(puzzle)).solution
    board = pencilmarks(grid)
    for k, d in enumerate(board.cells):
        assert not d or d == solution[k]  # the typed grid agrees with the puzzle
    steps = steps_of(board, find)
    removed = {e for step in steps for e in step.eliminations}
    assert expected <= removed
    assert all(solution[k] != d for k, d in removed)
    return steps


def test_skyscraper_hodoku_sk01() -> None:
    # show_example.php?file=sk01&tech=Skyscraper: "1 in r1c6,r3c9 (connected by r5c69)
    # => r1c78,r3c45<>1".
    grid = """
    6 9 7 | 1345 13458 158 | 1458 148 2
    45 58 1 | 9 7 2 | 458 6 3
    245 258 3 | 145 1458 6 | 7 9 18
    9 1 2 | 345 3458 58 | 6 38 7
    3 7 4 | 2 6 18 | 9 5 18
    8 6 5 | 7 13 9 | 13 2 4
    1 4 8 | 6 9 3 | 2 7 5
    7 35 9 | 15 2 4 | 138 138 6
    25 235 6 | 8 15 7 | 134 134 9
    """
    puzzle = "...........19.2.6......679.9.2...6..37....95...5.....414...3..57.9.24......8....."
    expected = {(cell(1, 7), 1), (cell(1, 8), 1), (cell(3, 4), 1), (cell(3, 5), 1)}
    check(puzzle, grid, find_skyscraper, expected)


def test_w_wing_hodoku_w02() -> None:
    # file=w02&tech=W-Wing: "4/1 in r1c9,r8c7 connected by 1 in r18c3 => r123c7,r89c9<>4".
    grid = """
    6 134 123 | 9 5 48 | 12348 7 14
    347 1347 9 | 67 2 48 | 13458 136 145
    247 5 8 | 67 3 1 | 24 269 49
    1 6 4 | 3 8 9 | 7 5 2
    238 38 23 | 1 7 5 | 9 4 6
    5 9 7 | 2 4 6 | 13 13 8
    9 2 5 | 4 1 7 | 6 8 3
    3478 13478 13 | 5 6 2 | 14 19 1479
    47 147 6 | 8 9 3 | 1245 12 1457
    """
    puzzle = "6......7.....2.....58..1.....4.....2...1..9.6597.4...892.4..6.....5.......68.3..."
    expected = {(cell(r, 7), 4) for r in (1, 2, 3)} | {(cell(r, 9), 4) for r in (8, 9)}
    check(puzzle, grid, find_w_wing, expected)


def test_xy_wing_hodoku_xy01() -> None:
    # file=xy01&tech=XY-Wing: "5/7/2 in r1c36,r2c1 => r2c6<>2".
    grid = """
    8 145 57 | 3 6 25 | 9 147 12
    27 45 9 | 47 1 25 | 8 6 3
    127 6 3 | 47 8 9 | 24 147 5
    9 2 4 | 6 7 3 | 1 5 8
    3 8 6 | 9 5 1 | 7 2 4
    5 7 1 | 8 2 4 | 3 9 6
    4 3 2 | 1 9 6 | 5 8 7
    6 9 8 | 5 3 7 | 24 14 12
    17 15 57 | 2 4 8 | 6 3 9
    """
    puzzle = "....6........1.863..3..9...9.4......3.....7.457.82.........658.69...7.......4..3."
    check(puzzle, grid, find_xy_wing, {(cell(2, 6), 2)})


def test_unique_rectangle_type_1_hodoku_u101() -> None:
    # file=u101&tech=Unique+Rectangle+Type+1: "8/9 in r2c23,r6c23 => r2c2<>8, r2c2<>9".
    grid = """
    5 34 2 | 134 134 8 | 9 6 7
    1 389 89 | 7 36 69 | 4 5 2
    49 6 7 | 5 24 29 | 3 8 1
    2 1 3 | 6 5 7 | 8 4 9
    6 5 4 | 8 9 1 | 2 7 3
    7 89 89 | 23 23 4 | 6 1 5
    8 2 1 | 9 67 56 | 57 3 4
    3 47 6 | 124 1247 25 | 157 9 8
    49 479 5 | 14 8 3 | 17 2 6
    """
    puzzle = ".....896.1..7......675..3..21...78....489...37....4..5.219....4................26"
    steps = check(puzzle, grid, find_unique_rectangle, {(cell(2, 2), 8), (cell(2, 2), 9)})
    assert steps[0].technique == "unique_rectangle_1"


def test_unique_rectangle_type_2_hodoku_u202() -> None:
    # file=u202&tech=Unique+Rectangle+Type+2: rectangle 6/9 in r6c56, r8c56, the roof r8c56
    # {6,7,9}: 7 leaves the cells seeing both (the page marks r7c4, r7c5, r7c6 among them).
    grid = """
    14 7 9 | 38 23458 235 | 135 18 6
    3 28 5 | 6 2789 1 | 4 789 29
    6 248 12 | 3789 2345789 23579 | 13579 1789 1259
    5 6 4 | 379 379 8 | 19 2 19
    2 9 8 | 5 1 4 | 6 3 7
    7 1 3 | 2 69 69 | 8 5 4
    149 234 127 | 1379 23579 23579 | 1579 6 8
    8 5 17 | 4 679 679 | 2 179 3
    19 23 6 | 13789 235789 23579 | 1579 4 159
    """
    puzzle = ".79.....6..5..14..6.............8.2..98.1.....1.2...54.......6885.4..2.3..6......"
    expected = {(cell(7, c), 7) for c in (4, 5, 6)}
    steps = check(puzzle, grid, find_unique_rectangle, expected)
    assert steps[0].technique == "unique_rectangle_2"


def test_unique_rectangle_type_4_hodoku_u402() -> None:
    # file=u402&tech=Unique+Rectangle+Type+4: 2/8 in r8c3, r9c3, r8c8, r9c8; 8 in column 8
    # only in r8c8, r9c8, so neither is 2.
    grid = """
    8 25 9 | 34 34 7 | 15 1256 26
    145 2457 157 | 6 9 8 | 45 257 3
    346 347 67 | 5 2 1 | 8 79 49
    2 1 4 | 8 36 5 | 39 369 7
    569 8 3 | 149 7 469 | 2 156 46
    569 579 567 | 12349 1346 2469 | 145 1356 8
    135 35 15 | 7 8 29 | 6 4 29
    49 6 28 | 249 5 3 | 7 289 1
    7 49 28 | 1249 146 2469 | 39 2389 5
    """
    puzzle = "..9..7......6....3...5218...14..5..7.83...2...............8.64..6...3..17.......5"
    steps = check(puzzle, grid, find_unique_rectangle, {(cell(8, 8), 2), (cell(9, 8), 2)})
    assert any(s.technique == "unique_rectangle_4" for s in steps)


def test_hidden_rectangle_hodoku_hr02() -> None:
    # file=hr02&tech=Hidden+Rectangle: "4/5 in r2c29,r3c29 => r2c9<>5".
    grid = """
    68 9 168 | 4 5 136 | 2 378 37
    3 145 2 | 7 8 16 | 56 9 45
    7 45 468 | 2 9 36 | 568 1 345
    9 3 5 | 1 2 8 | 7 4 6
    28 7 148 | 6 34 9 | 158 238 235
    268 14 1468 | 5 34 7 | 18 238 9
    1 2 9 | 3 7 5 | 4 6 8
    5 6 3 | 8 1 4 | 9 27 27
    4 8 7 | 9 6 2 | 3 5 1
    """
    puzzle = "....5.2..3..7.....7...9..1.9..1..746............5....9.29...4...6...4....8...23.1"
    check(puzzle, grid, find_hidden_rectangle, {(cell(2, 9), 5)})


def test_hidden_rectangle_hodoku_hr01() -> None:
    # file=hr01&tech=Hidden+Rectangle: "5/9 in r7c57,r9c57 => r9c5<>9".
    grid = """
    3 9 4 | 6 8 2 | 1 5 7
    6 1 8 | 7 3 5 | 4 2 9
    5 2 7 | 4 19 19 | 3 6 8
    1 5 3 | 29 4 7 | 289 89 6
    4 7 29 | 5 6 8 | 29 3 1
    8 6 29 | 1239 129 139 | 7 4 5
    7 3 6 | 8 159 4 | 59 19 2
    9 4 5 | 12 127 16 | 68 178 3
    2 8 1 | 39 579 369 | 569 79 4
    """
    puzzle = ".9...21.....73..2.52......81.3.47.......6..3.8.......57.68.4...9..........1.....4"
    check(puzzle, grid, find_hidden_rectangle, {(cell(9, 5), 9)})


def test_als_xy_wing_hodoku_axy01() -> None:
    # file=axy01&tech=ALS-XY-Wing: the step removes 3 from r7c7.
    grid = """
    4 125 6 | 25 39 359 | 12358 7 12589
    89 258 3589 | 257 379 1 | 4 6 259
    179 1257 359 | 6 8 4 | 1235 239 1259
    2 3 589 | 57 1679 569 | 178 4 167
    16789 1567 589 | 3 4 569 | 1278 28 1267
    167 1467 147 | 8 167 2 | 9 5 3
    678 9 14 | 14 36 368 | 23578 238 2578
    3 48 2 | 49 5 7 | 6 1 89
    5 1678 17 | 19 2 368 | 378 389 4
    """
    puzzle = "4.6....7......1.6.....8....23..........34.......8..95..9.........2.5761.5...2...4"
    check(puzzle, grid, find_als_xy_wing, {(cell(7, 7), 3)})


def test_remote_pair_hodoku_rp01() -> None:
    # file=rp01&tech=Remote+Pair: "4/5 r2c7 -5- r2c2 -4- r3c1 -5- r6c1 => r6c7<>5".
    grid = """
    7 9 8 | 4 5 2 | 3 1 6
    6 45 3 | 7 8 1 | 45 9 2
    45 1 2 | 69 3 69 | 8 7 45
    3 7 19 | 2 6 5 | 19 4 8
    8 2 59 | 1 4 3 | 7 6 59
    45 6 145 | 8 9 7 | 15 2 3
    9 8 56 | 56 1 4 | 2 3 7
    1 34 7 | 369 2 8 | 469 5 49
    2 345 456 | 3569 7 69 | 469 8 1
    """
    puzzle = "..845...6..3..1.........87........48.2.1.37...6..9....9...14.3.1.7.2..5.2........"
    check(puzzle, grid, find_remote_pair, {(cell(6, 7), 5)})


def test_remote_pair_hodoku_rp02() -> None:
    # file=rp02&tech=Remote+Pair: eight cells {2,8} from r7c8 to r8c4 => r18c7,r7c59,r8c9<>2,
    # r38c7,r7c59,r8c9<>8.
    grid = """
    1 7 8 | 6 24 9 | 234 5 234
    9 3 4 | 1 5 28 | 6 28 7
    2 5 6 | 7 48 3 | 489 1 489
    7 9 3 | 5 6 28 | 28 4 1
    6 4 1 | 28 3 7 | 5 9 28
    8 2 5 | 9 1 4 | 7 3 6
    5 6 7 | 3 289 1 | 2489 28 2489
    4 1 29 | 28 7 5 | 2389 6 2389
    3 8 29 | 4 29 6 | 1 7 5
    """
    puzzle = "1.8....5...4...6.72....3......5...4.6......9....91.7....73.........75.6.38.4.6..5"
    twos = {(cell(1, 7), 2), (cell(8, 7), 2), (cell(7, 5), 2), (cell(7, 9), 2), (cell(8, 9), 2)}
    eights = {(cell(3, 7), 8), (cell(8, 7), 8), (cell(7, 5), 8), (cell(7, 9), 8), (cell(8, 9), 8)}
    check(puzzle, grid, find_remote_pair, twos | eights)


def test_two_string_kites_hodoku_d2sk02() -> None:
    # file=d2sk02&tech=Dual+2-String+Kite: "4 in r2c1,r7c8/in r1c2,r9c9 (connected by r7c2,r9c1)
    # => r1c9,r2c8<>4": two kites sharing box 7, one elimination each.
    grid = """
    5 46 9 | 1 236 7 | 8 246 346
    246 8 7 | 9 236 5 | 1 246 346
    26 1 3 | 46 8 24 | 5 9 7
    36 9 4 | 358 1 38 | 2 7 56
    8 7 5 | 2 9 6 | 4 3 1
    1 36 2 | 345 7 34 | 9 56 8
    7 34 1 | 38 25 238 | 6 45 9
    9 5 6 | 7 4 1 | 3 8 2
    34 2 8 | 36 56 9 | 7 1 45
    """
    puzzle = "...1.7......9.5.....3.8.5...9.....7...52.64..1.......87.......9..6.4.3...2.....1."
    check(puzzle, grid, find_two_string_kite, {(cell(1, 9), 4), (cell(2, 8), 4)})
