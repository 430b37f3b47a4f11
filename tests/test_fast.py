"""The `fast` backend: known answers on every grid size, counts, stats and the deadline."""

from __future__ import annotations

import random

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, Stopwatch, collection, pattern_solution

from sudokubench import Grid, Status, is_solution
from sudokubench.grid import Shape, shape_of
from sudokubench.solvers import DEFAULT_BACKEND, get_backend
from sudokubench.solvers.fast import Fast, tables

FAST = get_backend("fast")


def blank(grid: Grid, cells: list[int] | set[int]) -> Grid:
    """A copy of `grid` with `cells` emptied."""
    return Grid(grid.shape, tuple(0 if k in cells else d for k, d in enumerate(grid.cells)))


def swap_rectangle(grid: Grid) -> tuple[int, int, int, int]:
    """Four cells r1c1, r1c2, r2c1, r2c2 holding a, b / b, a inside two boxes (a deadly pattern).

    Emptying just these four cells leaves exactly two solutions: the grid and the swap.
    """
    shape, n = grid.shape, grid.n
    for r1 in range(n):
        for r2 in range(r1 + 1, n):
            for c1 in range(n):
                for c2 in range(c1 + 1, n):
                    a, b = grid.value(r1, c1), grid.value(r1, c2)
                    boxes = {shape.box_index(r, c) for r in (r1, r2) for c in (c1, c2)}
                    if (grid.value(r2, c1), grid.value(r2, c2)) == (b, a) and len(boxes) == 2:
                        return (r1 * n + c1, r1 * n + c2, r2 * n + c1, r2 * n + c2)
    raise AssertionError("no swappable rectangle")  # pragma: no cover


@pytest.mark.parametrize("box", [(3, 4), (5, 5)])
def test_a_blank_row_and_column_have_one_completion(box):
    """Each empty cell misses only one digit in its column or row: exactly one solution."""
    full = pattern_solution(shape_of(*box))
    n = full.n
    puzzle = blank(full, {3 * n + c for c in range(n)} | {r * n + 5 for r in range(n)})
    result = FAST.solve(puzzle, limit=10)
    assert (result.count, result.exhaustive) == (1, True)
    assert result.solutions[0] == full


def test_fast_is_the_default_backend():
    assert DEFAULT_BACKEND == "fast"
    assert isinstance(FAST, Fast) and FAST.available()


def test_telegram_has_exactly_one_solution():
    puzzle = Grid.parse(TELEGRAM)
    result = FAST.solve(puzzle, limit=10)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)
    assert str(result.solutions[0]) == TELEGRAM_SOLUTION


def test_multiple_has_exactly_28_solutions():
    puzzle = Grid.parse(MULTIPLE)
    result = FAST.solve(puzzle, limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert len(set(result.solutions)) == 28
    assert all(is_solution(s, puzzle) for s in result.solutions)


def test_limit_reached_is_a_lower_bound():
    result = FAST.solve(Grid.parse(MULTIPLE), limit=28)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 28, False)


def test_empty_4x4_has_288_solutions():
    empty = Grid.empty(shape_of(2, 2))
    result = FAST.solve(empty, limit=1000)
    assert (result.count, result.exhaustive) == (288, True)
    assert len(set(result.solutions)) == 288
    assert all(is_solution(s, empty) for s in result.solutions)


@pytest.mark.parametrize(("box_cols", "squares"), [(2, 2), (3, 12), (4, 576)])
def test_one_row_boxes_count_latin_squares(box_cols, squares):
    """With 1xN boxes the box rule repeats the row rule: the solutions are the Latin squares."""
    empty = Grid.empty(Shape(1, box_cols))
    result = FAST.solve(empty, limit=1000)
    assert (result.count, result.exhaustive) == (squares, True)
    assert len(set(result.solutions)) == squares


def test_6x6_with_first_row_given_has_39168_solutions():
    """28,200,960 6x6 grids, and relabelling digits maps them 720-to-1 onto a fixed first row."""
    shape = shape_of(2, 3)
    puzzle = Grid(shape, (1, 2, 3, 4, 5, 6) + (0,) * 30)
    result = FAST.solve(puzzle, limit=100_000)
    assert (result.count, result.exhaustive) == (39_168, True)
    assert len(set(result.solutions)) == 39_168
    assert all(is_solution(s, puzzle) for s in result.solutions[::997])


@pytest.mark.parametrize("box", [(2, 2), (2, 3), (2, 4), (4, 4)])
def test_a_swappable_rectangle_gives_exactly_two_solutions(box):
    full = pattern_solution(shape_of(*box))
    rectangle = swap_rectangle(full)
    puzzle = blank(full, set(rectangle))
    result = FAST.solve(puzzle, limit=10)
    assert (result.count, result.exhaustive) == (2, True)
    assert full in result.solutions
    assert all(is_solution(s, puzzle) for s in result.solutions)


