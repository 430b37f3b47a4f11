"""How the pool keeps its workers busy: each worker's pace, the batches it gets, the parent's
sleep (`pool/handle.py`), on a handle with no process and a clock given by the test; and a real
pool whose workers get new batches in the look that read their outcomes."""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import time
import types
from collections import deque

import pytest
from support import TELEGRAM

from sudokubench.grid import Grid, is_solution
from sudokubench.harness.pool import LocalPool, Task, local
from sudokubench.harness.pool.handle import (
    AHEAD,
    LONG_TICK,
    MOST_AHEAD,
    OUTPUT_BUFFER,
    PIPE_BYTES,
    TICK,
    WRITE_BYTES,
    WorkerHandle,
    ahead_for,
    pause,
    send_room,
)
from sudokubench.harness.pool.local import BATCH_BYTES
from sudokubench.harness.pool.wire import PlainReader


class Pipe:
    """The parent's end of a worker's pipe: the bytes of each batch sent."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    def send_bytes(self, payload: memoryview) -> None:
        self.sent.append(len(payload))


def handle() -> WorkerHandle:
    """A `WorkerHandle` without a worker: its pipe a `Pipe`, its marker a plain value."""
    worker = WorkerHandle.__new__(WorkerHandle)
    worker.conn = Pipe()  # type: ignore[assignment]
    worker.running = types.SimpleNamespace(value=-1)
    worker.tasks = deque()
    worker.loaded = {"fast"}
    worker.deadline, worker.started = math.inf, 0.0
    worker.pace, worker._looked, worker._left, worker._mark = 0.0, 0.0, 0, None
    worker._sent, worker._count, worker._bytes, worker._since = deque(), 0, 0, 0.0
    worker.room = worker.output_room = PIPE_BYTES
    worker._all = worker._read = 0
    worker._reader, worker._poller = None, None
    worker.lane, worker.draining = None, False
    return worker


def tasks(first: int, n: int, puzzle: str = TELEGRAM) -> list[Task]:
    return [Task(i, f"p:{i}", puzzle, None, "fast", 2, 10.0, 0) for i in range(first, first + n)]


def grace(timeout: float) -> float:
    return 1.0


def test_the_pace_is_the_workers_progress_between_looks_it_never_waited_in() -> None:
    worker = handle()
    for first in (0, 100, 200):
        worker.send(tasks(first, 100), grace)
    worker.running.value = 0
    worker.look(0.0)  # its first task: no pace yet
    assert worker.pace == 0.0 and worker._left == 300
    worker.running.value = 50
    worker.look(0.010)  # 50 tasks in 10 ms
    assert worker.pace == pytest.approx(200e-6)
    assert worker._left == 250 and worker.ahead() == pytest.approx(0.050)
    assert worker.ahead(0.030) == pytest.approx(0.030)  # 20 ms later, 20 ms less
    # Between two tasks (its marker -1: maybe idle): the time until the next look that finds
    # it running counts for nothing, however many tasks it did in between.
    worker.running.value = -1
    worker.look(0.020)
    worker.running.value = 120
    worker.look(0.060)
    assert worker.pace == pytest.approx(200e-6)
    # The first batch's outcomes read; 50 tasks in 5 ms: quicker, followed at once
    for _ in range(100):
        worker.tasks.popleft()
    worker.running.value = 170
    worker.look(0.065)
    assert worker._left == 130 and worker.pace == pytest.approx(100e-6)
    # slower: a quarter of the way a look
    worker.running.value = 180
    worker.look(0.068)  # 10 tasks in 3 ms: 300 us
    assert worker.pace == pytest.approx(0.75 * 100e-6 + 0.25 * 300e-6)
    # a task that runs across looks: no sample until the next one starts
    worker.look(0.080)
    assert worker.pace == pytest.approx(150e-6)
    worker.running.value = 181
    worker.look(0.081)  # 1 task in 13 ms (since the look at 0.068)
    assert worker.pace == pytest.approx(0.75 * 150e-6 + 0.25 * 13e-3)


def test_a_worker_that_ran_dry_bounds_its_pace() -> None:
    """A pace too slow (here 1 ms a task, say from a start on a busy machine) makes sleeps so
    long that the worker runs dry before each look and never runs a task at two in a row; a
    look that finds it dry takes its pace down to the time since it was sent its tasks over
    them."""
    worker = handle()
    worker.send(tasks(0, 200), grace)
    worker._since = 1.0  # (sent at 1.0 s)
    worker.pace = 1e-3
    worker.tasks.clear()  # all 200 outcomes read at the look at 1.030 s
    worker.look(1.030)
    assert worker.pace == pytest.approx(0.030 / 200)
    worker.send(tasks(200, 200), grace)
    worker._since = 2.0
    worker.tasks.clear()
    worker.look(2.100)  # 200 in 100 ms, slower than its pace: not taken (it may have waited)
    assert worker.pace == pytest.approx(0.030 / 200)


def test_a_fast_worker_gets_batches_while_they_last_under_ahead() -> None:
    worker = handle()
    worker.room = 10**6  # (the bytes' rule apart: below)
    size = 100
    assert worker.wants(size, BATCH_BYTES)  # idle
    worker.send(tasks(0, 100), grace)
    worker.send(tasks(100, 100), grace)
    worker.running.value = 0
    worker.look(0.0)
    # two batches in flight, its pace unknown: no third (a slow backend's stays at two)
    assert not worker.wants(size, BATCH_BYTES)
    worker.running.value = 100
    worker.look(0.010)  # 100 us a task: its 100 tasks left last 10 ms
    assert worker.ahead() < AHEAD and worker.wants(size, BATCH_BYTES)
    # more, as many as last under AHEAD at its pace (50 ms: 500 tasks), not three at most
    sent = 0
    while worker.wants(size, BATCH_BYTES):
        worker.send(tasks(200 + 100 * sent, 100), grace)
        sent += 1
    assert sent == 4 and worker._left == 500 and worker.ahead() == pytest.approx(AHEAD)
    # a slow worker: two batches that last AHEAD or more get no third
    slow = handle()
    slow.send(tasks(0, 100), grace)
    slow.send(tasks(100, 100), grace)
    slow.running.value = 0
    slow.look(0.0)
    slow.running.value = 1
    slow.look(AHEAD / 150)  # 1 task in AHEAD / 150 s: 199 left last longer than AHEAD
    assert slow.ahead() >= AHEAD and not slow.wants(size, BATCH_BYTES)
    slow.running.value = 2
    slow.look(AHEAD / 150 + AHEAD / 400)  # quicker: 198 tasks last under AHEAD
    assert slow.wants(size, BATCH_BYTES)


def test_a_third_batch_never_overfills_the_workers_pipe() -> None:
    big = "1" + "0" * 624  # a 25x25 line: 625 bytes a task
    worker = handle()
    size = 40
    worker.send(tasks(0, 40, big), grace)
    worker.send(tasks(40, 40, big), grace)
    assert sum(worker.conn.sent) + BATCH_BYTES > PIPE_BYTES  # (two batches of 25 KB and more)
    worker.running.value = 0
    worker.look(0.0)
    worker.running.value = 10
    worker.look(0.001)
    assert worker.ahead() < AHEAD  # quick enough, but the bytes do not fit
    assert not worker.wants(size, BATCH_BYTES)
    # once its first batch's outcomes are read, the bytes of the two in flight fit
    for _ in range(40):
        worker.tasks.popleft()
    worker.running.value = 50
    worker.look(0.002)
    assert worker.wants(size, BATCH_BYTES)  # (one batch in flight: it and a next fit)
    worker.send(tasks(80, 40, big), grace)
    assert worker._bytes == sum(worker.conn.sent[1:]) + 2 * WRITE_BYTES <= PIPE_BYTES


def test_small_batches_of_large_puzzles_fill_no_more_than_the_pipe() -> None:
    """Batches cut short by their bytes (a 25x25 line is 625 bytes): a worker with fewer than
    a batch's tasks in flight gets more only while their bytes fit its pipe."""
    big = "1" + "0" * 624
    worker = handle()
    size = 128
    worker.send(tasks(0, 38, big), grace)
    assert worker.wants(size, BATCH_BYTES)  # (one batch of 25 KB and a next of 32 KB fit)
    worker.send(tasks(38, 38, big), grace)
    assert len(worker.tasks) < size and not worker.wants(size, BATCH_BYTES)
    assert worker._bytes + BATCH_BYTES > PIPE_BYTES


