"""Every registered backend agrees with the known answers and with an independent reference.

Each test runs once per registered backend (the `backend_name` fixture of conftest) and per
case, so a new backend is covered as soon as it is in the registry. Puzzles are chosen by the
backend's declared capabilities: one that does not declare `handles_hard` gets no hard 9x9
collection, one whose `practical_n` is below a case's grid size gets no case of that size.

The known answers come from the files (solutions, `puzzle:count` annotations), from facts of
the collections (Norvig's easy50/top95/hardest and the 17-clue puzzles are proper: exactly one
solution each; line 9 of shidoku4x4 has none), from grids built here by a formula (their
solution is known by construction), and from puzzles unsatisfiable by construction. Solution
counts that no file states (multisolution5000) are compared with `dlx`'s, computed once per
session and itself checked against the known facts, so no backend is checked against itself
only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest
from support import MULTIPLE, Stopwatch, collection, pattern_solution

from sudokubench import Grid, Shape, SolveResult, Status, get_backend, is_solution
from sudokubench.backend import Backend
from sudokubench.formats import PuzzleRecord
from sudokubench.grid import solution_problem

#: Per-puzzle timeout: ten times the "about a second" a capable backend declares.
TIMEOUT = 10.0

#: The backend whose exhaustive counts are the reference (exact cover: independent of the
#: propagation-based solvers and of the SAT/CP encodings).
REFERENCE = "dlx"


# -- grids with a known solution, built by a formula ------------------------------------------


def shuffled(grid: Grid, rng: random.Random) -> Grid:
    """The grid after validity-preserving transforms: digits relabelled, rows permuted within
    bands, bands permuted, columns permuted within stacks, stacks permuted."""
    shape = grid.shape
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    labels = list(range(1, n + 1))
    rng.shuffle(labels)
    bands = rng.sample(range(n // br), n // br)
    rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(n // bc), n // bc)
    cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    return Grid.from_cells((labels[grid.value(r, c) - 1] for r in rows for c in cols), shape)


def solved_by_singles(puzzle: Grid) -> Grid | None:
    """The grid that naked singles alone complete, or None: a test-local proof of uniqueness."""
    shape = puzzle.shape
    cells = list(puzzle.cells)
    full = set(range(1, shape.n + 1))
    progress = True
    while progress:
        progress = False
        for k, d in enumerate(cells):
            if not d:
                left = full - {cells[p] for p in shape.peers[k]}
                if len(left) == 1:
                    cells[k] = left.pop()
                    progress = True
    return Grid(shape, tuple(cells)) if all(cells) else None


@cache
def dug_puzzles(box_rows: int, box_cols: int, count: int) -> tuple[tuple[Grid, Grid], ...]:
    """`count` (puzzle, solution) pairs: a shuffled pattern grid with cells removed as long as
    naked singles still recover the whole grid, so the solution is unique and known."""
    shape = Shape(box_rows, box_cols)
    rng = random.Random(box_rows * 100 + box_cols)
    pairs = []
    for _ in range(count):
        solution = shuffled(pattern_solution(shape), rng)
        puzzle = solution
        for k in rng.sample(range(shape.cells), shape.cells):
            trial = puzzle.with_value(k, 0)
            if solved_by_singles(trial) == solution:
                puzzle = trial
        pairs.append((puzzle, solution))
    return tuple(pairs)


@cache
def quickly_dug(box_rows: int, box_cols: int) -> PuzzleRecord:
    """A puzzle with its solution, for big grids: a cell is removed only if it is a naked single
    at that moment, so filling the removed cells back in reverse order is forced at each step
    (unique and known, if less open than `dug_puzzles`)."""
    shape = Shape(box_rows, box_cols)
    rng = random.Random(box_rows * 100 + box_cols)
    solution = shuffled(pattern_solution(shape), rng)
    cells = list(solution.cells)
    for k in rng.sample(range(shape.cells), shape.cells):
        if len({cells[p] for p in shape.peers[k]} - {0}) == shape.n - 1:
            cells[k] = 0
    return PuzzleRecord(f"{shape}-quickly-dug", Grid(shape, tuple(cells)), 1, solution)


def dug_records(box_rows: int, box_cols: int, count: int) -> list[PuzzleRecord]:
    """`dug_puzzles` as records with their known solution."""
    return [
        PuzzleRecord(f"{box_rows}x{box_cols}-dug-{i}", puzzle, 1, solution)
        for i, (puzzle, solution) in enumerate(dug_puzzles(box_rows, box_cols, count))
    ]


# -- the samples ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """Puzzles with known answers, and what a backend must declare to be given them."""

    records: Callable[[], list[PuzzleRecord]]
    hard: bool = False  # needs `handles_hard`
    n: int = 9  # needs `practical_n >= n`
    unique: bool = False  # a fact of the collection: every puzzle has exactly one solution


def _with_counts(records: list[PuzzleRecord], counts: dict[int, int]) -> list[PuzzleRecord]:
    """Records with the count the collection's documentation states for some lines."""
    return [
        PuzzleRecord(r.id, r.puzzle, counts.get(i, r.expected_count), r.expected_solution)
        for i, r in enumerate(records)
    ]


