"""The parent's batch path: outcomes taken a list at a time (`LocalPool.run_batches`), stored
(`TaskWriter.add_many`) and tallied (`Tracker.add_many`, `Tally.add_agreed`) per list, with
the same rows and the same report as one at a time."""

from __future__ import annotations

import json
import math
from array import array
from collections import deque
from pathlib import Path

import pytest
from support import TELEGRAM, collection

from sudokubench.backend import Status
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import LocalPool, Task, failed
from sudokubench.harness.pool.wire import (
    ProtocolError,
    from_wire,
    stored_texts,
    take_outcomes,
    to_wire,
)
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.report import build_report, render
from sudokubench.harness.report.columns import BLAMED, CODE, DISAGREES, DISPUTED, Acc, Column
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.store import Store
from sudokubench.harness.store_write import task_to_sql
from sudokubench.harness.track import _agreed_alone, to_row
from sudokubench.harness.verify import cross_check

PUZZLES = [str(r.puzzle) for r in collection("top95")][:40]


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def tasks(lines: list[str], backend: str = "fast") -> list[Task]:
    return [Task(i, f"t:{i + 1}", p, None, backend, 2, 10.0, 0) for i, p in enumerate(lines)]


def test_run_batches_hands_back_every_task_once_in_lists():
    planned = tasks(PUZZLES)
    with LocalPool(jobs=2, batch_size=4) as pool:
        lists = list(pool.run_batches(iter(planned)))
    assert all(type(x) is list and x for x in lists)
    outcomes = [o for x in lists for o in x]
    assert sorted(o.task.task_id for o in outcomes) == list(range(len(PUZZLES)))
    assert all(o.status == Status.SOLVED and o.checked and o.problem is None for o in outcomes)
    assert len(lists) < len(outcomes)  # (several outcomes came in one look)


def test_a_run_stores_the_same_rows_and_makes_the_report_the_database_makes(tmp_path):
    path = write(tmp_path / "p.txt", [*PUZZLES, TELEGRAM])
    db = tmp_path / "r.sqlite"
    report = compare(CompareArgs(files=(str(path),), backends=("fast",)), db=db)
    with Store(db, create=False) as store:
        again = build_report(store, report.run.id)
        assert sorted(store.done_task_ids(report.run.id)) == list(range(len(PUZZLES) + 1))
    assert report == again  # (compare's tally took the short path, the database's did not)
    assert render(report, "json") == render(again, "json")
    assert report.tally.checked == again.tally.checked == len(PUZZLES) + 1
    assert report.tally.cpu_s == again.tally.cpu_s


def test_add_agreed_is_add_with_the_verdict_cross_check_gives():
    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(tasks(PUZZLES[:10]))), key=lambda o: o.task.task_id)
    short, long, many = Tally(("fast",), 10), Tally(("fast",), 10), Tally(("fast",), 10)
    agreed = []
    for i, outcome in enumerate(outcomes):
        puzzle = PuzzleRow(outcome.task.puzzle_id, i, "t", outcome.task.puzzle)
        row = to_row(outcome, None)
        assert _agreed_alone(puzzle, row)
        verdict = cross_check(puzzle, [row])
        assert verdict.agreed and not verdict.problems
        short.register(i, puzzle)
        long.register(i, puzzle)
        many.register(i, puzzle)
        short.add_agreed(i, row)
        long.add(i, puzzle, [row], verdict)
        agreed.append((i, row))
    many.add_agreed_many(agreed)
    for tally in (short, many):
        column, other = tally.columns["fast"], long.columns["fast"]
        assert list(column.effort) == list(other.effort) and not math.isnan(column.effort[0])
        assert list(column.effort_kind) == list(other.effort_kind)
        assert (tally.cpu_s, tally.cpu_wall_s, tally.wait_s, tally.wait_wall_s) == (
            long.cpu_s,
            long.cpu_wall_s,
            long.wait_s,
            long.wait_wall_s,
        )
        assert tally.cpu_s > 0 and tally.stored == 10
        assert (tally.hosts, tally.peak_memory, tally.errors) == (
            long.hosts,
            long.peak_memory,
            long.errors,
        )
    column, other = short.columns["fast"], long.columns["fast"]
    assert column.status == other.status and list(column.time) == list(other.time)
    assert (short.checked, short.disputed, short.stored) == (long.checked, long.disputed, 10)
    assert (short.cpu_s, short.hosts, short.peak_memory) == (
        long.cpu_s,
        long.hosts,
        long.peak_memory,
    )


def test_an_answer_of_the_input_to_meet_is_cross_checked_in_full():
    puzzle = PuzzleRow("t:1", 0, "t", TELEGRAM, expected_count=1)
    with LocalPool(jobs=1) as pool:
        (outcome,) = pool.run(iter(tasks([TELEGRAM])))
    assert not _agreed_alone(puzzle, to_row(outcome, None))


