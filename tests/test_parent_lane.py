"""The parent's check of a plug-in's answers a list at a time (`track.lane_rows`,
`verify.valid_solution_lines`): the rows it makes equal `to_row`'s, made answer by answer with
`check_result`, field by field, on a mix of usual and unusual answers; a wrong solution, a
count above the limit or a malformed answer is caught as `to_row` catches it; and a `compare`
of a `lib:` backend stores the checks an independent `check_answer` makes of its answers."""

from __future__ import annotations

import contextlib
import json
import sqlite3

import pytest
from fake_backends import honest, pattern_grid
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, collection

from sudokubench.backend import Status
from sudokubench.grid import Grid, Shape, solution_problem
from sudokubench.harness.plan import CompareArgs, takes_all
from sudokubench.harness.pool import Outcome, Task
from sudokubench.harness.pool.guard import sanitize, sanitize_many
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.run import compare
from sudokubench.harness.track import lane_rows, to_row
from sudokubench.harness.verify import check_answer, valid_solution_lines

LIB = "lib:./libsolver.so"
#: Unsatisfiable without a repeated given (the telegram grid with r1c2 = 4).
UNSAT = TELEGRAM[:1] + "4" + TELEGRAM[2:]
#: The telegram grid with a second 8 in row 1.
CONFLICT = TELEGRAM[:1] + "8" + TELEGRAM[2:]
#: The telegram solution with r1c2 and r1c3 swapped (two givens moved: rows still complete).
SWAPPED = TELEGRAM_SOLUTION[0] + TELEGRAM_SOLUTION[2] + TELEGRAM_SOLUTION[1] + TELEGRAM_SOLUTION[3:]
EASY = [str(r.puzzle) for r in collection("easy50", 12)]
EASY_SOLUTIONS = [str(honest(Grid.parse(p), 1).solutions[0]) for p in EASY]


def answer(
    k: int,
    puzzle: str,
    solutions: tuple[str, ...],
    *,
    status: Status = Status.SOLVED,
    count: int | None = None,
    exhaustive: bool = True,
    limit: int = 2,
    wall_s: float = 1e-5,
    box: str | None = None,
    backend: str = LIB,
) -> Outcome:
    """A worker's outcome of task `k` as a plug-in's lane hands it over (unchecked)."""
    task = Task(k, f"p.txt:{k + 1}", puzzle, box, backend, limit, 1.0, 0)
    count = len(solutions) if count is None else count
    return Outcome(
        task, status, count, exhaustive, solutions, 2e-6, wall_s, wall_s, {"nodes": 3}, "",
        False, "?", None, "", 1 << 20,
    )  # fmt: skip


def per_task(outcome: Outcome) -> object:
    """The row `compare` made of the outcome before `lane_rows`: sanitized, checked alone."""
    clean = sanitize(outcome)._replace(checked=False, texts=None)
    task = clean.task
    return to_row(clean, Grid.parse(task.puzzle, Shape.parse(task.box) if task.box else None))


def rows_of(outcomes: list[Outcome]) -> tuple[list[object], list[int]]:
    """The rows `compare` makes of a list now (`lane_rows`, else `to_row`); the task ids of
    those the batch made."""
    clean = [sanitize(o) for o in outcomes]
    batched = lane_rows(clean, {"fast": True})
    rows = [row if row is not None else per_task(o) for o, row in zip(clean, batched, strict=True)]
    return rows, [row.task_id for row in batched if row is not None]


def usual() -> list[Outcome]:
    return [answer(k, p, (s,)) for k, (p, s) in enumerate(zip(EASY, EASY_SOLUTIONS, strict=True))]


def test_usual_answers_are_checked_together_into_the_rows_to_row_makes():
    outcomes = [*usual(), answer(50, TELEGRAM, (TELEGRAM_SOLUTION,), exhaustive=False, limit=1)]
    rows, batched = rows_of(outcomes)
    assert len(batched) == len(outcomes)  # (else this would test `to_row` against itself)
    assert rows == [per_task(o) for o in outcomes]
    assert all(r.valid and r.problem is None for r in rows)
    assert [r.verdict for r in rows] == ["=1"] * 12 + [">=1"]
    outcomes[3] = outcomes[3]._replace(host="elsewhere")  # (a cluster worker's)
    rows, batched = rows_of(outcomes)
    assert rows == [per_task(o) for o in outcomes] and len(batched) == len(outcomes)
    assert rows[3].host == "elsewhere" and rows[4].host == rows[0].host != ""