def test_the_parent_sleeps_half_the_time_until_the_first_worker_runs_dry() -> None:
    quick, slow = handle(), handle()
    for worker, pace in ((quick, 100e-6), (slow, 1e-3)):
        worker.send(tasks(0, 200), grace)
        worker.running.value = 0
        worker.look(0.0)
        worker.pace = pace
    assert quick.ahead() == pytest.approx(0.020) and slow.ahead() == pytest.approx(0.2)
    assert pause([quick, slow], 0.0) == pytest.approx(0.010)
    assert pause([quick, slow], 0.004) == pytest.approx(0.008)  # 16 ms left at 4 ms
    assert pause([quick, slow], 0.015) == TICK  # 5 ms left: the shortest sleep
    assert pause([slow], 0.0) == LONG_TICK  # 200 ms left: the longest
    assert pause([], 0.0) == TICK


def test_the_parent_looks_before_a_worker_fills_its_pipe_with_outcomes() -> None:
    """A worker's outcomes wait in its pipe until the parent reads them; once the pipe is
    full the worker blocks (and looks slower than it is). The parent's sleep is at most half
    the time the worker takes to fill its pipe at its pace, from the bytes its messages took
    a task so far (`fills`), however much work it has in flight; `TICK` at least."""
    worker = handle()
    worker.output_room = 100_000
    worker.send(tasks(0, 2000), grace)  # (to the fake pipe: its batches are not read here)
    parent, child = multiprocessing.Pipe(duplex=True)
    worker.conn = parent
    worker.running.value = 0
    worker.look(0.0)
    worker.pace = 10e-6  # 20 ms of work in flight: a sleep of 10 ms by the work alone
    assert worker.fills() == math.inf  # nothing read yet: not known
    assert pause([worker], 0.0) == pytest.approx(0.010)
    message = [(f"{i:03}" + "x" * 187, i) for i in range(100)]  # about 200 bytes a task
    child.send(message)
    for _ in range(100):
        worker.tasks.popleft()
    got = list(worker.messages())
    assert got == [message]
    per_task = worker._read / 100
    assert 190 < per_task < 260
    # 100,000 bytes hold 100,000 / per_task outcomes, 10 us each: 4-5 ms to fill
    assert worker.fills() == pytest.approx(100_000 / per_task * 10e-6)
    assert pause([worker], 0.0) == TICK  # (half of it is under the shortest sleep)
    worker.output_room = 1_000_000  # 40-50 ms to fill: a sleep of half, under the work's
    assert pause([worker], 0.0) == pytest.approx(min(0.010, worker.fills() / 2))
    worker.output_room = 10_000_000
    assert pause([worker], 0.0) == pytest.approx(0.010)  # the work in flight bounds it
    parent.close()
    child.close()


