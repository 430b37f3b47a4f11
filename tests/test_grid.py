"""The grid model: shapes, the rules, conflicts and the one solution checker (no backend)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, pattern_solution

from sudokubench.grid import (
    SHAPES,
    Grid,
    InvalidPuzzleError,
    Shape,
    is_solution,
    shape_of,
    solution_problem,
    valid_lines,
)


@st.composite
def solutions(draw: st.DrawFn, shapes: tuple[Shape, ...] = SHAPES) -> Grid:
    """Valid complete grids: the pattern with digits relabelled and bands/rows shuffled."""
    shape = draw(st.sampled_from(shapes))
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    base = pattern_solution(shape)
    relabel = draw(st.permutations(range(1, n + 1)))
    bands = draw(st.permutations(range(n // br)))
    rows = [b * br + r for b in bands for r in draw(st.permutations(range(br)))]
    stacks = draw(st.permutations(range(n // bc)))
    cols = [s * bc + c for s in stacks for c in draw(st.permutations(range(bc)))]
    cells = tuple(relabel[base.value(r, c) - 1] for r in rows for c in cols)
    return Grid(shape, cells)


# -- shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "box"),
    [(4, "2x2"), (6, "2x3"), (8, "2x4"), (9, "3x3"), (12, "3x4"), (16, "4x4"), (25, "5x5")],
)
def test_shape_for_size_picks_the_squarest_boxes_wider_than_tall(n, box):
    assert str(Shape.for_size(n)) == box
    assert Shape.for_cells(n * n) is Shape.parse(box)


@pytest.mark.parametrize("count", [0, 1, 9, 49, 50, 80, 82])
def test_a_cell_count_that_is_no_shape_is_refused(count):
    with pytest.raises(InvalidPuzzleError):
        Shape.for_cells(count)


@pytest.mark.parametrize("text", ["3x2", "0x3", "3", "axb", "3x3x3", "6x6"])
def test_bad_box_shapes_are_refused(text):
    with pytest.raises(InvalidPuzzleError):
        Shape.parse(text)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_units_and_peers(shape):
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    assert len(shape.units) == 3 * n
    assert all(sorted(set(u)) == sorted(u) and len(u) == n for u in shape.units)
    # every cell is in exactly one row, one column and one box
    for group in (shape.rows, shape.cols, shape.boxes):
        assert sorted(k for u in group for k in u) == list(range(n * n))
    for k in range(n * n):
        r, c = divmod(k, n)
        expected = {
            j
            for j in range(n * n)
            if j != k
            and (j // n == r or j % n == c or (j // n // br, j % n // bc) == (r // br, c // bc))
        }
        assert set(shape.peers[k]) == expected
        assert len(shape.peers[k]) == 3 * n - br - bc - 1


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_box_index_numbers_boxes_row_major(shape):
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    for r, c in itertools.product(range(n), repeat=2):
        assert shape.box_index(r, c) == (r // br) * (n // bc) + c // bc
        assert r * n + c in shape.boxes[shape.box_index(r, c)]


def test_geometry_is_computed_once_per_shape():
    a, b = shape_of(3, 3), Shape.parse("3x3")
    assert a is b
    assert a.peers is b.peers and a.units is b.units


# -- grids ----------------------------------------------------------------------------------


def test_grid_is_immutable_and_hashable():
    g = Grid.parse(TELEGRAM)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.cells = ()  # type: ignore[misc]
    assert hash(g) == hash(Grid.parse(TELEGRAM))
    assert len({g, Grid.parse(TELEGRAM), Grid.parse(MULTIPLE)}) == 2
    assert g.with_value(1, 1) != g and g[1] == 0
    assert hash(Grid(g.shape, list(g.cells))) == hash(g)


@pytest.mark.parametrize(
    "cells", [(0,) * 15, (0,) * 17, (5,) + (0,) * 15, (-1,) + (0,) * 15, ("1",) + (0,) * 15]
)
def test_grid_refuses_bad_cells(cells):
    with pytest.raises(InvalidPuzzleError):
        Grid(Shape(2, 2), cells)


def test_rules_on_the_telegram_grid():
    g = Grid.parse(TELEGRAM)
    # row 1 is 8.9.....7, column 1 is 8...7...5, box 1 holds 8, 9, 3, 5
    assert g.row_has(0, 8) and g.row_has(0, 7) and not g.row_has(0, 1)
    assert g.col_has(0, 5) and not g.col_has(0, 9)
    assert g.box_has(0, 3) and not g.box_has(0, 1)
    assert g.box_has(g.shape.box_index(8, 8), 6)
    assert not g.can_place(1, 8)  # 8 is in row 1
    assert not g.can_place(1, 3)  # 3 is in box 1
    assert g.can_place(1, 1) and g.can_place(1, 4)
    assert g.candidates(1) == (1, 4)
    assert g.candidates(0) == (8,)
    assert g.givens == 33 and not g.is_complete() and g.is_valid()


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_can_place_matches_the_definition(data):
    solution = data.draw(solutions())
    shape = solution.shape
    blanks = data.draw(st.sets(st.integers(0, shape.cells - 1), min_size=1))
    puzzle = Grid(shape, tuple(0 if k in blanks else d for k, d in enumerate(solution)))
    n = shape.n
    for k in blanks:
        r, c = divmod(k, n)
        for d in range(1, n + 1):
            in_row = any(puzzle.value(r, j) == d for j in range(n))
            in_col = any(puzzle.value(i, c) == d for i in range(n))
            in_box = any(puzzle[j] == d for j in shape.boxes[shape.box_index(r, c)])
            assert puzzle.can_place(k, d) == (not (in_row or in_col or in_box))
            assert (d in puzzle.candidates(k)) == puzzle.can_place(k, d)
        assert solution[k] in puzzle.candidates(k)
    assert puzzle.conflicts() == [] and is_solution(solution, puzzle)


@settings(max_examples=300, deadline=None)
@given(solutions(), st.data())
def test_is_valid_is_no_conflict_on_any_shape(solution, data):
    """`is_valid` (its lanes of units, `_valid_lanes`) says what `conflicts()` (a dict a unit,
    read literally) says, on every shape: a solution with cells emptied (valid), then, drawn
    too, one empty cell given a digit, and any cell of it given any value (often a repeat)."""
    shape, n = solution.shape, solution.shape.n
    cells = list(solution.cells)
    for k in data.draw(st.sets(st.integers(0, shape.cells - 1))):
        cells[k] = 0
    changes = data.draw(st.lists(st.tuples(st.integers(0, shape.cells - 1), st.integers(0, n))))
    for k, d in changes:
        cells[k] = d
    grid = Grid(shape, tuple(cells))
    assert grid.is_valid() == (not grid.conflicts())
    if not changes:
        assert grid.is_valid()


def test_is_valid_finds_a_repeat_in_each_kind_of_unit_of_each_shape():
    """A repeat in the last unit of each lane is found: the last row, column and box, on
    every shape (the lanes' offsets end there)."""
    for shape in SHAPES:
        for unit in (shape.rows[-1], shape.cols[-1], shape.boxes[-1], shape.units[-1]):
            cells = [0] * shape.cells
            cells[unit[0]] = cells[unit[-1]] = shape.n
            grid = Grid(shape, tuple(cells))
            assert not grid.is_valid() and grid.conflicts(), (str(shape), unit)
            cells[unit[-1]] = shape.n - 1 if shape.n > 1 else 0
            assert Grid(shape, tuple(cells)).is_valid()


def test_conflicts_say_which_digit_where():
    line = "." * 81
    puzzle = Grid.parse(line[:1] + "5" + line[2:6] + "5" + line[7:])  # r1c2 and r1c7
    [conflict] = puzzle.conflicts()
    assert conflict.describe(puzzle.shape) == "5 twice in row 1: r1c2, r1c7"
    assert not puzzle.is_valid()


def test_conflicts_in_column_and_box_with_three_cells():
    g = Grid.empty(Shape(2, 2)).with_value(0, 3).with_value(5, 3).with_value(8, 3)
    described = [c.describe(g.shape) for c in g.conflicts()]
    assert described == [
        "3 twice in column 1: r1c1, r3c1",
        "3 twice in box 1: r1c1, r2c2",
    ]
    g = g.with_value(12, 3)
    assert "3 three times in column 1: r1c1, r3c1, r4c1" in [
        c.describe(g.shape) for c in g.conflicts()
    ]


# -- the checker ----------------------------------------------------------------------------


def test_the_telegram_solution_is_a_solution():
    assert is_solution(Grid.parse(TELEGRAM_SOLUTION), Grid.parse(TELEGRAM))


def test_a_valid_grid_that_drops_a_given_is_not_a_solution():
    relabelled = TELEGRAM_SOLUTION.translate(str.maketrans("12", "21"))
    grid, puzzle = Grid.parse(relabelled), Grid.parse(TELEGRAM)
    assert grid.is_complete() and grid.is_valid()
    assert not is_solution(grid, puzzle)
    assert solution_problem(grid, puzzle) == "r4c2 is 1 but the puzzle gives 2"


def test_a_complete_grid_with_a_repeated_digit_is_not_a_solution():
    broken = Grid.parse("5" + TELEGRAM_SOLUTION[1:])  # r1c1 8 -> 5: two 5s in row 1
    assert broken.is_complete() and not broken.is_valid()
    assert not is_solution(broken, broken)
    assert solution_problem(broken, Grid.empty(broken.shape)).startswith("5 twice in row 1")


def test_an_incomplete_or_other_shape_grid_is_not_a_solution():
    puzzle = Grid.parse(TELEGRAM)
    assert solution_problem(puzzle, puzzle) == "r1c2 is empty"
    four = pattern_solution(Shape(2, 2))
    assert not is_solution(four, puzzle)


@settings(max_examples=60, deadline=None)
@given(solutions(), st.data())
def test_changing_one_cell_of_a_solution_breaks_it(solution, data):
    assert is_solution(solution, Grid.empty(solution.shape))
    assert is_solution(solution, solution)
    k = data.draw(st.integers(0, solution.shape.cells - 1))
    d = data.draw(st.integers(1, solution.n).filter(lambda d: d != solution[k]))
    assert not is_solution(solution.with_value(k, d), Grid.empty(solution.shape))


def naive_is_solution(solution: Grid, puzzle: Grid) -> bool:
    """The rules read off literally: every cell filled, every unit holds 1..N, givens kept."""
    full = set(range(1, solution.n + 1))
    return (
        all(solution.cells)
        and all({solution[k] for k in unit} == full for unit in solution.shape.units)
        and all(d == 0 or solution[k] == d for k, d in enumerate(puzzle.cells))
    )


@settings(max_examples=150, deadline=None)
@given(solutions(), st.data())
def test_the_checker_agrees_with_the_rules_read_literally(solution, data):
    # damage that keeps some units intact: swap two cells of one row (the row stays a
    # permutation), overwrite a cell, empty a cell, or keep the grid and change a given
    shape, n = solution.shape, solution.n
    cells = list(solution.cells)
    how = data.draw(st.sampled_from(["swap", "overwrite", "empty", "given", "none"]))
    k = data.draw(st.integers(0, shape.cells - 1))
    puzzle = Grid.empty(shape)
    if how == "swap":
        j = data.draw(st.integers(0, n - 1))
        r = k // n
        cells[k], cells[r * n + j] = cells[r * n + j], cells[k]
    elif how == "overwrite":
        cells[k] = data.draw(st.integers(1, n))
    elif how == "empty":
        cells[k] = 0
    elif how == "given":
        puzzle = puzzle.with_value(k, data.draw(st.integers(1, n)))
    grid = Grid(shape, tuple(cells))
    assert is_solution(grid, puzzle) == naive_is_solution(grid, puzzle)
    assert (solution_problem(grid, puzzle) is None) == naive_is_solution(grid, puzzle)


def test_the_empty_4x4_grid_has_288_solutions():
    """Every 4x4 Latin square (576 of them), kept by the checker only if its boxes hold 1..4."""
    empty = Grid.empty(Shape(2, 2))
    rows = list(itertools.permutations(range(1, 5)))

    def latin(prefix: tuple[tuple[int, ...], ...]):
        if len(prefix) == 4:
            yield sum(prefix, ())
        for row in rows:
            if all(row[c] != above[c] for above in prefix for c in range(4)):
                yield from latin((*prefix, row))

    squares = list(latin(()))
    assert len(squares) == 576
    assert sum(is_solution(Grid(empty.shape, cells), empty) for cells in squares) == 288


def _nines_cases() -> tuple[list[list[int]], Grid, list[list[int]]]:
    """9x9 grids that each break one rule a way `valid_lines`' 9x9 test (`grid._valid_nines`)
    would miss with one of its parts left out: grids with no givens to keep, then a puzzle
    and grids that break only its givens."""
    cells = list(Grid.parse(TELEGRAM_SOLUTION).cells)
    nine, other = cells.index(9), cells.index(1)
    grids = []
    for k, digit in ((nine, 4), (nine, 0), (nine, 10), (other, 9)):
        changed = list(cells)  # (a 9 made another digit: every unit still holds 1..8)
        changed[k] = digit
        grids.append(changed)
    for a, b in ((0, 1), (0, 9), (0, 3), (0, 27), (0, 10)):  # (a row's, a column's, ... pair)
        swapped = list(cells)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        grids.append(swapped)
    grids.append([(r + c) % 9 + 1 for r in range(9) for c in range(9)])  # (no box 1..9)
    puzzle = Grid.parse(TELEGRAM)
    kept = []
    kept.append([10 - d for d in cells])  # (a solution, not of the puzzle's givens)
    for digit in {1, next(d for d in puzzle.cells if d % 9)}:  # (9 and a digit swapped)
        kept.append([{digit: 9, 9: digit}.get(d, d) for d in cells])
    assert 9 in puzzle.cells
    return grids, puzzle, kept


def test_valid_lines_on_9x9_batches_finds_each_broken_solution():
    """Every broken grid is found alone, first, last and in the middle of a batch of good
    solutions (so a count over the batch cannot hide it), and a batch of good ones passes."""
    grids, puzzle, kept = _nines_cases()
    shape = puzzle.shape
    good = bytes(Grid.parse(TELEGRAM_SOLUTION).cells)
    empty = bytes(81)
    latin = [(3 * (r % 3) + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)]
    assert valid_lines(good * 7 + bytes(latin), empty * 8, shape)
    assert valid_lines(good * 7, puzzle.digit_bytes() * 7, shape)
    for cells, givens in [*((g, empty) for g in grids), *((g, puzzle.digit_bytes()) for g in kept)]:
        bad = bytes(cells)
        if max(cells) <= 9:  # (the rules read by the checker, where a Grid can hold them)
            asked = Grid._from_bytes(shape, givens)
            assert not is_solution(Grid._unchecked(shape, tuple(cells)), asked)
        for batch in (bad, bad + good * 3, good * 3 + bad, good * 2 + bad + good * 2):
            assert not valid_lines(batch, givens * (len(batch) // 81), shape), cells
    # A 9 made 0 in one solution and a cell made 9 in another: the batch's 9s still 9 each.
    one, two = list(good), list(good)
    one[one.index(9)] = 0
    two[two.index(1)] = 9
    assert not valid_lines(bytes(one + two), empty * 2, shape)