def test_the_texts_a_worker_sends_are_what_the_parent_would_store(tmp_path):
    path = write(tmp_path / "p.txt", [*PUZZLES[:10], TELEGRAM])
    db = tmp_path / "r.sqlite"
    with LocalPool(jobs=1) as pool:
        outcomes = list(pool.run(iter(tasks(PUZZLES[:3]))))
    assert all(o.texts is not None for o in outcomes)  # (sent by the worker)
    for outcome in outcomes:
        row = to_row(outcome, None)
        assert task_to_sql(1, row, outcome.texts) == task_to_sql(1, row)
        assert json.loads(outcome.texts[0]) == list(row.solutions)
        assert json.loads(outcome.texts[1]) == row.stats and "cpu_s" in row.stats
    report = compare(CompareArgs(files=(str(path),), backends=("fast", "dlx")), db=db)
    with Store(db, create=False) as store:
        stored = store.db.execute(
            "SELECT task_id, solutions, stats FROM tasks WHERE run_id = ? ORDER BY task_id",
            (report.run.id,),
        ).fetchall()
        rows = sorted(store.tasks(report.run.id), key=lambda r: r.task_id)
    assert len(stored) == len(rows) == 22
    with Store(db, create=False) as store:  # (None bound through its adapter: still NULL)
        nulls = store.db.execute(
            "SELECT (SELECT COUNT(*) FROM tasks WHERE problem IS NULL), "
            "(SELECT COUNT(*) FROM puzzles WHERE box IS NULL AND expected_count IS NULL)"
        ).fetchone()
    assert nulls == (22, 11)
    for (task_id, solutions, stats), row in zip(stored, rows, strict=True):
        assert task_id == row.task_id
        assert (solutions, stats) == task_to_sql(report.run.id, row)[11:16:4]


def test_from_wire_takes_an_outcome_with_or_without_its_texts_and_nothing_else():
    (task,) = tasks([TELEGRAM])
    outcome = failed(task, Status.ERROR, "why")
    assert from_wire(task, to_wire(outcome)).texts is None
    sent = to_wire(outcome, True)
    assert from_wire(task, sent).texts == ("[]", "{}") == stored_texts(outcome)
    for bad in ((*sent[:-1], 7), (*sent, "x"), sent[:-1]):
        with pytest.raises(ProtocolError):
            from_wire(task, bad)


def test_acc_add_column_is_add_in_turn():
    """The report's pass over a backend's pairs a column at a time gathers what `Acc.add`
    gathers pair by pair."""
    n = 12
    column, base = Column(n), Column(n)
    statuses = [Status.SOLVED, Status.UNSATISFIABLE, Status.TIMEOUT, Status.ERROR]
    for i in range(n):
        if i == 5:
            continue  # no pair
        column.status[i] = CODE[statuses[i % 4]]
        base.status[i] = CODE[Status.SOLVED]
        base.time[i] = 0.5 + i
        if i % 4 < 2 and i != 9:  # finished, but 9 has no time
            column.time[i] = 0.25 * (i + 1)
        if i % 3 == 0:
            column.put_effort(i, ("guesses" if i != 6 else "nodes", float(i)))
    column.flags[1] = BLAMED
    column.flags[4] = DISAGREES | DISPUTED
    column.flags[8] = DISAGREES
    column.spread = array("d", [float("nan")] * n)
    column.spread[4], column.spread[8] = 0.3, 0.1
    one, many = Acc(), Acc()
    paired = [i for i in range(n) if column.has(i)]
    for i in paired:
        one.add(column, base, i)
    many.add_column(column, base)
    fields = ("pairs", "by_status", "wrong", "disagree", "effort_kind")
    assert [getattr(many, f) for f in fields] == [getattr(one, f) for f in fields]
    for f in ("times", "efforts", "spreads", "logs"):
        assert list(getattr(many, f)) == list(getattr(one, f))
    assert one.wrong == 2 and one.disagree == 2 and len(one.times) == 2 and len(one.logs) == 2
    assert list(one.spreads) == [0.1] and one.by_status[CODE[Status.TIMEOUT]] == 3


def test_take_outcomes_is_from_wire_in_turn_and_stops_at_a_bad_one():
    planned = tasks([TELEGRAM] * 5)
    sent = [failed(t, Status.ERROR, f"why {t.task_id}") for t in planned]
    wires = [to_wire(sent[0], True), to_wire(sent[1]), to_wire(sent[2], True)]
    in_flight, found = deque(planned), []
    take_outcomes(in_flight, wires, found)
    assert found == [from_wire(t, w) for t, w in zip(planned, wires, strict=False)]
    assert [o.texts for o in found] == [("[]", "{}"), None, ("[]", "{}")]
    assert [o.message for o in found] == ["why 0", "why 1", "why 2"]
    assert list(in_flight) == planned[3:]
    with pytest.raises(ProtocolError, match="task 4 when task 3 was due"):
        take_outcomes(in_flight, [to_wire(sent[4], True)], found)
    assert list(in_flight) == planned[3:] and len(found) == 3  # (it stays in flight)
    take_outcomes(in_flight, [to_wire(sent[3], True), to_wire(sent[4])], found)
    assert not in_flight and [o.task for o in found] == planned
    with pytest.raises(ProtocolError, match="no task was in flight"):
        take_outcomes(in_flight, [to_wire(sent[0], True)], found)


def test_a_batch_of_tasks_is_pickled_for_the_worker_as_connection_send_would():
    # `WorkerHandle.send`'s pickle (no memo, no ForkingPickler) reads back as the tasks were,
    # a repeated str included, through the worker's end of a real pipe
    import multiprocessing

    from sudokubench.harness.pool.handle import tasks_pickle

    tasks = [
        tuple(Task(k, f"t:{k}", TELEGRAM, "3x3" if k % 2 else None, "fast", 2, 0.5 * k, k))
        for k in range(40)
    ]
    parent, child = multiprocessing.Pipe()
    try:
        parent.send_bytes(tasks_pickle(tasks))
        got = child.recv()
    finally:
        parent.close()
        child.close()
    assert got == tasks
    assert [list(map(type, t)) for t in got] == [list(map(type, t)) for t in tasks]
    assert Task(*got[3]) == Task(*tasks[3])