def test_a_plug_in_lanes_lines_count_toward_its_pipe_filling() -> None:
    """A plug-in's worker sends JSON lines (`PlainReader`): the bytes read count as its
    messages' do, so its pipe's fill bounds the parent's sleep too."""
    worker = handle()
    worker.output_room = 12_000
    worker.send(tasks(0, 2000), grace)
    parent, child = multiprocessing.Pipe(duplex=True)
    worker.conn = parent
    worker._reader = PlainReader(parent.fileno())
    worker.running.value = 0
    worker.look(0.0)
    worker.pace = 10e-6
    assert worker.fills() == math.inf
    line = b'["ready",0]\n'  # (12 bytes, a message the reader decodes)
    os.write(child.fileno(), line * 100)
    for _ in range(100):
        worker.tasks.popleft()
    assert len(list(worker.messages())) == 100 and worker._reader.read == 1200
    # 12,000 bytes hold 1,000 lines of 12 bytes a task: 10 ms at 10 us a task
    assert worker.fills() == pytest.approx(1000 * 10e-6)
    assert pause([worker], 0.0) == TICK  # (half of 10 ms, under the work's 10 ms)
    parent.close()
    child.close()


@pytest.mark.skipif(sys.platform != "linux", reason="a socket pair's buffers")
def test_the_worker_end_of_a_pipe_asks_for_a_larger_send_buffer() -> None:
    """The worker's end of its connection is asked `OUTPUT_BUFFER` (what the system allows
    of it): its outcomes fill it unread while the parent sleeps or stores."""
    import socket

    parent, child = multiprocessing.Pipe(duplex=True)
    with socket.socket(fileno=os.dup(child.fileno())) as sock:
        before = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    room = send_room(child, OUTPUT_BUFFER)
    with socket.socket(fileno=os.dup(child.fileno())) as sock:
        after = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    assert room == after // 2 and after >= before
    with open("/proc/sys/net/core/wmem_max") as f:
        most = int(f.read())
    assert after >= min(2 * OUTPUT_BUFFER, 2 * most)  # (Linux doubles what it is asked)
    parent.close()
    child.close()


