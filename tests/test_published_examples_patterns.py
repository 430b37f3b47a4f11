"""Published examples for the single-digit patterns, subsets, fish, XYZ-Wing, unique rectangle
type 3 and BUG+1 (helpers and sources in published.py).

Each grid is a HoDoKu library line: from a "Solving Technique Index" page
(hodoku.sourceforge.net/en/show_example.php?file=...&tech=..., GNU FDL 1.3) where the corpus
of those pages had one, else from HoDoKu's regression test library (reglib-1.4.txt in HoDoKu's
sources, cited by section and case number: "0402 #1" is the first case of section 0402), whose
eliminations field is the published elimination. Each technique has an "applies" test (our
finder makes the published eliminations, soundly) and a "does not apply" one: the grid with
the pattern broken by one false candidate (or HoDoKu's own fail cases for BUG+1).
"""

from __future__ import annotations

from published import cell, check_line, check_line_not

from sudokubench.generate.techniques import (
    find_bug_plus_one,
    find_empty_rectangle,
    find_finned_swordfish,
    find_finned_x_wing,
    find_hidden_quad,
    find_jellyfish,
    find_naked_quad,
    find_simple_colouring,
    find_turbot_fish,
    find_unique_rectangle,
    find_xyz_wing,
)

# reglib 0402 (Empty Rectangle) #1: "9 ... 986": r8c6<>9.
ER = (
    ":0402:9:7+2+4+956+1381+6842+3+5+9+7+9+3+5+7+1+8+6+2+45..3..+8+1..4..8+17+5..+81.+7.24..+"
    "13....+7+2...1...+85.5...7.6+1::986::"
)


def test_empty_rectangle_reglib_0402() -> None:
    # Box 5's 9s lie on row 4 and column 6; r4c2 = r8c2 is a conjugate pair on 9.
    steps = check_line(ER, find_empty_rectangle)
    assert any((cell(8, 6), 9) in s.eliminations for s in steps)


def test_empty_rectangle_broken_reglib_0402() -> None:
    # Without the (false) 9 of r8c2, column 2's 9 is only in r4c2: no conjugate pair.
    check_line_not(ER, find_empty_rectangle, removed=[(cell(8, 2), 9)])


# reglib 0403 (Turbot Fish) #1: "2 ... 277": r7c7<>2.
TURBOT = (
    ":0403:2:2+64+9+13587.3+1.+8+5..2.+58..6+3.+1+4+7+9+6+3..+5+8+12+6+8+54+739+3+8+5.9...659"
    "+3+1.+8..+4+84.5+6.+91+361.3+49+8.5::277::"
)


def test_turbot_fish_reglib_0403() -> None:
    # r7c5 = r8c6 (box 8) - r4c6 = r4c7 (row 4): r7c5 or r4c7 is 2.
    check_line(TURBOT, find_turbot_fish)


def test_turbot_fish_broken_reglib_0403() -> None:
    # Without the 2 of r7c5, box 8's 2 is only in r8c6: the chain has no first link.
    check_line_not(TURBOT, find_turbot_fish, removed=[(cell(7, 5), 2)])


# show_example.php?file=sc01&tech=Simple+Colors (also reglib 0500 #2): "319 339 381":
# r1c9, r3c9, r8c1<>3.
COLOUR_TRAP = (
    ":0500:3:21+4..+6.....+79.+2..4...4.7.....+1+87..32..+26+9.....48.21..642.+7.986+1..91+68"
    "...1+86+2+4...9:937 938 387 587 787 588 788 789:319 339 381:"
)


def test_simple_colouring_trap_hodoku_sc01() -> None:
    steps = check_line(COLOUR_TRAP, find_simple_colouring)
    assert "colour trap" in steps[0].text


def test_simple_colouring_trap_broken_hodoku_sc01() -> None:
    # Without the (false) 3 of r5c6 the cluster is cut there: r1c9 and r8c1 no longer see
    # both colours of one cluster (r3c9 still does, through the part that is left).
    kept = {(cell(1, 9), 3), (cell(8, 1), 3)}
    check_line_not(COLOUR_TRAP, find_simple_colouring, removed=[(cell(5, 6), 3)], kept=kept)


# reglib 0501 (Simple Colors Wrap) #1: "819 821 824 832 844 853 867 876 892 895".
COLOUR_WRAP = (
    ":0501:8:+6+5+9...+1+3...+1.3.6+252.+31+65.4+9.+2..9+63+1.+36.7..5+9.+91.+3.4.+6279.6..+2"
    "+5+35.+6...9811.2...+4+7+6:814 815 424 826 443 843 849 855 856 863 875 285 896:819 821 8"
    "24 832 844 853 867 876 892 895::"
)


def test_simple_colouring_wrap_reglib_0501() -> None:
    # r2c1 and r2c4 get the same colour and see each other: that colour is false.
    steps = check_line(COLOUR_WRAP, find_simple_colouring)
    assert "colour wrap" in steps[0].text