def test_a_mix_stores_what_each_answer_checked_alone_stores():
    multiple = tuple(str(g) for g in honest(Grid.parse(MULTIPLE), 2).solutions)
    outcomes = [
        *usual()[:4],
        answer(20, MULTIPLE, multiple, exhaustive=False),  # several solutions
        answer(21, UNSAT, (), status=Status.UNSATISFIABLE),
        answer(22, CONFLICT, (), status=Status.UNSATISFIABLE),  # invalid givens
        answer(23, TELEGRAM, (TELEGRAM_SOLUTION,), count=3),  # a count above the limit
        answer(24, TELEGRAM, (TELEGRAM_SOLUTION,), wall_s=5.0),  # answered after the timeout
        answer(25, TELEGRAM, (TELEGRAM_SOLUTION,), box="3x3"),  # a forced shape
        answer(26, TELEGRAM, (TELEGRAM_SOLUTION,), backend="fast"),  # checked in its worker
        answer(27, TELEGRAM, (), status=Status.ERROR, exhaustive=False),
        answer(28, TELEGRAM, (TELEGRAM_SOLUTION,), status=Status.SOLVED, count=1, limit=0),
        answer(29, "4.1." * 4, ("4312" * 4,)),  # 4x4: another size than the batch's
    ]
    rows, batched = rows_of(outcomes)
    assert batched == [0, 1, 2, 3]
    assert rows == [per_task(o) for o in outcomes]
    by_id = {r.task_id: r for r in rows}
    assert by_id[23].problem == "returned 3 solutions, more than the limit 2"
    assert by_id[24].status is Status.TIMEOUT and by_id[22].verdict == "0"


@pytest.mark.parametrize(
    "wrong",
    [
        SWAPPED,  # givens moved
        str(pattern_grid(Grid.parse(TELEGRAM))),  # a valid grid, not of this puzzle
        TELEGRAM_SOLUTION[:80] + "1",  # a column and a box with two 1s
        TELEGRAM_SOLUTION[:80],  # short
        TELEGRAM_SOLUTION + "6",  # long
        TELEGRAM_SOLUTION[:80] + ".",  # a blank
        TELEGRAM_SOLUTION[:80] + "0",
        "A" + TELEGRAM_SOLUTION[1:],  # a symbol of larger grids
        TELEGRAM_SOLUTION[:80] + "\u0666",  # a digit that is not ASCII
        TELEGRAM_SOLUTION[:40] + "\x1b" + TELEGRAM_SOLUTION[41:],  # a control character
        " " + TELEGRAM_SOLUTION[1:],
    ],
    ids=lambda s: repr(s[-6:]),
)
def test_one_wrong_solution_sends_the_list_the_per_task_way_and_is_reported(wrong):
    outcomes = usual()
    outcomes.insert(5, answer(40, TELEGRAM, (wrong,)))
    rows, batched = rows_of(outcomes)
    assert 40 not in batched and len(batched) in (0, len(EASY))  # (one of another length: apart)
    assert rows == [per_task(o) for o in outcomes]
    bad = [r for r in rows if not r.valid]
    assert [r.task_id for r in bad] == [40] and bad[0].problem.startswith("solution 1 ")
    assert sum(r.valid for r in rows) == len(EASY)


def test_a_wrong_puzzle_line_is_never_read_as_other_givens():
    # the task's own puzzle is the parent's; a line that is not plain goes the per-task way
    outcomes = [*usual()[:3], answer(9, TELEGRAM.replace(".", "_"), (TELEGRAM_SOLUTION,))]
    rows, batched = rows_of(outcomes)
    assert rows == [per_task(o) for o in outcomes] and batched == [0, 1, 2, 9]
    spaced = " " + TELEGRAM[1:]  # (r1c1 read as a blank would make the solution fit)
    assert not valid_solution_lines([spaced], [TELEGRAM_SOLUTION], Shape(3, 3))
    assert valid_solution_lines([TELEGRAM], [TELEGRAM_SOLUTION], Shape(3, 3))


def test_the_batch_check_agrees_with_the_checker_on_every_change_of_a_cell():
    shape = Shape(3, 3)
    puzzles, lines, expected = [], [], []
    for p, s in zip(EASY[:3], EASY_SOLUTIONS[:3], strict=True):
        for k in range(0, 81, 4):
            for d in "159":
                line = s[:k] + d + s[k + 1 :]
                puzzles.append(p)
                lines.append(line)
                expected.append(solution_problem(Grid.parse(line), Grid.parse(p)) is None)
    assert 0 < sum(expected) < len(expected)
    found = [valid_solution_lines([p], [s], shape) for p, s in zip(puzzles, lines, strict=True)]
    assert found == expected
    good = [k for k, ok in enumerate(expected) if ok]
    assert valid_solution_lines([puzzles[k] for k in good], [lines[k] for k in good], shape)
    assert not valid_solution_lines(puzzles, lines, shape)


