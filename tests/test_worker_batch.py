"""A worker's usual batch straight to its columnar message (`batch.solved_columns`, checked by
`grid.valid_lines`): the same message, value for value, as `to_columns` of `finish`ed outcomes,
and None (today's path) for anything it cannot vouch for."""

from __future__ import annotations

import random
from types import MappingProxyType

import pytest
from support import MULTIPLE, TELEGRAM, collection, pattern_cells, pattern_solution

from sudokubench import grid
from sudokubench.backend import SolveResult, Status, Timed
from sudokubench.grid import SHAPES, Grid, Shape, is_solution, valid_lines
from sudokubench.harness.pool import Task, failed
from sudokubench.harness.pool.batch import solved_columns, to_columns
from sudokubench.harness.pool.worker import Solved, _failed, finish, solve
from sudokubench.solvers import get_backend

PUZZLES = [str(r.puzzle) for r in collection("17clue", 120)]


@pytest.fixture(params=["arrays", "lanes"], autouse=True)
def check_path(request, monkeypatch):
    """Every test both ways `valid_lines` checks a batch: with numpy's arrays (here for any
    batch, not only from `ARRAYS_FROM` solutions) and with the integers' lanes (numpy taken
    out of the modules it looks in)."""
    import numpy  # noqa: F401  (imported in a `native` worker before any batch)

    if request.param == "arrays":
        monkeypatch.setattr(grid, "ARRAYS_FROM", 1)
    else:
        monkeypatch.setattr(grid, "_modules", {})
    return request.param


def both(done: list[Solved]) -> tuple | None:
    """The batch's message both ways: `solved_columns` None or equal to today's (by `repr`,
    which tells an int from a float and every float's bits, and NaN from NaN's absence)."""
    old = to_columns([finish(s) for s in done])
    new = solved_columns(done)
    assert new is None or repr(new) == repr(old)
    return new


def tasks_of(lines: list[str], backend: str, limit: int = 2) -> list[Task]:
    return [Task(k, f"t:{k}", p, None, backend, limit, 10.0, 0) for k, p in enumerate(lines)]


def solved_with(backend: str, lines: list[str], limit: int = 2) -> list[Solved]:
    runner = get_backend(backend)
    assert runner.available()
    return [solve(runner, task) for task in tasks_of(lines, backend, limit)]


def blanked(shape, keep: float, seed: int) -> str:
    """A puzzle of the shape: the pattern grid with cells blanked (many solutions when few
    are kept)."""
    rng = random.Random(seed)
    cells = [d if rng.random() < keep else 0 for d in pattern_cells(shape)]
    return str(Grid(shape, tuple(cells)))


@pytest.mark.parametrize("backend", ["native", "fast"])
def test_the_usual_batch_goes_straight_to_the_same_columns(backend):
    done = solved_with(backend, [*PUZZLES, TELEGRAM])
    message = both(done)
    assert message is not None  # (the batch's path taken)
    _, values, cpus, waits, kinds, efforts = message
    assert len(cpus) == len(waits) == len(kinds) == len(efforts) == len(done)
    assert values[10::21].count("[]") == 0 and None not in waits


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_shape_and_several_solutions_an_answer(shape):
    lines = [blanked(shape, keep, seed) for seed, keep in enumerate((0.9, 0.8, 0.3, 0.97))]
    for limit in (1, 2, 3):
        done = solved_with("native", lines, limit)
        message = both(done)
        assert message is not None
        verdicts = message[1][16::21]
        if limit > 1:
            assert any(v.startswith(">=") for v in verdicts)  # (several solutions sent)


def test_several_and_unsatisfiable_answers_in_one_batch():
    conflict = "11" + PUZZLES[0][2:]  # (two 1s in row 1: unsatisfiable without a search)
    lines = [MULTIPLE, conflict, *PUZZLES[:5], conflict, MULTIPLE]
    for limit in (1, 2, 30):
        message = both(solved_with("native", lines, limit))
        assert message is not None
        assert message[1][7::21].count("unsatisfiable") == 2
        assert message[1][10::21][1] == "[]"


def result(puzzle: Grid, **fields) -> SolveResult:
    """An honest answer of `puzzle` (native's, limit 2) with `fields` put in as they are
    (past `SolveResult`'s own checks, as a plug-in can)."""
    answer = get_backend("native").solve(puzzle, limit=2)
    made = object.__new__(SolveResult)
    object.__setattr__(made, "__dict__", {**answer.__dict__, "encode_s": 0.0, "solve_s": 0.0})
    for name, value in fields.items():
        object.__setattr__(made, name, value)
    return made


