"""Published examples for the chains (X-chain, XY-chain, AICs and nice loops), ALS-XZ, Sue de
Coq and forcing (helpers and sources in published.py; reglib cases cited as in
test_published_examples_patterns.py). Each has an "applies" test and a "does not apply" one.
"""

from __future__ import annotations

from published import cell, check_line, check_line_not, hodoku, run

from sudokubench import Grid
from sudokubench.generate import rate
from sudokubench.generate.techniques import (
    Board,
    find_aic,
    find_als_xz,
    find_forcing,
    find_sue_de_coq,
    find_x_chain,
    find_xy_chain,
)
from sudokubench.generate.techniques.forcing import Branch

# reglib 0701 (X-Chain) #1: "7 ... 742": r4c2<>7.
X_CHAIN = (
    ":0701:7:3.4+52..8...6.+9.....5..7.3.....68+9.2+3...+734....6+315+27...1.+9+6......9.+4.."
    "6.+6.8217..5::742::5"
)


def test_x_chain_reglib_0701() -> None:
    # r1c2 = r1c9 - r2c8 = r7c8 - r7c3 = r4c3 on 7: r1c2 or r4c3 is 7.
    check_line(X_CHAIN, find_x_chain)


def test_x_chain_broken_reglib_0701() -> None:
    # Without the (false) 7 of r7c8, column 8's 7 is only in r2c8: the link r2c8 = r7c8 and
    # with it the chain are gone.
    check_line_not(X_CHAIN, find_x_chain, removed=[(cell(7, 8), 7)])


# reglib 0702 (XY-Chain) #2: "6 ... 675": r7c5<>6.
XY_CHAIN = (
    ":0702:6:4+7+2+35+698153+1..+8.+2.+86+91.+2.53+158.2+7+34.+2+9+64+13+8+7+57+4+38.+5....+8"
    "...9....2..+8+1...+91..+3+4.68::675::7"
)


def test_xy_chain_reglib_0702() -> None:
    # r6c5 {6,9} - r6c8 {9,1} - r7c8 {1,3} - r7c1 {3,6}: one end is 6.
    check_line(XY_CHAIN, find_xy_chain)


def test_xy_chain_broken_reglib_0702() -> None:
    # Without the 9 of r6c8 that cell is {1} alone, no longer a link of the chain.
    check_line_not(XY_CHAIN, find_xy_chain, removed=[(cell(6, 8), 9)])


# reglib 0706 (Continuous Nice Loop) #2: "1279 ... 118 156 256 718 925 935".
NICE_LOOP = (
    ":0706:1279:548..+3...+63....8..1+2.+8....3+972.+386..+4.....3..+3...47..9+71+43+8+5+92+6"
    "2569+7..+3+8+8+9+3.6.7..::118 156 256 718 925 935::7"
)
# reglib 0707 (Discontinuous Nice Loop) #10: "58 ... 524 824": r2c4<>5, r2c4<>8.
BROKEN_LOOP = (
    ":0707-1:58:....2+96..2.9....+71+64+53+178+2+9.741+6+2.85.+6+2+7..+1...+5.4..+7625+9...+1"
    ".+3..+2.97..1..16......:311 811 313 813 427 479 489 498 499:524 824::9"
)
# reglib 0708 (Alternating Inference Chain) #17: "2 ... 218 267": r1c8, r6c7<>2.
AIC = (
    ":0708-1:2:963.1....+27.3........+6.27+3.7.9.6.+3.......+35...3.....9.+6+8+7.3.+1+525..+2"
    "86+9+73+3+9+2+571846::218 267::7"
)


def test_continuous_nice_loop_reglib_0706() -> None:
    # Our AICs make the loop's eliminations one chain at a time.
    check_line(NICE_LOOP, find_aic)


def test_discontinuous_nice_loop_reglib_0707() -> None:
    # r1c4 {5,8} - r7c4 {8,2} - r9c4 {2,5}: r1c4 or r9c4 is 5, and r2c4 sees both.
    check_line(BROKEN_LOOP, find_aic)


def test_discontinuous_nice_loop_broken_reglib_0707() -> None:
    # Without the (false) 8 of r7c4 that cell is {2} alone: no link through it.
    check_line_not(BROKEN_LOOP, find_aic, removed=[(cell(7, 4), 8)])


def test_aic_reglib_0708() -> None:
    # r4c8(2) = r4c2(2) - r4c2(5) = r6c3(5) - r6c3(6) = r6c7(6): r6c7 loses 2.
    check_line(AIC, find_aic)


def test_aic_broken_reglib_0708() -> None:
    # Without the 2 of r4c2, row 4's 2 is r4c8 alone: the strong link r4c8 = r4c2 is gone.
    check_line_not(AIC, find_aic, removed=[(cell(4, 2), 2)])


# show_example.php?file=axz02&tech=ALS-XZ: "873 883 893": r7c3, r8c3, r9c3<>8.
ALS_XZ = (
    ":9001:8:.+934.7.6.4....59...276...+41........591.+5...8.2..78....6..25.4...4.........."
    "1....3:325 145 245 747 748 255 581 587 591 597:873 883 893:"
)


# reglib 0901 (ALS-XZ) #5: "7 ... 735 736": r3c5, r3c6<>7.
ALS_XZ_2 = (
    ":0901-1:7:.+25+18..34...3.65.2...2..+1...42..1.+5..6..+2.3..8..7..+2...7.9.+38+2+523...."
    "..1.....2.63:717 431 731 931 839 758 858 958 968 483 488 594 595:735 736::"
)


