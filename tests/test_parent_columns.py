"""A worker's batch as one columnar message (`pool/batch.py`): stored with one INSERT
(`TaskWriter.add_values`) and tallied a batch at a time (`Tracker.add_batch`,
`Tally.add_columns`), with the same rows, tally and report as the outcomes' path."""

from __future__ import annotations

from array import array
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import TELEGRAM, Counting, collection, odd_outcomes, stored_tasks

from sudokubench.backend import Status
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import HOST, LocalPool, Task
from sudokubench.harness.pool.batch import WIDTH, take_batch, to_columns
from sudokubench.harness.pool.wire import ProtocolError, from_wire, to_wire
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.report import build_report, render
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.store import Store
from sudokubench.harness.store_write import task_to_sql
from sudokubench.harness.track import Tracker, to_row

PUZZLES = [str(r.puzzle) for r in collection("17clue")][:300]
#: The columns that differ from one run to the next: its times and memory.
TIMES = ("encode_s", "solve_s", "wall_s", "peak_memory_bytes")
#: The stats keys that are times.
TIMED_STATS = ("cpu_s", "cpu_wait_s")


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def tasks(lines: list[str], backend: str = "fast", timeout: float = 10.0) -> list[Task]:
    return [Task(i, f"t:{i + 1}", p, None, backend, 2, timeout, 0) for i, p in enumerate(lines)]


class OutcomesOnly:
    """A `LocalPool` seen without `run_columns`: `compare` takes the outcomes' path."""

    def __init__(self, pool: LocalPool) -> None:
        self.pool = pool

    def prepare(self, backends):
        return self.pool.prepare(backends)

    def run_batches(self, tasks):
        return self.pool.run_batches(tasks)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@pytest.mark.parametrize("backend", ["native", "fast"])
def test_a_run_through_the_columns_stores_what_the_outcomes_path_stores(tmp_path, backend):
    lines = [*PUZZLES[:200], TELEGRAM, *PUZZLES[200:]]
    path = write(tmp_path / "p.txt", lines)
    args = CompareArgs(files=(str(path),), backends=(backend,), jobs=2)
    counting = Counting(LocalPool(jobs=2, batch_size=16))
    with counting:
        new = compare(args, db=tmp_path / "new.sqlite", executor=counting)
    with OutcomesOnly(LocalPool(jobs=2, batch_size=16)) as old_pool:
        old = compare(args, db=tmp_path / "old.sqlite", executor=old_pool)
    assert counting.batches > 1  # (the columns' path was taken)
    assert new.ok and old.ok and len(new.tasks) == len(lines)
    rows = stored_tasks(tmp_path / "new.sqlite", new.run.id)
    assert rows == stored_tasks(tmp_path / "old.sqlite", old.run.id)
    assert len(rows) == len(lines) and {r["host"] for r in rows} == {HOST}
    assert all(r["valid"] == 1 and r["problem"] is None for r in rows)
    with Store(tmp_path / "new.sqlite", create=False) as store:
        again = build_report(store, new.run.id)
    assert new == again  # (the tally fed with columns, the database's row by row)
    assert render(new, "json") == render(again, "json")
    assert new.tally.checked == len(lines) and new.tally.stored == len(lines)


def test_a_batch_of_the_usual_and_the_rest_makes_the_rows_and_outcomes_of_its_outcomes():
    lines = PUZZLES[:6]
    planned = tasks(lines)
    outcomes = odd_outcomes(planned)
    message = to_columns(outcomes)
    assert message is not None and message[0] == "rows"
    assert lines[0] not in repr(message)  # (the task's fields are the parent's own)
    flight = deque(planned)
    batch = take_batch(flight, message)
    assert not flight and batch.ids == list(range(6)) and not batch.usual
    assert batch.values[2::WIDTH] == lines and batch.values[19::WIDTH] == [HOST] * 6
    rows = [to_row(o, None) for o in outcomes]
    assert batch.rows() == rows
    assert rows[3].status == Status.TIMEOUT and "over the 10 s limit" in rows[3].message
    assert batch.values == [v for r in rows for v in task_to_sql(7, r)[1:]]
    # without `strict` (an executor's caller): the outcomes as `from_wire` gives them
    loose = take_batch(deque(planned), to_columns(outcomes), strict=False)
    sent = [from_wire(t, to_wire(o, True)) for t, o in zip(planned, outcomes, strict=True)]
    assert loose.outcomes() == sent
    usual = take_batch(deque(planned[:1]), to_columns(outcomes[:1]))
    assert usual.usual and usual.rows() == rows[:1]