def test_the_work_in_flight_covers_the_time_between_the_parents_looks() -> None:
    assert ahead_for(0.0) == AHEAD and ahead_for(AHEAD / 2) == AHEAD
    assert ahead_for(0.06) == pytest.approx(0.12)
    assert ahead_for(10.0) == MOST_AHEAD
    worker = handle()
    worker.room = 10**6
    worker.send(tasks(0, 100), grace)
    worker.send(tasks(100, 100), grace)
    worker.running.value = 0
    worker.look(0.0)
    worker.running.value = 100
    worker.look(0.010)  # 100 us a task, 100 left
    sent = 0
    while worker.wants(100, BATCH_BYTES, ahead_for(0.05)):  # 100 ms: 1,000 tasks
        worker.send(tasks(200 + 100 * sent, 100), grace)
        sent += 1
    assert sent == 9 and worker._left == 1000


def dispatched(more: bool, queued: int) -> list[int]:
    """The tasks in flight to each of two fast workers (10 us a task, none in flight) after
    `_dispatch` with `queued` tasks queued."""
    pool = local.LocalPool.__new__(local.LocalPool)
    pool.jobs, pool.batch_size, pool.grace = 2, 100, grace
    pool._staff = lambda queues: None  # type: ignore[method-assign]
    workers = [handle(), handle()]
    for w in workers:
        w.room, w.pace = 10**7, 1e-5
    pool._workers = workers
    pool._dispatch({None: deque(tasks(0, queued))}, more)
    return [len(w.tasks) for w in workers]


def test_once_the_tasks_are_all_taken_each_worker_holds_its_share() -> None:
    # While tasks are still to be taken, a fast worker gets batches up to AHEAD at its pace
    # (5,000 tasks) whatever the other has.
    assert dispatched(True, 6000) == [5000, 1000]
    # Once they are all taken, each its share of what is left (and a first batch always).
    assert dispatched(False, 6000) == [3000, 3000]
    assert dispatched(False, 1001) == [501, 500]
    assert dispatched(False, 1) == [1, 0]