@pytest.mark.parametrize("box", [(2, 3), (3, 4), (5, 5)])
def test_pattern_grid_with_a_third_of_the_cells_removed(box):
    full = pattern_solution(shape_of(*box))
    n2 = full.shape.cells
    puzzle = blank(full, set(random.Random(7).sample(range(n2), n2 // 3)))
    result = FAST.solve(puzzle, limit=1, timeout=10)
    assert result.status is Status.SOLVED
    assert is_solution(result.solutions[0], puzzle)


def test_kaggle_sample_matches_the_solution_file():
    for record in collection("kaggle9999", 40, step=250):
        result = FAST.solve(record.puzzle, limit=2)
        assert (result.count, result.exhaustive) == (1, True), record.id
        assert result.solutions[0] == record.expected_solution, record.id


def test_hexadoku_sample_matches_the_solution_file():
    for record in collection("hexadoku1500", 10, step=150):
        result = FAST.solve(record.puzzle, limit=2)
        assert (result.count, result.exhaustive) == (1, True), record.id
        assert result.solutions[0] == record.expected_solution, record.id


def test_hard_puzzles_are_solved_and_unique():
    for record in collection("top95", 12, step=8):
        result = FAST.solve(record.puzzle, limit=2)
        assert (result.count, result.exhaustive) == (1, True), record.id
        assert is_solution(result.solutions[0], record.puzzle), record.id


def test_unsatisfiable_4x4():
    record = collection("shidoku4x4")[8]  # line 9: no conflict among the givens, no solution
    assert record.puzzle.is_valid()
    result = FAST.solve(record.puzzle, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


def test_unsatisfiable_9x9_without_conflicting_givens():
    """Row 1 needs 9 in r1c9, but column 9 already has a 9 in row 4."""
    puzzle = Grid.parse("12345678." + "." * 18 + "........9" + "." * 45)
    assert puzzle.is_valid()
    result = FAST.solve(puzzle, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


def test_a_candidate_used_by_none_of_the_28_solutions_is_unsatisfiable():
    """MULTIPLE has exactly 28 solutions; a given none of them has leaves no solution at all."""
    puzzle = Grid.parse(MULTIPLE)
    solutions = FAST.solve(puzzle, limit=100).solutions
    k, d = next(
        (k, d)
        for k in range(81)
        if not puzzle[k]
        for d in puzzle.candidates(k)
        if all(s[k] != d for s in solutions)
    )
    harder = puzzle.with_value(k, d)
    assert harder.is_valid()
    result = FAST.solve(harder, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


def test_conflicting_givens_are_unsatisfiable():
    puzzle = Grid.parse("11" + "." * 79)
    result = FAST.solve(puzzle, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


def test_singles_solve_an_easy_puzzle_without_guessing():
    puzzle = collection("easy50", 1)[0].puzzle
    result = FAST.solve(puzzle, limit=2)
    assert result.count == 1 and result.exhaustive
    assert result.stats["guesses"] == 0 and result.stats["backtracks"] == 0
    assert result.stats["nodes"] == 0


def test_locked_candidates_solve_the_first_top95_puzzle_without_guessing():
    puzzle = collection("top95", 1)[0].puzzle
    result = FAST.solve(puzzle, limit=2)
    assert result.count == 1 and result.exhaustive
    assert result.stats["guesses"] == 0 and result.stats["locked_eliminations"] > 0


def test_stats_of_a_hard_puzzle_show_search():
    puzzle = collection("top95", 4)[3].puzzle  # singles and locked candidates get stuck
    result = FAST.solve(puzzle, limit=2)
    stats = result.stats
    assert result.count == 1 and result.exhaustive
    assert stats["guesses"] > 0 and stats["max_depth"] > 0
    assert stats["nodes"] > stats["guesses"]  # at least two digits tried per branching cell
    assert stats["backtracks"] == stats["nodes"]  # an exhaustive search takes every digit back
    assert 0 < stats["contradictions"] < stats["nodes"]
    assert stats["hidden_singles"] > 0


def test_stopping_at_the_limit_keeps_the_path_to_the_last_solution():
    result = FAST.solve(Grid.parse(MULTIPLE), limit=3)
    stats = result.stats
    assert result.count == 3 and not result.exhaustive
    assert 0 < stats["nodes"] - stats["backtracks"] <= stats["max_depth"]  # the open path


def test_timeout_is_a_result_and_is_honoured():
    empty = Grid.empty(shape_of(3, 3))
    with Stopwatch() as watch:
        result = FAST.solve(empty, limit=10**12, timeout=0.3)
    assert result.status is Status.TIMEOUT and not result.exhaustive
    assert watch.wall >= 0.3  # not before the deadline
    # The search runs here and looks at its deadline between nodes: its CPU is bounded
    # (a search that ignored the deadline would run on through the 10**12 solutions).
    watch.within(0.5)
    assert result.count > 0 and all(is_solution(s, empty) for s in result.solutions[:50])
    assert len(set(result.solutions)) == result.count


def test_tables_are_computed_once_per_shape():
    shape = shape_of(3, 3)
    assert tables(shape) is tables(shape)
    assert [tables(shape).bits[d].bit_length() - 1 for d in (1, 2, 9)] == [0, 5, 40]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "count", "step"),
    [("top95", None, 1), ("hardest", None, 1), ("17clue", 500, 97), ("hexadoku1500", 100, 15)],
)
def test_whole_samples_are_unique_and_right(name, count, step):
    """Every puzzle of these collections has exactly one solution."""
    for record in collection(name, count, step):
        result = FAST.solve(record.puzzle, limit=2, timeout=10)
        assert (result.count, result.exhaustive) == (1, True), record.id
        assert is_solution(result.solutions[0], record.puzzle), record.id
        if record.expected_solution is not None:
            assert result.solutions[0] == record.expected_solution, record.id
