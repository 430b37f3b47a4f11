"""Generation: complete grids, unique puzzles (checked by every capable backend), symmetry,
minimality, clue targets, seeds, worker processes, and the `generate` command."""

from __future__ import annotations

import random
from functools import cache

import pytest

from sudokubench import Grid, Status, is_solution
from sudokubench.backend import Backend, BaseBackend, Deadline, SolveResult, make_result
from sudokubench.cli import main
from sudokubench.formats import read_puzzles
from sudokubench.generate import (
    GenerationError,
    Level,
    Symmetry,
    dig,
    is_minimal,
    is_symmetric,
    make_puzzle,
    random_solution,
    rate,
)
from sudokubench.generate.batch import Request, generate_puzzles
from sudokubench.generate.digging import DigCounters, orbits, redundant_clues
from sudokubench.grid import SHAPES, Shape, shape_of
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

#: (box rows, box cols, clue target): 16x16 stops digging at 115 givens to stay fast.
CASES = [(2, 2, None), (2, 3, None), (3, 3, None), (4, 4, 115)]


@cache
def generated(
    box_rows: int,
    box_cols: int,
    clues: int | None = None,
    symmetry: Symmetry = Symmetry.NONE,
    minimal: bool = False,
    seed: int = 11,
) -> tuple[Grid, Grid]:
    """A generated puzzle and its solution, made once per test session."""
    shape = shape_of(box_rows, box_cols)
    return make_puzzle(shape, seed, symmetry=symmetry, minimal=minimal, clues=clues)


def count_solutions(backend: Backend, puzzle: Grid) -> int:
    """The backend's exact count up to 2 (the test fails if the search did not finish)."""
    result = backend.solve(puzzle, limit=2)
    assert result.status in (Status.SOLVED, Status.UNSATISFIABLE), result
    return result.count


# -- complete grids ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES[:-1], ids=str)
def test_random_solution_is_a_complete_valid_grid(shape: Shape) -> None:
    for seed in range(3):
        grid = random_solution(shape, seed)
        assert is_solution(grid, Grid.empty(shape))


@pytest.mark.slow
def test_random_solution_25x25() -> None:
    shape = shape_of(5, 5)
    grid = random_solution(shape, 1)
    assert is_solution(grid, Grid.empty(shape))


def naive_fill(shape: Shape, rng: random.Random) -> Grid:
    """The source material's method: each cell in order gets a random digit still among its
    candidates, 0 when none is left, and no going back."""
    grid = Grid.empty(shape)
    for k in range(shape.cells):
        options = grid.candidates(k)
        grid = grid.with_value(k, rng.choice(options) if options else 0)
    return grid


def test_the_naive_fill_dead_ends_where_ours_completes() -> None:
    shape = shape_of(3, 3)
    naive = [naive_fill(shape, random.Random(seed)) for seed in range(20)]
    assert sum(not grid.is_complete() for grid in naive) >= 15  # zeros, as the source printed
    assert all(random_solution(shape, seed).is_complete() for seed in range(20))


def test_random_solution_is_reproducible_and_varied() -> None:
    shape = shape_of(3, 3)
    assert random_solution(shape, 42) == random_solution(shape, 42)
    assert len({random_solution(shape, seed) for seed in range(20)}) == 20