def test_the_pool_looks_at_its_workers_between_the_callers_slow_steps(monkeypatch) -> None:
    """A caller whose every step outlasts `TICK`: before each list after the first (a look
    reads one from each of two workers, or more), the pool looked at the workers again (read
    their pipes, sent them batches), not only once a sleep; every answer checked."""
    # (a look before every step, below: any number of lists waiting, any work in flight)
    monkeypatch.setattr(local, "PENDING", 10**6)
    monkeypatch.setattr(local, "ahead_for", lambda gap: 10.0)
    n = 80
    work = tasks(0, n)
    with LocalPool(jobs=2, batch_size=4, preload=("fast",)) as pool:
        looks = 0
        real = pool._dispatch

        def counted(*args: object) -> None:
            nonlocal looks
            looks += 1
            real(*args)  # type: ignore[arg-type]

        pool._dispatch = counted  # type: ignore[method-assign]
        seen, before = 0, -1
        for outcomes in pool.run_batches(work):
            assert looks > before  # a look since the caller's last step
            before = looks
            seen += len(outcomes)
            for outcome in outcomes:
                assert is_solution(Grid.parse(outcome.solutions[0]), Grid.parse(TELEGRAM))
            time.sleep(2 * TICK)  # the caller's slow step
    assert seen == n


def test_a_worker_has_its_next_batch_when_the_caller_gets_its_outcomes() -> None:
    """Batches of two tasks, which a worker finishes long before the parent's next look: at
    every list the caller gets, the worker has its next batch already (sent in the look that
    read the list, before the caller's turn), while tasks are left."""
    n = 60
    work = tasks(0, n)
    with LocalPool(jobs=1, batch_size=2, preload=("fast",)) as pool:
        seen = 0
        for outcomes in pool.run_batches(work):
            seen += len(outcomes)
            (worker,) = pool._workers
            assert worker.tasks or seen == n
            for outcome in outcomes:
                assert is_solution(Grid.parse(outcome.solutions[0]), Grid.parse(TELEGRAM))
    assert seen == n


def test_the_room_on_a_workers_connection_is_never_overfilled() -> None:
    """`send_room` on a real connection (the socket pair of multiprocessing's duplex `Pipe`):
    batches sent while `wants`' bytes rule allows them never block the parent, large or small,
    with the worker reading none of them."""
    ctx = multiprocessing.get_context("spawn")
    for payload in (150, 1_000, 5_000, 15_000, BATCH_BYTES - 1):
        parent, child = ctx.Pipe(duplex=True)
        try:
            room = send_room(parent)
            if sys.platform == "linux":
                assert room > PIPE_BYTES  # (a socket's buffer, raised: more than a pipe's)
            os.set_blocking(parent.fileno(), False)
            used = 0
            while used + BATCH_BYTES + WRITE_BYTES <= room:  # (`wants`: the next's most)
                parent.send_bytes(b"x" * payload)  # BlockingIOError if it would block
                used += payload + WRITE_BYTES
            assert used > room // 2
        finally:
            parent.close()
            child.close()


def test_a_pool_of_its_own_backends_starts_its_workers_when_prepared() -> None:
    """`prepare` of sudokubench's own backends starts the `jobs` workers, so that their start
    overlaps the caller's (storing the run's start) instead of delaying the first batch; the
    run then uses those workers, none started again, every answer checked. With a plug-in
    among the backends it starts none (that lane needs a worker of its own: `_staff`)."""
    n = 40
    with LocalPool(jobs=2, batch_size=4, preload=("fast",)) as pool:
        pool.prepare(["fast"])
        assert pool.started_workers == 2
        assert all(w.process.is_alive() and not w.tasks for w in pool._workers)
        pids = [w.process.pid for w in pool._workers]
        seen = 0
        for outcome in pool.run(tasks(0, n)):
            seen += 1
            assert is_solution(Grid.parse(outcome.solutions[0]), Grid.parse(TELEGRAM))
        assert pool.started_workers == 2
        assert [w.process.pid for w in pool._workers] == pids
    assert seen == n
    with LocalPool(jobs=2) as pool:
        pool.prepare(["fast", "fake_backends:WrongSolution"])
        assert pool.started_workers == 0