# reglib 0801 (XYZ-Wing) #1: "467 ... 635 636": r3c5, r3c6<>6.
XYZ = (
    ":0801:467:+673.+8.+2.9514.92..+3+9+82.....+5+167+359..28.+9.1.53+6..+5+8..+7+9+1..+614.9"
    "+2+8..+1..835+4..+8...1+67::635 636::"
)


def test_xyz_wing_reglib_0801() -> None:
    # Pivot r3c4 {4,6,7}, wings r2c4 {6,7} and r3c7 {4,6}.
    check_line(XYZ, find_xyz_wing)


def test_xyz_wing_broken_reglib_0801() -> None:
    # Without the 7 of r2c4 that wing is {6} alone, not a pair: no XYZ-Wing.
    check_line_not(XYZ, find_xyz_wing, removed=[(cell(2, 4), 7)])


# reglib 0202 (Naked Quadruple) #6 and 0212 (Hidden Quadruple) #5: one grid, where row 5's
# r5c1, r5c7, r5c8, r5c9 hold only 1, 3, 6, 8 and 2, 4, 7, 9 only go in r5c2, r5c4, r5c5,
# r5c6: "155 156 352 354 355 356 652 654 655 656 854 855 856" either way.
QUAD_GIVENS = (
    ".+781..5.+9.+56.9....91+3......84....79...5......7.....2.43.79..+14.....74..8+5.42...6+7"
    ":327 634 635 636 251 357 281 388:155 156 352 354 355 356 652 654 655 656 854 855 856::"
)
NAKED_QUAD = ":0202:1368:" + QUAD_GIVENS
HIDDEN_QUAD = ":0212:2479:" + QUAD_GIVENS


def test_naked_quad_reglib_0202() -> None:
    check_line(NAKED_QUAD, find_naked_quad)


def test_hidden_quad_reglib_0212() -> None:
    check_line(HIDDEN_QUAD, find_hidden_quad)


def test_quads_broken_reglib_0202_0212() -> None:
    # A (false) 2 in r5c1 gives the four cells five digits, and puts 2 in a fifth cell of the
    # row: neither quad is left.
    check_line_not(NAKED_QUAD, find_naked_quad, added=[(cell(5, 1), 2)])
    check_line_not(HIDDEN_QUAD, find_hidden_quad, added=[(cell(5, 1), 2)])


# Fish. A base line left with one place is a hidden single, not a base line: our fish finders
# want two places or more in each.
# reglib 0310 (Finned X-Wing) #3: "8 ... 818": r1c8<>8.
FINNED_X_WING = (
    ":0310:8:.9+15..3..562+318+9+7+4+3+4....+1..189...6+3.+47+3.....1+2+5+6+1834+9+7+6+1.2+3+"
    "7.+499+24+8+65+7+1+3.+3...126.::818::"
)
# reglib 0320 (Sashimi X-Wing) #1: "8 ... 859 869": r5c9, r6c9<>8.
SASHIMI_X_WING = (
    ":0320:8:4..5.769....+3....2.68+1...3.65.2.4..9...+73.4.....9.......+68........+6.3..7389"
    "4+7....::859 869::"
)
# reglib 0311 (Finned Swordfish) #4: "4 ... 466": r6c6<>4.
FINNED_SWORDFISH = (
    ":0311:4:3+2.+1.+7+6+9+8..862.+713..+6+3+9+8+245+6+8.....7.5.783..+2.2.1.7..8..6..+89.+3."
    "...71.86.+8...+639+5.:422 443 546 147 447 456 459 566 467 469 471 482 283 483 583 492 29"
    "9 499:466::"
)
# reglib 0321 (Sashimi Swordfish) #1: "6 ... 638": r3c8<>6.
SASHIMI_SWORDFISH = (
    ":0321:6:.+489+127+3.2..6..14.....4....9.42..87....+49.+3...32..15+94....2.+4..+471..9..3"
    ".+251.49..:331 373 678 679 699:638::"
)
# reglib 0302 (Jellyfish) #4: "5 ... 523 527 531 533 537 541 561 564 573 574".
JELLYFISH = (
    ":0302:5:.4..28.7187.6...2+4.+1.+4.+7..+9..48..26..+21.4+69+3+8.86..24+1.+4...+6...+2.6.."
    "+89.4313.27+4.9+6:311 331 176 577 877 781 587:523 527 531 533 537 541 561 564 573 574::"
)


def test_finned_x_wing_reglib_0310() -> None:
    # Columns 1 and 9 hold 8 only in rows 1 and 9 but for the fin r3c9.
    steps = check_line(FINNED_X_WING, find_finned_x_wing)
    assert steps[0].technique == "finned_x_wing"


def test_finned_x_wing_broken_reglib_0310() -> None:
    # Without the (false) 8 of r1c1, column 1's 8 is r9c1 alone: no base line.
    check_line_not(FINNED_X_WING, find_finned_x_wing, removed=[(cell(1, 1), 8)])


def test_sashimi_x_wing_reglib_0320() -> None:
    # Rows 1 and 4 hold 8 only in columns 5 and 9 but for the fins r4c7, r4c8 (r4c9 is 9).
    steps = check_line(SASHIMI_X_WING, find_finned_x_wing)
    assert steps[0].technique == "sashimi_x_wing"


