"""The backend contract (DESIGN.md), checked for every registered backend and variant.

Each test runs once per backend through the `backend_name`/`backend` fixtures, so a backend
added to the registry is covered without editing this file. Puzzles are chosen by the declared
capabilities (`practical_n`, `handles_hard`), never by name, and kept small: these tests run
for every backend.
"""

from __future__ import annotations

import random

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, Stopwatch, collection, pattern_solution

from sudokubench.backend import Backend, SolveResult, Status
from sudokubench.grid import SHAPES, Grid, Shape, is_solution

#: Unsatisfiable without a repeated given: the telegram grid with r1c2 = 4 (its solution has 1).
TELEGRAM_UNSAT = TELEGRAM[:1] + "4" + TELEGRAM[2:]
#: The telegram grid with a second 8 in row 1.
TELEGRAM_CONFLICT = TELEGRAM[:1] + "8" + TELEGRAM[2:]


def practical_n(backend: Backend) -> int:
    """The largest N the backend declares it handles (9 when it does not say)."""
    return getattr(backend, "practical_n", 9)


def check_result(result: SolveResult, backend: Backend, puzzle: Grid, limit: int) -> None:
    """The invariants every result keeps, whatever the puzzle."""
    assert result.backend == backend.name
    assert isinstance(result.status, Status)
    assert result.count == len(result.solutions) <= limit
    assert (result.status is Status.UNSATISFIABLE) == (result.count == 0 and result.exhaustive)
    if result.status in (Status.TIMEOUT, Status.ERROR):
        assert not result.exhaustive
    if result.status is Status.SOLVED:
        assert result.count >= 1
    assert len(set(result.solutions)) == result.count, "a solution was returned twice"
    for solution in result.solutions:
        assert is_solution(solution, puzzle)
    assert result.encode_s >= 0 and result.solve_s >= 0
    assert all(isinstance(v, int | float) for v in result.stats.values())


def solve(backend: Backend, puzzle: Grid | str, limit: int = 1, **kw: float) -> SolveResult:
    """Solve and check the invariants."""
    grid = puzzle if isinstance(puzzle, Grid) else Grid.parse(puzzle)
    result = backend.solve(grid, limit=limit, **kw)
    check_result(result, backend, grid, limit)
    return result


def small_multi(backend: Backend) -> tuple[Grid, int]:
    """A puzzle with several solutions the backend can enumerate quickly, and its count."""
    if practical_n(backend) >= 9:
        return Grid.parse(MULTIPLE), 28
    return Grid.empty(Shape(2, 2)), 288


def test_name_is_the_registry_key(backend_name, backend):
    assert backend.name == backend_name
    version = backend.version()
    assert version is None or isinstance(version, str)


def test_hand_written_backends_report_the_installed_sudokubench_version():
    from importlib import metadata

    import sudokubench
    from sudokubench.solvers import get_backend

    assert sudokubench.__version__ == metadata.version("sudokubench")
    assert get_backend("fast").version() == sudokubench.__version__


def test_limit_1_solves_a_unique_puzzle(backend):
    if practical_n(backend) >= 9:
        result = solve(backend, TELEGRAM)
        assert result.status is Status.SOLVED and str(result.solution) == TELEGRAM_SOLUTION
    else:
        [record] = collection("shidoku4x4", 1)
        result = solve(backend, record.puzzle)
        assert result.status is Status.SOLVED and result.count == 1


def test_limit_2_proves_uniqueness(backend):
    puzzle = TELEGRAM if practical_n(backend) >= 9 else collection("shidoku4x4", 1)[0].puzzle
    result = solve(backend, puzzle, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)


def test_counting_finds_every_solution(backend):
    puzzle, expected = small_multi(backend)
    result = solve(backend, puzzle, limit=expected + 5)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, expected, True)


def test_the_empty_4x4_grid_has_288_solutions(backend):
    if getattr(backend, "practical_count", 288) < 288:
        pytest.skip("declares practical_count < 288")
    result = solve(backend, Grid.empty(Shape(2, 2)), limit=300)
    assert (result.count, result.exhaustive) == (288, True)


def test_reaching_the_limit_is_not_exhaustive(backend):
    puzzle, _ = small_multi(backend)
    result = solve(backend, puzzle, limit=5)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 5, False)


@pytest.mark.parametrize("puzzle", [TELEGRAM_CONFLICT, "11" + "." * 14], ids=["9x9", "4x4"])
def test_conflicting_givens_are_unsatisfiable(backend, puzzle):
    result = solve(backend, puzzle, limit=2)
    assert result.status is Status.UNSATISFIABLE and result.solutions == ()


def test_an_unsatisfiable_4x4_puzzle(backend):
    record = collection("shidoku4x4", 9)[8]
    assert (record.id, str(record.puzzle)) == ("shidoku4x4:9", ".2.....42......3")
    result = solve(backend, record.puzzle, limit=2)
    assert result.status is Status.UNSATISFIABLE


def test_an_unsatisfiable_9x9_puzzle_without_repeated_givens(backend):
    if practical_n(backend) < 9:
        pytest.skip("declares practical_n < 9")
    puzzle = Grid.parse(TELEGRAM_UNSAT)
    assert puzzle.is_valid()
    result = solve(backend, puzzle, limit=2)
    assert result.status is Status.UNSATISFIABLE


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_size_it_declares(backend, shape):
    if shape.n > practical_n(backend):
        pytest.skip(f"{shape.n}x{shape.n} is beyond the declared practical_n")
    rng = random.Random(shape.n)
    solution = pattern_solution(shape)
    relabel = rng.sample(range(1, shape.n + 1), shape.n)
    solution = Grid(shape, tuple(relabel[d - 1] for d in solution))
    puzzle = Grid(shape, tuple(d if rng.random() < 0.6 else 0 for d in solution))
    result = solve(backend, puzzle, timeout=30)
    assert result.status is Status.SOLVED


def test_a_shipped_16x16_puzzle_matches_its_solution(backend):
    if practical_n(backend) < 16:
        pytest.skip("declares practical_n < 16")
    [record] = collection("hexadoku1500", 1)
    result = solve(backend, record.puzzle, limit=2, timeout=30)
    assert result.exhaustive and result.solutions == (record.expected_solution,)


def test_a_hard_9x9_puzzle_if_it_handles_hard_ones(backend):
    if not getattr(backend, "handles_hard", False):
        pytest.skip("does not declare handles_hard")
    [record] = collection("hardest", 1)
    result = solve(backend, record.puzzle, limit=2, timeout=30)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)


@pytest.mark.parametrize("timeout", [0.0, 0.02])
def test_a_tiny_timeout_gives_a_valid_result_quickly(backend, timeout):
    """TIMEOUT (or SOLVED, if the backend is that fast) on a hard puzzle, never a hang."""
    [record] = collection("top95", 1)
    with Stopwatch() as watch:
        result = solve(backend, record.puzzle, limit=2, timeout=timeout)
    watch.within(5)
    assert result.status in (Status.TIMEOUT, Status.SOLVED)
    if result.status is Status.TIMEOUT:
        assert not result.exhaustive


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_below_1_is_refused(backend, limit):
    with pytest.raises(ValueError):
        backend.solve(Grid.parse(TELEGRAM), limit=limit)
