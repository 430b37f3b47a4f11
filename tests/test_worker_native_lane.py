"""A worker's lane of `native` tasks (`worker._NativeLane`): the outcomes a worker sends for
9x9 `native` tasks on the lane equal, field for field but the times, what it sends with the
lane off (each task `solve`d, then `finish`ed or `solved_columns`), on real puzzles and odd
ones, in order with other tasks; a corrupted kernel row is caught by the worker's check."""

from __future__ import annotations

import json
import pickle
from collections import deque

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, collection

from sudokubench.harness.pool import Task, worker
from sudokubench.harness.pool.batch import KIND, WIDTH, take_batch
from sudokubench.harness.pool.wire import take_outcomes
from sudokubench.solvers import native

PUZZLES = [str(r.puzzle) for r in collection("17clue", 60)]
TOP95 = [str(r.puzzle) for r in collection("top95", 30)]
MULTI = [str(r.puzzle) for r in collection("multisolution5000", 20)]
#: Unsatisfiable without two givens in a unit: r1c9 can hold only a 9, which r2c9 holds.
UNSATISFIABLE = "12345678." + "........9" + "." * 63
#: Two 1s in row 1.
CONFLICT = "11" + PUZZLES[0][2:]
#: A filled grid with a digit repeated (its first cell made its second's).
REPEATED = TELEGRAM_SOLUTION[1] + TELEGRAM_SOLUTION[1:]
#: The worker's own measures, which differ from run to run: left out of the comparison.
TIMES = ("encode_s", "solve_s", "wall_s", "peak_memory_bytes")
CLOCKS = ("cpu_s", "cpu_wait_s")
#: The ids of the tasks the last `served` ran on the lane (held for its message).
LANED: list[int] = []


class Fed:
    """A worker's connection fed the batches (pickled, as the pool sends them), its
    messages kept (unpickled from their pickles, as the parent reads them)."""

    def __init__(self, batches: list[list[Task]]) -> None:
        self.batches = iter([pickle.dumps([tuple(t) for t in b]) for b in batches])
        self.sent: list = []

    def recv(self):
        batch = next(self.batches, None)
        return None if batch is None else pickle.loads(batch)

    def send(self, message) -> None:
        self.sent.append(pickle.loads(pickle.dumps(message, pickle.HIGHEST_PROTOCOL)))


def served(
    batches: list[list[Task]], lane: bool, monkeypatch, hold: float = 1e9
) -> tuple[list, list]:
    """The outcomes a worker's loop (`_serve`) sends for the batches, read as the parent reads
    them (`take_batch`, `take_outcomes`), with the lane on or off; and its messages. It sends
    what it holds after `hold` seconds (`worker.HOLD`; by default at a batch's end only)."""
    made = worker.lane_columns
    LANED.clear()

    def counted(shape, tasks, *rest):
        LANED.extend(t.task_id for t in tasks)
        return made(shape, tasks, *rest)

    with monkeypatch.context() as patch:
        patch.setattr(worker, "NATIVE_LANE", lane)
        patch.setattr(worker, "HOLD", hold)
        patch.setattr(worker, "lane_columns", counted)
        conn = Fed(batches)
        worker._serve(conn, None, False, None)
    due = deque(t for b in batches for t in b)
    outcomes: list = []
    for message in conn.sent:
        if type(message) is tuple and message[0] == KIND:
            outcomes += take_batch(due, message, strict=False).outcomes()
        elif type(message) is list:
            take_outcomes(due, message, outcomes)
    assert not due
    return outcomes, conn.sent


def plain(outcome) -> dict:
    """An outcome's fields but the times, its stats but the worker's clocks (their types
    kept), its stats' text read the same way."""
    fields = outcome._asdict()
    for name in TIMES:
        fields[name] = type(fields[name])
    stats = dict(fields["stats"])
    for name in CLOCKS:
        if name in stats:
            stats[name] = type(stats[name])
    fields["stats"] = stats
    if fields["texts"] is not None:
        solutions, stats_text = fields["texts"]
        read = json.loads(stats_text)
        assert list(read) == list(outcome.stats)  # (the same keys, in the same order)
        fields["texts"] = (solutions, {k: (type(v) if k in CLOCKS else v) for k, v in read.items()})
    return fields


def tasks_of(lines: list[str], limit: int = 2, timeout: float | None = 10.0, at: int = 0):
    return [
        Task(at + k, f"t:{at + k}", p, None, "native", limit, timeout, 0)
        for k, p in enumerate(lines)
    ]