def test_a_columnar_message_not_of_the_tasks_due_takes_none():
    planned = tasks(PUZZLES[:3])
    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    outcomes = [o._replace(peak_memory_bytes=1000 + k) for k, o in enumerate(outcomes)]
    message = to_columns(outcomes)
    for flight in (deque(planned[1:]), deque(planned[:2]), deque([planned[1], *planned])):
        before = list(flight)
        with pytest.raises(ProtocolError):
            take_batch(flight, message)
        assert list(flight) == before
    _, ids, columns, kinds, solutions, stats = message
    assert type(columns[3]) is bytes and type(columns[11]) is array  # (times; the peaks differ)

    def changed(at: int, column) -> tuple:
        return ("rows", ids, (*columns[:at], column, *columns[at + 1 :]), kinds, solutions, stats)

    for bad in (
        ("rows", ids[:-1], *message[2:]),
        (*message[:4], tuple(solutions), stats),
        message[:5],
        ("rows", ids, columns[:-1], kinds, solutions, stats),
        ("rows", ids, columns, kinds, [*solutions, "[]"], stats),
        ("rows", ids, columns, kinds, solutions, stats[:-1]),
        changed(3, columns[3][:-8]),  # (a row's time short)
        changed(11, array("q", list(columns[11])[:-1])),
        changed(11, array("l", columns[11])),
        changed(1, [1] * 5),
        changed(0, "lost"),  # (a status that does not exist)
        changed(0, ["solved"] * 5 + [["solved"]]),
        changed(0, {}),
    ):
        flight = deque(planned)
        with pytest.raises(ProtocolError):
            take_batch(flight, bad)
        assert list(flight) == planned  # (none taken)
    assert to_columns([outcomes[0]._replace(checked=False)]) is None
    past = outcomes[0]._replace(task=outcomes[0].task._replace(task_id=2**63))
    assert to_columns([past]) is None  # (an id past 64 bits: sent as outcomes)


def add_batch_columns(tally: Tally, batch, *timing) -> None:
    """`tally.add_columns` of a `fast` batch's columns, as `compare` adds them (`timing`: the
    batch's times, effort times and whether it is timed, where given)."""
    values = batch.values
    tally.add_columns(
        "fast",
        batch.ids,
        batch.statuses,
        values[13::WIDTH],
        batch.cpus,
        batch.waits,
        batch.kinds,
        batch.efforts,
        values[20::WIDTH],
        batch.host,
        *timing,
    )


@pytest.mark.parametrize("order", ["in a row", "shuffled"])
def test_add_columns_is_add_agreed_many(order):
    lines = PUZZLES[:12]
    planned = tasks(lines)
    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    if order == "shuffled":
        outcomes = outcomes[6:] + outcomes[:6]
    outcomes[2] = outcomes[2]._replace(stats={"cpu_s": 0.001}, texts=None)  # no effort, wait
    columns, rows_way = Tally(("fast",), 12), Tally(("fast",), 12)
    for i, line in enumerate(lines):
        for tally in (columns, rows_way):
            tally.register(i, PuzzleRow(f"t:{i + 1}", i, "t", line))
    ordered = sorted(planned, key=lambda t: [o.task.task_id for o in outcomes].index(t.task_id))
    batch = take_batch(deque(ordered), to_columns(outcomes))
    add_batch_columns(columns, batch)
    rows_way.add_agreed_many([(r.task_id, r) for r in batch.rows()])
    a, b = columns.columns["fast"], rows_way.columns["fast"]
    assert a.status == b.status and list(a.time) == list(b.time)
    assert list(a.effort_kind) == list(b.effort_kind)
    assert a.effort_kind[outcomes[2].task.task_id] == -1
    assert [repr(x) for x in a.effort] == [repr(x) for x in b.effort]
    assert (columns.cpu_s, columns.cpu_wall_s, columns.wait_s, columns.wait_wall_s) == (
        rows_way.cpu_s,
        rows_way.cpu_wall_s,
        rows_way.wait_s,
        rows_way.wait_wall_s,
    )
    assert (columns.hosts, columns.peak_memory, columns.stored, columns.checked) == (
        rows_way.hosts,
        rows_way.peak_memory,
        12,
        12,
    )