def shidoku() -> list[PuzzleRecord]:
    """All 20 shidoku puzzles; line 9 has no solution, every other exactly one."""
    records = collection("shidoku4x4")
    return _with_counts(records, {i: 0 if i == 8 else 1 for i in range(len(records))})


SAMPLES = {
    "easy50": Sample(lambda: collection("easy50", 4, 12), unique=True),
    "top95": Sample(lambda: collection("top95", 3, 31), hard=True, unique=True),
    "hardest": Sample(lambda: collection("hardest", 3, 4), hard=True, unique=True),
    "17clue": Sample(lambda: collection("17clue", 1), hard=True, unique=True),
    "kaggle9999": Sample(lambda: collection("kaggle9999", 4, 2003)),
    "hexadoku1500": Sample(lambda: collection("hexadoku1500", 1), n=16),
    "shidoku4x4": Sample(shidoku, n=4),
    "course": Sample(lambda: collection("course")),
    "6x6": Sample(lambda: dug_records(2, 3, 4), n=6),
    "8x8": Sample(lambda: dug_records(2, 4, 2), n=8),
    "12x12": Sample(lambda: dug_records(3, 4, 2), n=12),
    "25x25": Sample(lambda: [quickly_dug(5, 5)], n=25),
}

SLOW_SAMPLES = {
    "easy50-all": Sample(lambda: collection("easy50"), unique=True),
    "top95-every5th": Sample(lambda: collection("top95", 19, 5), hard=True, unique=True),
    "hardest-all": Sample(lambda: collection("hardest"), hard=True, unique=True),
    "17clue-50": Sample(lambda: collection("17clue", 50, 401), hard=True, unique=True),
    "kaggle9999-100": Sample(lambda: collection("kaggle9999", 100, 99)),
    "hexadoku1500-10": Sample(lambda: collection("hexadoku1500", 10, 149), n=16),
    "12x12-many": Sample(lambda: dug_records(3, 4, 8), n=12),
}


def require(backend: Backend, *, hard: bool = False, n: int = 9, count: int = 1) -> None:
    """Skip when the backend's declared capabilities exclude these puzzles (or this count)."""
    if hard and not getattr(backend, "handles_hard", True):
        pytest.skip("the backend declares handles_hard = False")
    practical = getattr(backend, "practical_n", 25)
    if n > practical:
        pytest.skip(f"the backend declares practical_n = {practical} < {n}")
    counts = getattr(backend, "practical_count", count)
    if count > counts:
        pytest.skip(f"the backend declares practical_count = {counts} < {count}")


def check_known(backend: Backend, record: PuzzleRecord, unique: bool) -> None:
    """Solve one puzzle and hold the result against everything known about it."""
    expected = 1 if unique and record.expected_count is None else record.expected_count
    if record.expected_solution is not None:
        expected = 1
    limit = 2 if expected is None else expected + 1
    result = backend.solve(record.puzzle, limit=limit, timeout=TIMEOUT)
    where = f"{record.id}: {result.status.name} {result.message}"
    assert result.status in (Status.SOLVED, Status.UNSATISFIABLE), where
    for solution in result.solutions:
        problem = solution_problem(solution, record.puzzle)
        assert problem is None, f"{where}: {problem}"
    if expected is not None:
        assert (result.count, result.exhaustive) == (expected, True), where
    if record.expected_solution is not None:
        assert result.solutions[0] == record.expected_solution, where


@pytest.mark.parametrize("sample", SAMPLES)
def test_known_answers(backend: Backend, sample: str) -> None:
    """Each result agrees with the file's solution or count; every solution is valid."""
    case = SAMPLES[sample]
    require(backend, hard=case.hard, n=case.n)
    for record in case.records():
        check_known(backend, record, case.unique)


@pytest.mark.slow
@pytest.mark.parametrize("sample", SLOW_SAMPLES)
def test_known_answers_bigger_samples(backend: Backend, sample: str) -> None:
    """The same, on bigger samples."""
    case = SLOW_SAMPLES[sample]
    require(backend, hard=case.hard, n=case.n)
    for record in case.records():
        check_known(backend, record, case.unique)