def rows_messages(sent: list) -> list:
    return [m for m in sent if type(m) is tuple and m[0] == KIND]


def compare(batches: list[list[Task]], monkeypatch, hold: float = 1e9) -> tuple[list, list]:
    """The lane's outcomes and the per-task path's, equal but for the times; the lane's."""
    on, sent = served(batches, True, monkeypatch, hold)
    off, _ = served(batches, False, monkeypatch, hold)
    assert [o.task for o in on] == [t for b in batches for t in b]
    assert list(map(plain, on)) == list(map(plain, off))
    return on, sent


@pytest.mark.parametrize("limit", [1, 2])
def test_real_puzzles_on_the_lane_as_on_the_per_task_path(limit, monkeypatch):
    lines = [*PUZZLES, *TOP95, *MULTI, MULTIPLE, UNSATISFIABLE, CONFLICT, REPEATED, TELEGRAM]
    tasks = tasks_of(lines, limit)
    on, sent = compare([tasks[:50], tasks[50:]], monkeypatch)
    assert not LANED  # (the lane off)
    served([tasks[:50], tasks[50:]], True, monkeypatch)
    assert [t.task_id for t in tasks] == LANED  # (every task on the lane)
    assert len(rows_messages(sent)) == 2
    statuses = [o.status.value for o in on]
    assert statuses.count("unsatisfiable") == 3 and statuses.count("solved") == len(tasks) - 3
    assert all(o.problem is None and o.checked for o in on)
    several = [o for o in on if o.count > 1]
    assert (len(several) > 10) == (limit == 2)  # (the multisolution puzzles: two rows each)
    for o in several:
        assert len(o.solutions) == 2 and o.verdict == ">=2"


def test_many_solutions_an_answer_and_a_timeout_of_zero(monkeypatch):
    """Limits up to `native.ROWS` - 1 (255 rows of one answer), and a timeout of 0: a search
    that one kernel call ends answers (the parent makes it a TIMEOUT)."""
    empty = "." * 81
    batches = [
        tasks_of([empty, MULTIPLE, *PUZZLES[:5]], 255),
        tasks_of([*PUZZLES[5:10], MULTIPLE], 30, at=7),
        tasks_of(PUZZLES[10:20], 1, 0.0, at=13),
    ]
    on, _ = compare(batches, monkeypatch)
    assert on[0].count == 255 and len(on[0].solutions) == 255 and on[1].count == 28
    assert all(o.status.value == "solved" for o in on[13:])


def test_paused_searches_and_timeouts_go_the_per_task_way(monkeypatch):
    """With a budget of a few nodes a kernel call (`native.BUDGET`), most searches pause:
    each such task's answer is made as `Native.answer` makes it, in order with the rest; with
    a timeout of 0 they end as TIMEOUTs."""
    monkeypatch.setattr(native, "BUDGET", 3)
    lines = [*PUZZLES[:20], MULTIPLE, UNSATISFIABLE, CONFLICT]
    on, sent = compare([tasks_of(lines, 2)], monkeypatch)
    assert len(sent) > 2  # (the lane's rows and the paused tasks' outcomes, in turn)
    served([tasks_of(lines, 2)], True, monkeypatch)
    assert 0 < len(LANED) < len(lines)
    assert all(o.problem is None for o in on)
    on, _ = compare([tasks_of(lines, 2, 0.0)], monkeypatch)
    statuses = [o.status.value for o in on]
    assert "timeout" in statuses and "solved" in statuses


def test_odd_tasks_and_other_backends_in_order(monkeypatch):
    """Tasks the lane does not take (another backend, a box, a line it cannot read, a limit
    past its rows, a timeout not a float) between its own, each as the per-task path gives it,
    all in order (the lane taking a run of one task: `worker.LANE_RUN`)."""
    monkeypatch.setattr(worker, "LANE_RUN", 1)
    own = tasks_of(PUZZLES[:12], 2)
    odd = [
        own[2]._replace(puzzle="A" + PUZZLES[2][1:]),  # (a larger shape's symbol)
        own[3]._replace(backend="fast"),
        own[5]._replace(puzzle="x" + PUZZLES[5][1:]),
        own[6]._replace(limit=300),
        own[7]._replace(timeout=10),
        own[8]._replace(box="3x3"),
        own[9]._replace(puzzle=PUZZLES[9] + " "),
        own[10]._replace(puzzle="é" + PUZZLES[10][1:]),
    ]
    tasks = list(own)
    for task in odd:
        tasks[task.task_id] = task
    for hold in (0.0, 1e9):  # (sent after every task, or at each batch's end)
        on, sent = compare([tasks[:6], tasks[6:]], monkeypatch, hold)
        assert on[5].status.value == "error" and "cannot read" in on[5].message
        assert on[10].status.value == "error" and on[2].status.value == "error"
        assert on[3].task.backend == "fast" and on[3].problem is None
        assert rows_messages(sent)
        served([tasks[:6], tasks[6:]], True, monkeypatch, hold)
        assert LANED == [0, 1, 4, 11]