def test_als_xz_hodoku_axz02() -> None:
    # A = r4c3, r5c3, r6c2, r6c3 {3,4,5,6,8}, B = r7c2, r9c1 {3,7,8}, restricted common 3.
    check_line(ALS_XZ, find_als_xz)


def test_als_xz_reglib_0901() -> None:
    # r1c6, r1c7 {6,7,9} and r3c2, r3c8, r3c9 {6,7,8,9}, restricted common 6: z = 7.
    check_line(ALS_XZ_2, find_als_xz)


def test_als_xz_broken_reglib_0901() -> None:
    # A (false) 7 in r1c7 is a 7 of the first set that r3c5 and r3c6 do not see.
    check_line_not(ALS_XZ_2, find_als_xz, added=[(cell(1, 7), 7)])


# reglib 1101 (Sue de Coq) #2: "789 ... 748 852 949 967 969"; the same grid as
# show_example.php?file=sdc04&tech=Sue+de+Coq+(extended+variant), which is a second Sue de Coq.
SUE_DE_COQ = (
    ":1101:789:+3+24+8+6+1+59765+7+9+4+3+82191+8+5+273+642.1+43....5.32.6...+4..+7.....+1..6."
    "....+8..1746..7..+39..1.::748 852 949 967 969::"
)


# reglib 1101 (Sue de Coq) #14: "467 ... 449 457 459 657 677 687 697 757 758 759 768".
SUE_DE_COQ_2 = (
    ":1101:467:5+7..4.9.2.......41+413+9+265..+8...17.2.3.........61.98...98......5.+3...+9.."
    ".....84.+93:314 818 324 727 827 443 453 374:449 457 459 657 677 687 697 757 758 759 768"
    "::"
)


def test_sue_de_coq_reglib_1101() -> None:
    # r5c7, r5c8, r5c9 hold 1, 4, 7, 8, 9; r5c5 {1,8} in the row and r4c7 {7,9} in the box.
    check_line(SUE_DE_COQ, find_sue_de_coq)


def test_sue_de_coq_second_reglib_1101() -> None:
    # r4c7, r6c7 hold 3, 4, 6, 7; r2c7 {3,6} in the column and r6c9 {4,7} in the box.
    check_line(SUE_DE_COQ_2, find_sue_de_coq)


def test_sue_de_coq_broken_reglib_1101() -> None:
    # A (false) 7 in r2c7 makes the column's helper {3,6,7}: it shares 7 with the box's
    # helper {4,7}, so the four cells no longer lock 3, 4, 6, 7 between line and box.
    check_line_not(SUE_DE_COQ_2, find_sue_de_coq, added=[(cell(2, 7), 7)])


# show_example.php?file=fcv03&tech=Forcing+Chain+Verity+(only+chain+2): "Forcing Chain
# Verity => r1c7=4", from the three places of 1 in row 4:
#   r4c4=1 r8c4=6 r6c8=6 r1c8=3 r1c7=4
#   r4c6=1 r4c7=3 r1c7=4
#   r4c7=1 ...
FORCING = (
    ":1202::+27+1+896...+9+4352+768+1+8+56+3+147+9248.....2.+6+3.......51.......+3+9+5....7.+7+2"
    "+4.3+85.9168...+2+43:::"
)


def test_unit_forcing_hodoku_fcv03() -> None:
    # Our forcing follows each assumption by rounds of singles (`Branch`, as `find_forcing`
    # does): the page's chains from 1 in r4c4 and in r4c6 are among our placements (1 in
    # r4c6 goes on to a contradiction), and 1 in r4c7 dies: the published unit forcing.
    # The finder itself takes a shallower step first here (r8c8 = 6 dies in 2 rounds); every
    # step it takes on the grid is sound.
    puzzle, board, _, _ = hodoku(FORCING)
    chains = {
        cell(4, 4): [(cell(8, 4), 6), (cell(6, 8), 6), (cell(1, 8), 3), (cell(1, 7), 4)],
        cell(4, 6): [(cell(4, 7), 3), (cell(1, 7), 4)],
    }
    for k, published in chains.items():
        branch = Branch(board, board.cand, k, 1)
        while branch.advance():
            pass
        assert set(published) <= set(branch.trail)
    branch = Branch(board, board.cand, cell(4, 7), 1)
    while branch.advance():
        pass
    assert branch.dead
    steps, _ = run(puzzle, board, find_forcing)
    assert steps[0].technique == "forcing_chain"


def test_forcing_nothing_to_force_hodoku_fcv03() -> None:
    # The page puzzle's solution with r1c1, r1c5, r2c1, r2c5 (2 9 / 9 2, in two boxes)
    # emptied: they take 2 and 9 either way round, two solutions, so no assumption dies and
    # no cell or unit forces anything.
    puzzle, _, _, _ = hodoku(FORCING)
    solution = rate(Grid.parse(puzzle)).solution
    corners = [cell(1, 1), cell(1, 5), cell(2, 1), cell(2, 5)]
    assert [solution[k] for k in corners] == [2, 9, 9, 2]
    grid = "".join("." if k in corners else str(solution[k]) for k in range(81))
    assert find_forcing(Board(Grid.parse(grid))) is None