# -- counts compared with the reference ---------------------------------------------------------


def _first_rows(grid: Grid, rows: int) -> Grid:
    """The grid with only its first `rows` rows given."""
    keep = rows * grid.n
    return Grid(grid.shape, grid.cells[:keep] + (0,) * (len(grid) - keep))


def _multisolution(line: int) -> Grid:
    return collection("multisolution5000", line)[-1].puzzle


@dataclass(frozen=True)
class Case:
    """One puzzle, and what a backend must declare to be given it."""

    build: Callable[[], Grid]
    n: int = 9
    hard: bool = False


#: Counts compared with the reference; small enough for every capable backend to enumerate.
COUNT_CASES = {
    "multiple": Case(lambda: Grid.parse(MULTIPLE)),
    "empty-4x4": Case(lambda: Grid.empty(Shape(2, 2)), n=4),
    "multisolution-6": Case(lambda: _multisolution(6)),
    "multisolution-26": Case(lambda: _multisolution(26)),
    "multisolution-34": Case(lambda: _multisolution(34)),
    "6x6-three-rows": Case(lambda: _first_rows(dug_puzzles(2, 3, 1)[0][1], 3), n=6),
    "kaggle-altered": Case(lambda: _altered(collection("kaggle9999", 1)[0].puzzle)),
    "top95-altered": Case(lambda: _altered(collection("top95", 2)[1].puzzle, 33), hard=True),
}

SLOW_COUNT_CASES = {
    f"multisolution-{line}": Case(lambda line=line: _multisolution(line)) for line in range(1, 21)
}

ALL_COUNT_CASES = {**COUNT_CASES, **SLOW_COUNT_CASES}


def _altered(puzzle: Grid, start: int = 0) -> Grid:
    """The puzzle with its first given from cell `start` on replaced by the smallest digit that
    conflicts with no given: no longer the puzzle its solution belongs to."""
    for k in range(start, len(puzzle)):
        if d := puzzle[k]:
            for other in range(1, puzzle.n + 1):
                if other != d and puzzle.with_value(k, 0).can_place(k, other):
                    return puzzle.with_value(k, other)
    raise AssertionError("no given could be changed")  # pragma: no cover


@pytest.fixture(scope="session")
def reference() -> dict[str, SolveResult]:
    """Every count case solved exhaustively once per session by the reference backend."""
    ref = get_backend(REFERENCE)
    results = {}
    for name, case in ALL_COUNT_CASES.items():
        result = ref.solve(case.build(), limit=100_000, timeout=60)
        assert result.exhaustive, f"{REFERENCE} did not finish {name}"
        results[name] = result
    return results


def test_reference_agrees_with_known_facts(reference: dict[str, SolveResult]) -> None:
    """The reference itself: the facts about the count cases that are known independently."""
    assert reference["multiple"].count == 28
    assert reference["empty-4x4"].count == 288
    for name, result in reference.items():
        puzzle = ALL_COUNT_CASES[name].build()
        assert len(set(result.solutions)) == result.count
        assert all(is_solution(s, puzzle) for s in result.solutions), name
        if name.startswith("multisolution"):
            assert result.count >= 2, f"{name} is in the multi-solution collection"
    assert dug_puzzles(2, 3, 1)[0][1] in reference["6x6-three-rows"].solutions
    kaggle = collection("kaggle9999", 1)[0].expected_solution
    assert kaggle not in reference["kaggle-altered"].solutions
    assert reference["top95-altered"].stats["guesses"] > 0, "a case that needs search"


def check_count(backend: Backend, name: str, case: Case, ref: SolveResult) -> None:
    """The backend's exhaustive count and solution set equal the reference's."""
    require(backend, hard=case.hard, n=case.n, count=ref.count)
    puzzle = case.build()
    result = backend.solve(puzzle, limit=ref.count + 1, timeout=TIMEOUT)
    where = f"{name}: {result.status.name} {result.message}"
    assert result.exhaustive, where
    assert result.count == ref.count, where
    assert set(result.solutions) == set(ref.solutions), where
    assert all(is_solution(s, puzzle) for s in result.solutions), where


@pytest.mark.parametrize("case", COUNT_CASES)
def test_counts_agree_with_reference(
    backend: Backend, case: str, reference: dict[str, SolveResult]
) -> None:
    """Exhaustive counts and solution sets equal the reference's."""
    check_count(backend, case, COUNT_CASES[case], reference[case])


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_COUNT_CASES)
def test_counts_agree_with_reference_slice(
    backend: Backend, case: str, reference: dict[str, SolveResult]
) -> None:
    """The same on the first 20 lines of multisolution5000."""
    check_count(backend, case, SLOW_COUNT_CASES[case], reference[case])