def test_the_lane_s_message_is_the_per_task_path_s_but_the_times(monkeypatch):
    """The "rows" message itself: the same columns, value for value, but the times."""
    tasks = tasks_of([*PUZZLES[:30], MULTIPLE, UNSATISFIABLE], 2)
    _, on = served([tasks], True, monkeypatch)
    _, off = served([tasks], False, monkeypatch)
    (lane,), (per_task,) = rows_messages(on), rows_messages(off)
    assert lane[:2] == per_task[:2] and lane[3:5] == per_task[3:5]  # (ids, kinds, solutions)
    timed = {3, 4, 5, 11, 12, 13}  # (encode_s, solve_s, wall_s, peak, cpu_s, cpu_wait_s)
    for k, (a, b) in enumerate(zip(lane[2], per_task[2], strict=True)):
        assert type(a) is type(b)
        if k not in timed:
            assert repr(a) == repr(b), k
    for a, b in zip(lane[5], per_task[5], strict=True):
        read_a, read_b = json.loads(a), json.loads(b)
        assert read_a.keys() == read_b.keys()
        assert all(read_a[k] == read_b[k] for k in read_a if k not in CLOCKS)
    batch = take_batch(deque(tasks), lane)
    assert batch.values[7::WIDTH].count("unsatisfiable") == 1


def test_a_corrupted_row_is_caught_by_the_worker_s_check(monkeypatch):
    """The rows copied from the kernel made wrong (a cell's digit repeated), as a broken copy
    would: the worker's check refuses them, and each answer is reported wrong as the per-task
    path reports a wrong answer (its solution as sent, the problem named)."""
    made = native.lane

    class Corrupted:
        def __init__(self, rows) -> None:
            self.rows = rows

        def __getitem__(self, saved):
            row = bytearray(self.rows[saved])
            if row:
                row[0] = row[1]  # (r1c1 now holds r1c2's digit)
            return row

    def lane(shape):
        ready = made(shape)
        return None if ready is None else ready._replace(rows=Corrupted(ready.rows))

    monkeypatch.setattr(native, "lane", lane)
    lines = [*PUZZLES[:10], UNSATISFIABLE]
    on, _ = served([tasks_of(lines, 1)], True, monkeypatch)
    assert len(LANED) == len(lines)
    for o in on[:10]:
        assert o.status.value == "solved" and o.problem is not None
        assert o.problem.startswith("solution 1 is wrong")
        assert o.solutions[0][0] == o.solutions[0][1]  # (the corrupted row, as sent)
    assert on[10].status.value == "unsatisfiable" and on[10].problem is None
    monkeypatch.setattr(native, "lane", made)
    off, _ = served([tasks_of(lines, 1)], True, monkeypatch)
    assert all(o.problem is None for o in off)


def test_backends_interleaved_a_puzzle_at_a_time_go_the_per_task_way(monkeypatch):
    """`compare -b native,fast` plans each puzzle's tasks together: a batch that alternates
    backends is not cut into a message a task by the lane (`worker.LANE_RUN`), its tasks go
    `solve`'s way, one message a batch; a long enough run of `native` tasks takes the lane."""
    own = tasks_of(PUZZLES[:20], 2)
    mixed = [t for task in own for t in (task, task._replace(backend="fast"))]
    mixed = [t._replace(task_id=k) for k, t in enumerate(mixed)]
    _, sent = compare([mixed], monkeypatch)
    served([mixed], True, monkeypatch)
    # (the first task's message, sent before `fast` loads, then the batch's rest in one)
    assert not LANED and len(rows_messages(sent)) == 2
    run = worker.LANE_RUN
    tail = [t._replace(task_id=len(mixed) + k) for k, t in enumerate(tasks_of(PUZZLES[:run]))]
    compare([mixed + tail], monkeypatch)
    served([mixed + tail], True, monkeypatch)
    assert [t.task_id for t in tail] == LANED
    short = [*tail[: run - 1], tail[-1]._replace(backend="fast")]
    served([short], True, monkeypatch)
    assert not LANED


