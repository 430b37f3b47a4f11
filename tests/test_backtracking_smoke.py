"""Known facts of the course grids, through the first backend (the contract tests cover all)."""

from conftest import MULTIPLE, TELEGRAM

from sudokubench import Grid, Status, count, is_solution, solve


def test_telegram_has_exactly_one_solution():
    puzzle = Grid.parse(TELEGRAM)
    result = count(puzzle, backend="backtracking", limit=10)
    assert result.exhaustive and result.count == 1
    assert is_solution(result.solutions[0], puzzle)


def test_multiple_has_exactly_28_solutions():
    result = count(MULTIPLE, backend="backtracking", limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert len(set(result.solutions)) == 28


def test_limit_reached_is_not_exhaustive():
    result = solve(MULTIPLE, backend="backtracking", limit=5)
    assert result.status is Status.SOLVED and result.count == 5 and not result.exhaustive