def test_a_puzzle_with_an_answer_to_meet_is_cross_checked_in_full(tmp_path):
    # the input's answers: one right, one wrong (a run that finds the answer disagreeing)
    solved = compare(
        CompareArgs(files=(str(write(tmp_path / "a.txt", PUZZLES[:2])),), backends=("fast",)),
        db=tmp_path / "a.sqlite",
    )
    first, second = (t.solutions[0] for t in sorted(solved.tasks, key=lambda t: t.task_id))
    k = next(k for k in range(1, 81) if second[k] != second[0])
    wrong = second[k] + second[1:k] + second[0] + second[k + 1 :]  # (two cells swapped)
    path = write(
        tmp_path / "p.csv",
        [f"{PUZZLES[0]},{first}", f"{PUZZLES[1]},{wrong}", *(f"{p}," for p in PUZZLES[2:40])],
    )
    counting = Counting(LocalPool(jobs=1, batch_size=64))
    with counting:
        report = compare(
            CompareArgs(files=(str(path),), backends=("fast",)),
            db=tmp_path / "r.sqlite",
            executor=counting,
        )
    assert counting.batches
    with Store(tmp_path / "r.sqlite", create=False) as store:
        again = build_report(store, report.run.id)
    assert report == again and not report.ok  # (the wrong answer of the input's found)
    assert report.tally.checked == 40


def test_add_columns_of_timed_batches_sums_as_row_by_row():
    # batches whose every row measured its cpu and wait (`Batch.timed`: one wall sum for
    # both while they are equal), after one whose row measured no wait (the two sums apart)
    lines = PUZZLES[:24]
    planned = tasks(lines)
    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    columns, rows_way = Tally(("fast",), 24), Tally(("fast",), 24)
    for i, line in enumerate(lines):
        for tally in (columns, rows_way):
            tally.register(i, PuzzleRow(f"t:{i + 1}", i, "t", line))
    flight = deque(planned)
    timed = []
    for first, last in ((0, 8), (8, 16), (16, 24)):
        part = outcomes[first:last]
        if first == 8:  # (a row without its wait: this batch is not timed)
            part[3] = part[3]._replace(stats={"cpu_s": 0.001, "nodes": 1}, texts=None)
        batch = take_batch(flight, to_columns(part))
        timed.append(batch.timed)
        add_batch_columns(columns, batch, batch.times, batch.effort_times, batch.timed)
        rows_way.add_agreed_many([(r.task_id, r) for r in batch.rows()])
    assert timed == [True, False, True]
    assert columns.cpu_wall_s != columns.wait_wall_s  # (the second batch's row apart)
    assert (columns.cpu_s, columns.cpu_wall_s, columns.wait_s, columns.wait_wall_s) == (
        rows_way.cpu_s,
        rows_way.cpu_wall_s,
        rows_way.wait_s,
        rows_way.wait_wall_s,
    )
    assert list(columns.columns["fast"].time) == list(rows_way.columns["fast"].time)


def test_a_value_every_row_has_is_one_object_across_messages():
    planned = tasks(PUZZLES[:4])
    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    taken = []
    for part in (outcomes[:2], outcomes[2:]):
        message = to_columns(part)
        # a message of its own, as a worker's pipe gives it: no object shared with the other
        fresh = tuple(
            "".join(list(c)) if type(c) is str else c + 0 if type(c) is int else c
            for c in message[2]
        )
        taken.append(take_batch(deque(planned), ("rows", message[1], fresh, *message[3:])))
        planned = planned[2:]
    for field in ("status", "verdict", "host"):
        place = TaskRow._fields.index(field)
        a, b = taken[0].values[place], taken[1].values[place]
        assert a == b and a is b
    # an int and a bool of one value are kept apart by their types
    one = outcomes[0]._replace(peak_memory_bytes=1)
    message = to_columns([one, one._replace(task=outcomes[1].task)])
    peak = take_batch(deque(tasks(PUZZLES[:2])), message).values[20]
    assert type(peak) is int and peak == 1
    for flag in (True, False):
        message = to_columns([one, one._replace(task=outcomes[1].task)])
        columns = list(message[2])
        columns[11] = flag  # (the peak column: every row's value, a bool this time)
        sent = ("rows", message[1], tuple(columns), *message[3:])
        batch = take_batch(deque(tasks(PUZZLES[:2])), sent)
        assert type(batch.values[20]) is bool and batch.values[20] is flag


@pytest.mark.parametrize("ids", [[0, 1, 2], [0, 0], [7]])
def test_a_batch_of_tasks_not_in_flight_closes_none(ids):
    tracker = Tracker.__new__(Tracker)  # (the fields `add_batch` reads before its tally)
    tracker.per_puzzle, tracker.partial, tracker.expecting = 1, {}, set()
    tracker.open = {0: "puzzle 0", 1: "puzzle 1", 5: "puzzle 5"}
    batch = SimpleNamespace(ids=ids, usual=True, host=HOST)
    with pytest.raises(KeyError, match="not all in flight"):
        tracker.add_batch(batch)
    assert tracker.open == {0: "puzzle 0", 1: "puzzle 1", 5: "puzzle 5"}