@pytest.mark.parametrize(("lane", "switching"), [(True, True), (True, False), (False, True)])
def test_each_time_comes_from_its_own_clock(lane, switching, monkeypatch):
    """The wall time is `perf_counter`'s, `cpu_s` `process_time`'s and `cpu_wait_s` the wait
    clock's, on the lane as on the per-task path: each clock is faked to step by its own
    unit (1 s, 1 ms, 10 us a read), so a time read from the wrong clock, or a region that
    lost its end, shows. The process's context switches (read with the peak) are faked to
    move at every read (the lane reads the wait clock again after each task) or to stand
    still (the lane's wait is 0 after its first task, the wait clock read once a task)."""
    import os
    import resource

    def stepping(unit: float):
        reads = iter(range(1, 10**9))
        return lambda: next(reads) * unit

    monkeypatch.setattr(worker.time, "perf_counter", stepping(1.0))
    monkeypatch.setattr(worker.time, "process_time", stepping(0.001))
    # The wait clock's file (schedstat: CPU ns, run-queue delay ns, slices) and `getrusage`
    # faked where every reader (`CpuWait`, `PeakMemory`, the lane's inline reads) reads them.
    waits = stepping(10_000)
    wait_reads = []
    real_pread, real_usage = os.pread, resource.getrusage

    def pread(fd, size, at):
        if not os.readlink(f"/proc/self/fd/{fd}").endswith("/schedstat"):
            return real_pread(fd, size, at)
        wait_reads.append(1)
        return b"5 %d 3\n" % waits()

    switches = stepping(1) if switching else (lambda: 7)

    class Usage:
        def __init__(self, who):
            self.ru_maxrss = real_usage(who).ru_maxrss
            self.ru_nvcsw, self.ru_nivcsw = switches(), 0

    monkeypatch.setattr(os, "pread", pread)
    monkeypatch.setattr(resource, "getrusage", Usage)
    outcomes, _ = served([tasks_of(PUZZLES[:40], limit=1)], lane, monkeypatch)
    if lane:
        assert len(LANED) == 40
    assert len(outcomes) == 40
    for i, o in enumerate(outcomes):
        assert o.status.name == "SOLVED"
        assert o.solve_s == o.wall_s and o.solve_s >= 1.0 and o.solve_s == int(o.solve_s)
        cpu = o.stats["cpu_s"]
        assert 0.001 <= cpu < 0.05 and abs(cpu * 1000 - round(cpu * 1000)) < 1e-6
        wait = o.stats["cpu_wait_s"]
        if switching or i == 0:
            assert 0.00001 <= wait < 0.0005
        else:
            assert wait == 0.0
    if lane and not switching:
        assert len(wait_reads) == 1 + 40 + 1  # (`made`'s test, a read a task, the first's end)


def test_a_reset_that_fails_loses_the_peak_not_the_answers(monkeypatch):
    """The peak's reset (a write to clear_refs, inline on the lane) failing from the fifth task
    on: the first four tasks have their peaks, every later one none (as `PeakMemory.reset`, it
    forgets its file; those tasks go the per-task way), every answer checked."""
    import os

    from sudokubench.harness.noise import CpuWait
    from sudokubench.harness.pool.memory import PeakMemory

    real_write = os.write
    writes = []

    def write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/clear_refs"):
            writes.append(data)
            if len(writes) > 5:  # (the first is `PeakMemory()`'s own)
                raise OSError(5, "faked")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(worker, "_probes", (PeakMemory(), CpuWait()))  # (this test's own)
    outcomes, _ = served([tasks_of(PUZZLES[:20])], True, monkeypatch)
    assert list(range(4)) == LANED
    peaks = [o.peak_memory_bytes for o in outcomes]
    assert all(type(p) is int and p > 0 for p in peaks[:4]) and peaks[4:] == [None] * 16
    checked = [(o.status.name, o.checked, o.problem) for o in outcomes]
    assert checked == [("SOLVED", True, None)] * 20
    assert len(writes) == 6  # (PeakMemory's, four tasks', the fifth's, not tried again)