def held(task: Task, puzzle: Grid, answer, peak=1 << 20, wait=1.5e-6, times=(1e-5, 2e-5)):
    timed = Timed(answer, times[0], times[1], 3.25e-5, wait)
    return Solved(task, puzzle, timed, None, peak, wait)


def usual(count: int = 6) -> list[Solved]:
    return solved_with("native", PUZZLES[:count])


def with_one(odd: Solved, at: int = 3) -> list[Solved]:
    done = usual()
    done[at] = odd
    return done


def odd_cases() -> dict[str, tuple[Solved, bool]]:
    """Odd tasks (each put into a usual batch), and whether the batch's path may take it."""
    base = usual(1)[0]
    task, puzzle = base.task._replace(task_id=3), base.puzzle
    answer = base.timed.answer
    good = answer.solutions[0]
    stats = dict(answer.stats)
    wrong = Grid(puzzle.shape, tuple(pattern_cells(puzzle.shape)))
    hole = Grid._unchecked(puzzle.shape, (0, *good.cells[1:]))
    big = Grid._unchecked(puzzle.shape, (good.cells[0] + 9, *good.cells[1:]))

    def odd(**fields):
        return held(task, puzzle, result(puzzle, **fields))

    return {
        "honest, held by hand": (odd(), True),
        "count over its one grid": (odd(count=2, exhaustive=False), True),
        "a count of 100 under a limit of 200": (
            held(task._replace(limit=200), puzzle, result(puzzle, count=100, exhaustive=False)),
            True,
        ),
        "a float stat": (odd(stats=MappingProxyType({**stats, "nodes": 2.5})), True),
        "a failure": (_failed(failed(task, Status.ERROR, "cannot read it")), False),
        "a timeout": (odd(status=Status.TIMEOUT, exhaustive=False), False),
        "a wrong grid": (odd(solutions=(wrong,)), False),
        "a grid with a hole": (odd(solutions=(hole,)), False),
        "a cell over N": (odd(solutions=(big,)), False),
        "a repeated solution": (odd(solutions=(good, good), count=2, exhaustive=False), False),
        "a count over the limit": (odd(count=3, exhaustive=False), False),
        "a solution as text": (odd(solutions=(str(good),)), False),
        "solved with no solution": (odd(solutions=(), count=0), False),
        "its own times": (odd(encode_s=0.5), False),
        "a long message": (odd(message="x" * 1001), False),
        "a message not text": (odd(message=7), False),
        "a count not an int": (odd(count=1.0), False),
        "a NaN stat": (odd(stats=MappingProxyType({**stats, "nodes": float("nan")})), False),
        "an infinite stat": (odd(stats=MappingProxyType({**stats, "nodes": float("inf")})), False),
        "a bool stat": (odd(stats=MappingProxyType({**stats, "nodes": True})), False),
        "a text stat": (odd(stats=MappingProxyType({**stats, "nodes": "1"})), False),
        "a huge stat": (odd(stats=MappingProxyType({**stats, "nodes": 2**63})), False),
        "the worker's own key": (odd(stats=MappingProxyType({**stats, "cpu_s": 1.0})), False),
        "other keys": (odd(stats=MappingProxyType({"guesses": 1})), False),
        "stats not a proxy": (odd(stats=stats), False),
        "a NaN time": (held(task, puzzle, result(puzzle), times=(float("nan"), 0.0)), False),
        "a negative time": (held(task, puzzle, result(puzzle), times=(-1.0, 0.0)), False),
        "no peak here": (held(task, puzzle, result(puzzle), peak=None), False),
        "no wait here": (held(task, puzzle, result(puzzle), wait=None), False),
        "a status that is its text": (odd(status="solved"), False),
        "unsatisfiable with its solution": (odd(status=Status.UNSATISFIABLE), False),
        "unsatisfiable with a count": (
            odd(status=Status.UNSATISFIABLE, solutions=(), count=1, exhaustive=True),
            False,
        ),
        "unsatisfiable, not exhaustive": (
            odd(status=Status.UNSATISFIABLE, solutions=(), count=0, exhaustive=False),
            False,
        ),
        "unsatisfiable as it says": (
            odd(status=Status.UNSATISFIABLE, solutions=(), count=0, exhaustive=True),
            True,
        ),
        "a solution of another shape": (odd(solutions=(pattern_solution(SHAPES[0]),)), False),
        "a solution of an equal shape": (
            odd(solutions=(Grid._unchecked(Shape(3, 3), good.cells),)),
            False,
        ),
        "another shape": (
            held(task, pattern_solution(SHAPES[0]), result(pattern_solution(SHAPES[0]))),
            False,
        ),
    }