def test_sashimi_x_wing_broken_reglib_0320() -> None:
    # Without the 8 of r4c5, row 4's only 8s are the fins: nothing of it in a cover column.
    check_line_not(SASHIMI_X_WING, find_finned_x_wing, removed=[(cell(4, 5), 8)])


def test_finned_swordfish_reglib_0311() -> None:
    # Rows 2, 4, 8 hold 4 only in columns 1, 6, 9 but for the fins r4c4, r4c5.
    steps = check_line(FINNED_SWORDFISH, find_finned_swordfish)
    assert steps[0].technique == "finned_swordfish"


def test_finned_swordfish_broken_reglib_0311() -> None:
    # A (false) 4 in r2c2 is a second fin, in box 1, away from the first ones in box 5.
    check_line_not(FINNED_SWORDFISH, find_finned_swordfish, added=[(cell(2, 2), 4)])


def test_sashimi_swordfish_reglib_0321() -> None:
    # Rows 1, 6, 9 hold 6 only in columns 1, 5, 8 but for the fin r1c9.
    steps = check_line(SASHIMI_SWORDFISH, find_finned_swordfish)
    assert steps[0].technique == "sashimi_swordfish"


def test_sashimi_swordfish_broken_reglib_0321() -> None:
    # Without the 6 of r1c1, row 1's only 6 is the fin r1c9: nothing of it in a cover column.
    check_line_not(SASHIMI_SWORDFISH, find_finned_swordfish, removed=[(cell(1, 1), 6)])


def test_jellyfish_reglib_0302() -> None:
    # Rows 1, 5, 8, 9 hold 5 only in columns 1, 3, 4, 7.
    check_line(JELLYFISH, find_jellyfish)


def test_jellyfish_broken_reglib_0302() -> None:
    # Without the 5 of r5c1, row 5's 5 is r5c4 alone: no base line.
    check_line_not(JELLYFISH, find_jellyfish, removed=[(cell(5, 1), 5)])


# reglib 0602 (Uniqueness Test Type 3) #1: "89 ... 212 222 293 722 793".
UR3 = (
    ":0602-1:89:3.......7...98.+5.3.5.....2+6+2+31+4..+6+85+7968+512+3+4...+6237+9+1..4...+1+"
    "79..+371.+45.......36.::212 222 293 722 793::"
)


def test_unique_rectangle_type_3_reglib_0602() -> None:
    # 8/9 in r1c3, r1c7, r3c3, r3c7; the extra digits of r1c3, r3c3 make a naked subset.
    steps = check_line(UR3, find_unique_rectangle)
    assert steps[0].technique == "unique_rectangle_3"


def test_unique_rectangle_type_3_broken_reglib_0602() -> None:
    # Without the 9 of r1c3 that corner is not 8/9: no rectangle.
    check_line_not(UR3, find_unique_rectangle, removed=[(cell(1, 3), 9)])


# reglib 0610 (Bivalue Universal Grave + 1) #1: "373 673": r7c3 is neither 3 nor 6.
BUG = (
    ":0610::.+9.+613.+8+4...2+5+7+1+393.184+92..968+5+7+1+42+3+4379+2+6+81+5+1..+3+84......+1"
    "+9+2..8..9+435+67+1+51.+76+8..+2::373 673::"
)
# reglib 0610-x, three fail cases ("this is not a BUG+1! (posted by tarek on the player's
# forum)"): one cell with three candidates, every other two, but some digit has three places
# in a unit away from that cell, so without the extra digit the rest is no BUG. Our finder
# placed a wrong digit on the last two before it checked that.
NOT_BUG = [
    (
        ":0610-x::+5+4..9.8.1392..8.+5..+1.....2..3+46..5+926+2..4.+1.31+59..3.4..8+5.....+7."
        "+7+18+3.4654+63.5.+2..:714 716 724 625 733 434 734 636 736 637 737 639 745 754 756 "
        "765 174 274 175 276 976 994 196:176 276 476 676:"
    ),
    (
        ":0610-x::+9+5+2..+17+3+6..8+5+76+249476+9+2+3+18+5+78..92+5+61+69+17.5+42.2.+516.+97"
        "..2.+6.+981786+92+1+73+5+4..7...+6+9+2:391 392 494 395 495::"
    ),
    (
        ":0610-x::.+7+5+9.6+4+32+9+6+234571+8.4+3+27.+5+6952.+7+6.3+41+4.+6.+5+3+2+9+73.7.+2."
        "+6857+5..3..2+6+631592+8+7+42.+46.+7.+5+3:874 176::"
    ),
]


def test_bug_plus_one_reglib_0610() -> None:
    steps = check_line(BUG, find_bug_plus_one)
    assert steps[0].placement == (cell(7, 3), 4)


def test_bug_plus_one_fail_cases_reglib_0610() -> None:
    for line in NOT_BUG:
        check_line_not(line, find_bug_plus_one)
