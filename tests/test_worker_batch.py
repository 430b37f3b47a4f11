"""A worker's usual batch straight to its columnar message (`batch.solved_columns`, checked by
`grid.valid_lines`): the same message, value for value, as `to_columns` of `finish`ed outcomes,
and None (today's path) for anything it cannot vouch for."""

from __future__ import annotations

import random
from array import array
from collections import deque
from types import MappingProxyType

import pytest
from support import MULTIPLE, TELEGRAM, cli, collection, pattern_cells, pattern_solution

from sudokubench import grid
from sudokubench.backend import SolveResult, Status, Timed
from sudokubench.grid import SHAPES, Grid, Shape, is_solution, valid_lines
from sudokubench.harness.pool import HOST, Task, failed
from sudokubench.harness.pool.batch import WIDTH, Batch, solved_columns, take_batch, to_columns
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


def taken(done: list[Solved], message: tuple) -> Batch:
    """The message as the parent takes it against the batch's tasks (`take_batch`)."""
    return take_batch(deque(s.task for s in done), message)


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
    batch = taken(done, message)
    assert len(batch.cpus) == len(batch.waits) == len(batch.kinds) == len(batch.efforts)
    assert len(batch) == len(done) and len(batch.values) == len(done) * WIDTH
    assert batch.values[10::WIDTH].count("[]") == 0 and None not in batch.waits
    # (a handful of objects whatever the batch's length: the columns every row shares are
    # one value each, the floats bytes, the texts one str each)
    _, ids, columns, kinds, solutions, stats = message
    assert len(ids) == 8 * len(done) and kinds == kinds[:1] * len(done)
    assert {type(c) for c in columns} <= {bytes, str, int, type(None), array}
    assert columns[0] == "solved" and columns[8:11] == (1, None, HOST)
    assert len(solutions) == len(stats) == len(done)
    grids = [g for s in done for g in s.timed.answer.solutions]
    kept = ["_digit_bytes" in vars(g) for g in grids]
    assert all(kept) if backend == "native" else not any(kept)  # (`native` keeps its rows')


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_shape_and_several_solutions_an_answer(shape):
    lines = [blanked(shape, keep, seed) for seed, keep in enumerate((0.9, 0.8, 0.3, 0.97))]
    for limit in (1, 2, 3):
        done = solved_with("native", lines, limit)
        message = both(done)
        assert message is not None
        verdicts = taken(done, message).values[16::WIDTH]
        if limit > 1:
            assert any(v.startswith(">=") for v in verdicts)  # (several solutions sent)


def test_several_and_unsatisfiable_answers_in_one_batch():
    conflict = "11" + PUZZLES[0][2:]  # (two 1s in row 1: unsatisfiable without a search)
    lines = [MULTIPLE, conflict, *PUZZLES[:5], conflict, MULTIPLE]
    for limit in (1, 2, 30):
        done = solved_with("native", lines, limit)
        message = both(done)
        assert message is not None
        values = taken(done, message).values
        assert values[7::WIDTH].count("unsatisfiable") == 2
        assert values[10::WIDTH][1] == "[]"


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
    odd, goes = odd_cases()[case]
    done = with_one(odd)
    message = both(done)
    assert (message is not None) == goes
    if case == "a count of 100 under a limit of 200":
        assert taken(done, message).values[3 * WIDTH + 16] == ">=100"


def test_counts_of_64_and_more_and_mixed_claims_in_one_batch():
    """Counts past the verdicts' table, exhaustive and not, several solutions and one, in one
    batch (every answer's own verdict)."""
    shape = Shape(3, 3)
    many = blanked(shape, 0.3, 7)  # (thousands of solutions)
    lines = [many, *PUZZLES[:3], MULTIPLE, many]
    for limit in (2, 63, 64, 100):
        done = solved_with("native", lines, limit)
        message = both(done)
        assert message is not None
        verdicts = taken(done, message).values[16::WIDTH]
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
    assert message[3] == bytes([1]) * 4  # (the effort: "nodes", before "decisions")
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


def forged(grid_cells: tuple[int, ...], kept: bytes, shape: Shape) -> Grid:
    """A grid whose kept bytes (`Grid._from_bytes`'s) are not its cells, as a plug-in can
    make one."""
    made = Grid._from_bytes(shape, kept)
    object.__setattr__(made, "cells", grid_cells)
    return made


def test_kept_bytes_are_native_s_own_row():
    """`native`'s grids keep the bytes of the kernel's row their cells were made of, one
    solution or several an answer."""
    for limit in (1, 2, 5):
        for s in solved_with("native", [*PUZZLES[:5], MULTIPLE], limit):
            for solution in s.timed.answer.solutions:
                assert vars(solution)["_digit_bytes"] == bytes(solution.cells)
                assert type(solution.digit_bytes()) is bytes


@pytest.mark.parametrize("backend", ["lying_plugins:KeptBytesNotCells", "exec:cat"])
def test_a_plugin_s_grid_is_read_by_its_cells_not_its_kept_bytes(backend):
    """Kept bytes are read only of sudokubench's own backends (`guard.trusted`): a plug-in's
    or a program's grid whose kept bytes differ from its cells is checked by its cells, the
    wrong answer reported as `finish` reports it, a right one stored as its cells' line."""
    base = usual(6)
    shape = base[0].puzzle.shape
    for everyone in (False, True):
        wrong, right = [], []
        for k, s in enumerate(base):
            task = s.task._replace(backend=backend) if everyone or k == 3 else s.task
            good = s.timed.answer.solutions[0]
            bad = Grid(shape, tuple(pattern_cells(shape)))
            # (the true solution's bytes beside wrong cells; wrong bytes beside the true cells)
            lying = forged(bad.cells, bytes(good.cells), shape)
            honest_cells = forged(good.cells, bytes(bad.cells), shape)
            wrong.append(held(task, s.puzzle, result(s.puzzle, solutions=(lying,))))
            right.append(held(task, s.puzzle, result(s.puzzle, solutions=(honest_cells,))))
        assert both(wrong) is None  # (`finish` then says what is wrong with it)
        outcome = finish(wrong[3])
        assert outcome.problem is not None and outcome.solutions == (str(bad),)
        message = both(right)
        assert message is not None
        solutions = taken(right, message).values[10::WIDTH]
        assert solutions == [f'["{s.timed.answer.solutions[0]}"]' for s in base]


def test_a_plugin_s_kept_bytes_beside_wrong_cells_are_wrong_in_a_run(tmp_path):
    """End to end: a plug-in's grids whose kept bytes are the true solution's and whose cells
    break the puzzle are stored and reported wrong, never solved."""
    (tmp_path / "p.txt").write_text(f"{TELEGRAM}\n{PUZZLES[0]}\n", encoding="utf-8")
    liar = "lying_plugins:KeptBytesNotCells"
    done = cli("compare", "p.txt", "-b", f"native,{liar}", "--db", "r.sqlite", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"WRONG p.txt:1: {liar}" in done.stdout
    import sqlite3

    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        rows = db.execute(
            "SELECT backend, status, valid, problem FROM tasks ORDER BY backend, task_id"
        ).fetchall()
    lying = [r for r in rows if r[0] == liar]
    assert len(lying) == 2 and all(r[2] == 0 and r[3] for r in lying)
    assert all(r[1:3] == ("solved", 1) for r in rows if r[0] == "native")