# -- no solution: by construction, and by conflicting givens ------------------------------------


def no_candidate(shape: Shape) -> Grid:
    """Row 1 holds 1..N-1 in its first cells and N is given in the last column lower down, so
    the last cell of row 1 has no candidate (and no two givens conflict)."""
    n = shape.n
    cells = [0] * shape.cells
    cells[: n - 1] = range(1, n)
    cells[(n - 1) * n + n - 1] = n  # last row, last column: outside row 1's box
    return Grid(shape, tuple(cells))


def no_place_9x9() -> Grid:
    """Digit 1 has no place in row 1: columns 1-8 hold a 1 lower down, r1c9 holds a 2."""
    cells = [0] * 81
    for r, c in ((3, 0), (4, 3), (5, 6), (6, 1), (7, 4), (8, 7), (1, 2), (2, 5)):
        cells[r * 9 + c] = 1
    cells[8] = 2
    return Grid(Shape(3, 3), tuple(cells))


UNSAT_CASES = {
    **{
        f"no-candidate-{shape.n}x{shape.n}": Case(lambda shape=shape: no_candidate(shape), shape.n)
        for shape in (Shape(2, 2), Shape(2, 3), Shape(3, 3), Shape(3, 4), Shape(4, 4))
    },
    "no-place-9x9": Case(no_place_9x9),
    "shidoku-line-9": Case(lambda: collection("shidoku4x4", 9)[8].puzzle, n=4),
}


def _conflict(text: str, k: int, d: int) -> Callable[[], Grid]:
    return lambda: Grid.parse(text).with_value(k, d)


CONFLICT_CASES = {
    "row": Case(_conflict(MULTIPLE, 3, 8)),  # r1c1 is 8
    "column": Case(_conflict(MULTIPLE, 9, 8)),
    "box": Case(_conflict(MULTIPLE, 10, 9)),  # r1c3 is 9
    "4x4-box": Case(_conflict("1...............", 5, 1), n=4),
    "16x16-row": Case(lambda: Grid.empty(Shape(4, 4)).with_value(0, 16).with_value(15, 16), n=16),
}


def test_unsatisfiable_builders() -> None:
    """The unsatisfiable cases have no conflicting givens; the conflict cases do."""
    for case in UNSAT_CASES.values():
        assert case.build().is_valid()
    for case in CONFLICT_CASES.values():
        assert not case.build().is_valid()


def check_unsatisfiable(backend: Backend, case: Case) -> None:
    """The backend proves that the case has no solution."""
    require(backend, hard=case.hard, n=case.n)
    result = backend.solve(case.build(), limit=2, timeout=TIMEOUT)
    assert result.status is Status.UNSATISFIABLE, f"{result.status.name} {result.message}"
    assert (result.count, result.exhaustive) == (0, True)


@pytest.mark.parametrize("case", UNSAT_CASES)
def test_unsatisfiable(backend: Backend, case: str) -> None:
    """A puzzle with no solution (and no conflicting givens) is UNSATISFIABLE, exhaustively."""
    check_unsatisfiable(backend, UNSAT_CASES[case])


@pytest.mark.parametrize("case", CONFLICT_CASES)
def test_conflicting_givens(backend: Backend, case: str) -> None:
    """Givens that repeat a digit in a unit: UNSATISFIABLE, never an exception."""
    check_unsatisfiable(backend, CONFLICT_CASES[case])


# -- the deadline --------------------------------------------------------------------------------


def test_timeout_is_a_result_within_half_a_second(backend: Backend) -> None:
    """Counting all solutions of an almost empty 9x9 grid with timeout 0.3 s: TIMEOUT, on time.

    The grid has about 10^21 solutions, so no backend finishes; the solutions found before the
    deadline are kept and valid.
    """
    puzzle = Grid.empty(Shape(3, 3)).with_value(0, 1)
    with Stopwatch() as watch:
        result = backend.solve(puzzle, limit=10**12, timeout=0.3)
    assert result.status is Status.TIMEOUT, f"{result.status.name} {result.message}"
    assert not result.exhaustive
    watch.within(0.3 + 0.5)  # CPU, and wall clock scaled by the machine's load
    assert len(set(result.solutions)) == result.count
    for solution in result.solutions[:50] + result.solutions[-50:]:
        assert is_solution(solution, puzzle)