def test_a_list_of_one_size_is_planned_at_once_and_another_size_puzzle_by_puzzle():
    def row(text: str, box: str | None = None) -> PuzzleRow:
        return PuzzleRow("p.txt:1", 0, "p.txt", text, box)

    shapes = {LIB: ("3x3",)}
    assert takes_all([row(TELEGRAM), row(UNSAT)], shapes)
    assert not takes_all([row(TELEGRAM), row("4.1." * 4)], shapes)
    assert not takes_all([row(TELEGRAM, "2x2")], shapes) and takes_all([row("4.1." * 4)], {})


def test_compare_of_a_library_stores_the_independent_check_of_each_answer(c_library, tmp_path):
    name = f"lib:{c_library()}"
    wrong = f"lib:{c_library('-DWRONG_GRID')}"
    puzzles = [*EASY, MULTIPLE, UNSAT, CONFLICT, TELEGRAM, "4.1." * 4]
    (tmp_path / "p.txt").write_text("".join(f"{p}\n" for p in puzzles))
    args = CompareArgs(files=("p.txt",), backends=(name, wrong), jobs=1, limit=2)
    with contextlib.chdir(tmp_path):
        report = compare(args, db=tmp_path / "r.sqlite")
    assert not report.ok
    with contextlib.closing(sqlite3.connect(tmp_path / "r.sqlite")) as db:
        stored = db.execute(
            "SELECT backend, puzzle, status, count, exhaustive, solutions, verdict, valid, problem"
            " FROM tasks ORDER BY task_id"
        ).fetchall()
    assert len(stored) == 2 * (len(puzzles) - 1)  # (the 4x4 puzzle is never sent)
    for backend, puzzle, status, count, exhaustive, solutions, verdict, valid, problem in stored:
        sent = json.loads(solutions)
        voice = check_answer(
            backend, Grid.parse(puzzle), status=Status(status), count=count,
            exhaustive=bool(exhaustive), solutions=sent, limit=2,
        )  # fmt: skip
        assert (verdict, problem, bool(valid)) == (str(voice.verdict), voice.problem, voice.sound)
        if backend == wrong and status == "solved":
            assert not valid and problem.startswith("solution 1 is wrong")
    assert sum(1 for row in stored if row[0] == name and row[7]) == len(puzzles) - 1


def plain(outcome: Outcome) -> bool:
    return sanitize(outcome) is outcome


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"count": -1},
        {"count": 2**62 + 1},
        {"count": True},
        {"exhaustive": 1},
        {"wall_s": float("nan")},
        {"solve_s": float("inf")},
        {"encode_s": -1e-9},
        {"wall_s": 3},
        {"solutions": ["x"]},
        {"solutions": ("1" * 4097,)},
        {"solutions": (b"123",)},
        {"solutions": ("1", "2", "3")},  # more than the limit
        {"stats": {"nodes": 2**62 + 1}},
        {"stats": {"nodes": -(2**62) - 1}},
        {"stats": {"nodes": float("nan")}},
        {"stats": {"nodes": True}},
        {"stats": {"nodes": 10**400}},
        {"stats": {"nodes": 1e300}},  # (plain: a float's only bound is finite)
        {"stats": {"k" * 65: 1}},
        {"stats": {3: 1}},
        {"stats": {f"s{k}": k for k in range(65)}},
        {"message": "m" * 1001},
        {"message": 7},
        {"verdict": "v" * 41},
        {"problem": "p" * 1001},
        {"problem": 3},
        {"peak_memory_bytes": -1},
        {"peak_memory_bytes": 2**63},
        {"peak_memory_bytes": 1.0},
        {"status": "solved"},
    ],
    ids=repr,
)
def test_a_list_tested_a_field_at_a_time_is_sanitized_as_each_alone(change):
    outcomes = usual()
    outcomes[7] = outcomes[7]._replace(**change)
    assert sanitize_many(outcomes) == [sanitize(o) for o in outcomes]
    assert (sanitize_many(outcomes) is outcomes) == (not change)  # (kept only when all plain)
    assert plain(outcomes[7]) == (change in ({}, {"stats": {"nodes": 1e300}}))