@pytest.mark.parametrize("case", list(odd_cases()))
def test_an_odd_task_makes_the_same_message_or_goes_finishs_way(case):
    odd, taken = odd_cases()[case]
    message = both(with_one(odd))
    assert (message is not None) == taken
    if case == "a count of 100 under a limit of 200":
        assert message[1][3 * 21 + 16] == ">=100"


def test_counts_of_64_and_more_and_mixed_claims_in_one_batch():
    """Counts past the verdicts' table, exhaustive and not, several solutions and one, in one
    batch (every answer's own verdict)."""
    shape = Shape(3, 3)
    many = blanked(shape, 0.3, 7)  # (thousands of solutions)
    lines = [many, *PUZZLES[:3], MULTIPLE, many]
    for limit in (2, 63, 64, 100):
        message = both(solved_with("native", lines, limit))
        assert message is not None
        verdicts = message[1][16::21]
        assert verdicts[1:4] == ["=1"] * 3 and verdicts[0] == f">={limit}"


def test_uniform_odd_batches_still_agree():
    """Batches all of one kind the batch's path can take: no peak, no wait, other stats."""
    base = usual(4)
    plain = [held(s.task, s.puzzle, result(s.puzzle), peak=None, wait=None) for s in base]
    assert both(plain) is not None
    keys = {"nodes": 3, 'we"ird%s\\ \u00e9': 1.5, "decisions": -4, "x" * 64: 0.0}
    odd = [held(s.task, s.puzzle, result(s.puzzle, stats=MappingProxyType(keys))) for s in base]
    message = both(odd)
    assert message is not None
    assert message[4] == bytes([1]) * 4  # (the effort: "nodes", before "decisions")
    none = [held(s.task, s.puzzle, result(s.puzzle, stats=MappingProxyType({}))) for s in base]
    assert both(none) is not None


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_valid_lines_says_what_is_solution_says(shape):
    rng = random.Random(shape.n)
    solution = pattern_cells(shape)
    n, size = shape.n, shape.cells
    puzzle = Grid(shape, tuple(d if rng.random() < 0.3 else 0 for d in solution))
    grids = [list(solution)]
    for _ in range(60):
        cells = list(solution)
        k, j = rng.randrange(size), rng.randrange(size)
        kind = rng.randrange(4)
        if kind == 0:
            cells[k], cells[j] = cells[j], cells[k]
        elif kind == 1:
            cells[k] = 0
        elif kind == 2:
            cells[k] = rng.randrange(1, n + 1)
        else:  # (digits renamed: still a solution, unless a given breaks)
            perm = list(range(1, n + 1))
            rng.shuffle(perm)
            cells = [perm[d - 1] for d in cells]
        grids.append(cells)
    givens = puzzle.digit_bytes()
    verdicts = []
    for cells in grids:
        alone = valid_lines(bytes(cells), givens, shape)
        assert alone == is_solution(Grid._unchecked(shape, tuple(cells)), puzzle)
        verdicts.append(alone)
    assert True in verdicts and False in verdicts
    good = [c for c, ok in zip(grids, verdicts, strict=True) if ok]
    bad = [c for c, ok in zip(grids, verdicts, strict=True) if not ok]
    lines = b"".join(bytes(c) for c in good * 3)
    assert valid_lines(lines, givens * (3 * len(good)), shape)
    for cells in bad[:10]:  # one wrong solution anywhere in a batch: the batch is refused
        at = rng.randrange(len(good) + 1)
        batch = [*good[:at], cells, *good[at:]]
        assert not valid_lines(b"".join(map(bytes, batch)), givens * len(batch), shape)
    over = list(solution)
    over[rng.randrange(size)] = n + 1  # (a byte past the shape's digits)
    assert not valid_lines(bytes(over), givens, shape)
    assert not valid_lines(bytes(solution), givens[:-1], shape)  # (lengths that differ)


def test_the_values_texts_made_and_then_looked_up(monkeypatch):
    """The stats' texts (`batch._texts`): made the first time a value is met, looked up after,
    and made again once the kept texts are cleared; the same message each time."""
    from sudokubench.harness.pool import batch

    done = usual(20)
    batch._INT_TEXTS.clear()
    batch._MICRO_TEXTS.clear()
    first = both(done)
    assert first is not None and batch._INT_TEXTS and batch._MICRO_TEXTS
    assert repr(both(done)) == repr(first)
    monkeypatch.setattr(batch, "_TEXTS_KEPT", 2)
    assert repr(both(done)) == repr(first)
    assert len(batch._INT_TEXTS) <= 2 + 20 * 6