# -- unique puzzles ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0] * c[1]}x{c[0] * c[1]}")
def test_generated_puzzle_keeps_its_solution(case: tuple[int, int, int | None]) -> None:
    puzzle, solution = generated(*case)
    assert is_solution(solution, puzzle)
    assert puzzle.givens <= (case[2] or puzzle.shape.cells // 2)


def test_generated_puzzles_are_unique_for_every_backend(backend: Backend) -> None:
    """Every backend able to handle the size counts exactly one solution, the dug-from grid."""
    checked = 0
    for case in CASES:
        if case[0] * case[1] > backend.practical_n:
            continue
        puzzle, solution = generated(*case)
        result = backend.solve(puzzle, limit=2)
        assert result.exhaustive and result.count == 1, (case, result)
        assert result.solutions[0] == solution
        checked += 1
    assert checked >= 2


def test_dig_keeps_a_clue_that_is_needed() -> None:
    """Removing one more clue from a minimal dug puzzle gives two solutions (a counting check
    independent of the dig's own proof)."""
    puzzle, _ = generated(3, 3)
    solver = get_backend(DEFAULT_BACKEND)
    for k, d in enumerate(puzzle.cells):
        if d:
            assert count_solutions(solver, puzzle.with_value(k, 0)) == 2, k


@pytest.mark.parametrize("symmetry", list(Symmetry), ids=lambda s: s.value)
def test_symmetry_is_kept(symmetry: Symmetry) -> None:
    for case in CASES:
        puzzle, solution = generated(*case, symmetry=symmetry)
        assert is_symmetric(puzzle, symmetry)
        assert count_solutions(get_backend(DEFAULT_BACKEND), puzzle) == 1
        assert is_solution(solution, puzzle)
        if case[2] is not None:
            assert case[2] - 4 < puzzle.givens <= case[2]  # an orbit has at most 4 cells


def test_symmetry_orbits() -> None:
    shape = shape_of(3, 3)
    assert len(orbits(shape, Symmetry.NONE)) == 81
    assert len(orbits(shape, Symmetry.ROT180)) == 41  # 40 pairs and the centre
    assert len(orbits(shape, Symmetry.ROT90)) == 21  # 20 quadruples and the centre
    assert len(orbits(shape, Symmetry.MIRROR)) == 45  # 36 pairs and column 5
    assert len(orbits(shape, Symmetry.DIAGONAL)) == 45  # 36 pairs and the diagonal
    assert (0, 8, 72, 80) in orbits(shape, Symmetry.ROT90)
    lopsided = Grid.parse("1" + "." * 80)
    assert not is_symmetric(lopsided, Symmetry.ROT180)
    assert is_symmetric(lopsided, Symmetry.DIAGONAL)  # r1c1 is on the diagonal


@pytest.mark.parametrize("symmetry", [Symmetry.NONE, Symmetry.ROT180], ids=lambda s: s.value)
@pytest.mark.parametrize("box", [(2, 2), (2, 3), (3, 3)], ids=lambda b: f"{b[0] * b[1]}")
def test_minimal_when_asked(box: tuple[int, int], symmetry: Symmetry) -> None:
    puzzle, _solution = generated(*box, symmetry=symmetry, minimal=True)
    assert is_symmetric(puzzle, symmetry)
    assert is_minimal(puzzle)
    solver = get_backend(DEFAULT_BACKEND)
    for k, d in enumerate(puzzle.cells):
        if d:
            assert count_solutions(solver, puzzle.with_value(k, 0)) == 2


def test_minimal_with_a_clue_target() -> None:
    """--minimal --clues N: a full dig, kept when it has at most N givens."""
    puzzle, _solution = make_puzzle(shape_of(3, 3), 4, minimal=True, clues=24)
    assert puzzle.givens <= 24
    assert is_minimal(puzzle)


def test_symmetric_dig_can_leave_redundant_clues() -> None:
    """Why --minimal with a symmetry needs its own check: whole orbits are removed, so some
    single clue of a symmetric puzzle is often redundant (found in one of a few seeds)."""
    found = False
    for seed in range(6):
        puzzle, solution = generated(3, 3, symmetry=Symmetry.ROT90, seed=seed)
        redundant = redundant_clues(puzzle, solution)
        for k in redundant:
            assert count_solutions(get_backend(DEFAULT_BACKEND), puzzle.with_value(k, 0)) == 1
        found |= bool(redundant)
    assert found


def test_clue_target() -> None:
    puzzle, _solution = generated(3, 3, clues=40)
    assert 39 <= puzzle.givens <= 40
    assert count_solutions(get_backend(DEFAULT_BACKEND), puzzle) == 1
    with pytest.raises(GenerationError, match="at most 3 givens"):
        make_puzzle(shape_of(2, 2), 1, clues=3)  # 4x4 puzzles need 4 givens


def test_same_seed_same_puzzle() -> None:
    for box_rows, box_cols, clues in CASES:
        shape = shape_of(box_rows, box_cols)
        first = make_puzzle(shape, 99, symmetry=Symmetry.ROT180, clues=clues)
        assert make_puzzle(shape, 99, symmetry=Symmetry.ROT180, clues=clues) == first
        assert make_puzzle(shape, 100, symmetry=Symmetry.ROT180, clues=clues) != first


def test_both_uniqueness_proofs_dig_the_same_puzzle() -> None:
    """ "exclude" and "count" answer the same question, so from the same grid and order they
    keep the same clues; "exclude" needs no solve for cells left with one candidate."""
    solution = random_solution(shape_of(3, 3), 5)
    by_exclusion, by_count = DigCounters(), DigCounters()
    a = dig(solution, 8, method="exclude", counters=by_exclusion)
    b = dig(solution, 8, method="count", counters=by_count)
    assert a == b
    assert by_exclusion.kept == by_count.kept == 81 - a.givens
    assert by_exclusion.free > 0
    with pytest.raises(ValueError, match="unknown method"):
        dig(solution, 8, method="guess")
    with pytest.raises(ValueError, match="complete valid grid"):
        dig(Grid.empty(shape_of(3, 3)))


class NeverSolves(BaseBackend):
    """A broken backend: every puzzle is UNSATISFIABLE."""

    name = "never-solves"

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        return make_result(self.name, [], finished=True)


def test_a_backend_that_wrongly_says_unsatisfiable_is_caught() -> None:
    """Each exclusion solve would say "no other solution", so the dig would empty the grid;
    the final limit-2 count refuses the result."""
    solution = random_solution(shape_of(3, 3), 3)
    for method in ("exclude", "count"):
        with pytest.raises(GenerationError, match="never-solves is not reliable"):
            dig(solution, 1, method=method, backend=NeverSolves())


# -- batches -----------------------------------------------------------------------------------


def test_levels_are_kept_and_jobs_do_not_change_the_output() -> None:
    request = Request(shape_of(3, 3), Level.MEDIUM)
    serial = list(generate_puzzles(request, 3, 7, jobs=1))
    parallel = list(generate_puzzles(request, 3, 7, jobs=2))
    assert [g.puzzle for g in serial] == [g.puzzle for g in parallel]
    assert len(serial) == 3
    for made in serial:
        assert rate(made.puzzle).level is Level.MEDIUM  # rated again, through the backend
        assert is_solution(made.solution, made.puzzle)


def test_unreachable_level_is_an_error() -> None:
    request = Request(shape_of(2, 2), Level.HARD)
    with pytest.raises(GenerationError, match="found only 0 of 1 hard puzzles in 50 attempts"):
        list(generate_puzzles(request, 1, 1, max_attempts=50))


# -- the command -------------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    return int(stop.value.code or 0), out, err


def test_generate_command_annotated_file(tmp_path, capsys) -> None:
    target = tmp_path / "hard.txt"
    argv = ["generate", "-c", "2", "-d", "hard", "--seed", "3", "--annotate", "-o", str(target)]
    code, out, err = run([*argv, "--symmetry", "rot180"], capsys)
    assert code == 0, err
    assert out == ""
    assert "generated 2 hard 9x9 puzzles" in err and "seed 3" in err
    records = list(read_puzzles(target))
    assert len(records) == 2
    for record in records:
        assert record.expected_count == 1
        assert is_solution(record.expected_solution, record.puzzle)
        assert is_symmetric(record.puzzle, Symmetry.ROT180)
        assert rate(record.puzzle).level is Level.HARD


def test_generate_command_is_reproducible(capsys) -> None:
    argv = ["generate", "--size", "6", "-c", "4", "--seed", "12"]
    first = run(argv, capsys)[1]
    again = run([*argv, "--jobs", "2"], capsys)[1]
    assert first == again
    lines = first.split()
    assert len(lines) == 4
    for line in lines:
        assert count_solutions(get_backend(DEFAULT_BACKEND), Grid.parse(line)) == 1


def test_generate_command_complete_grids(capsys) -> None:
    argv = ["generate", "--complete", "--box", "2x4", "-c", "3", "--seed", "5"]
    code, out, err = run(argv, capsys)
    assert code == 0
    assert "generated 3 8x8 complete grids" in err
    grids = [Grid.parse(line) for line in out.split()]
    assert len(set(grids)) == 3
    for grid in grids:
        assert grid.n == 8
        assert is_solution(grid, Grid.empty(grid.shape))
    assert run(argv, capsys)[1] == out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--difficulty", "fiendish"], "unknown difficulty 'fiendish'"),
        (["--symmetry", "spiral"], "unknown symmetry 'spiral'"),
        (["--size", "7"], "no box shape for a 7x7 grid"),
        (["--clues", "90"], "only 81 cells"),
        (["--backend", "nosuch"], "unknown backend"),
        (["--complete", "--minimal"], "--complete writes whole grids"),
    ],
)
def test_generate_command_bad_usage(argv: list[str], message: str, capsys) -> None:
    code, _out, err = run(["generate", *argv], capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_generate_command_box_and_level(capsys) -> None:
    argv = ["generate", "--box", "2x2", "-c", "3", "--seed", "1", "-d", "simple"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    lines = out.split()
    assert len(lines) == 3
    for line in lines:
        puzzle = Grid.parse(line)
        assert puzzle.n == 4
        assert rate(puzzle).level is Level.SIMPLE


@pytest.mark.slow
def test_minimal_16x16() -> None:
    """A full dig of a 16x16 grid: unique, and every clue needed (counted, not excluded)."""
    puzzle, solution = make_puzzle(shape_of(4, 4), 2)
    solver = get_backend(DEFAULT_BACKEND)
    assert count_solutions(solver, puzzle) == 1
    assert is_solution(solution, puzzle)
    for k, d in enumerate(puzzle.cells):
        if d:
            assert count_solutions(solver, puzzle.with_value(k, 0)) == 2
