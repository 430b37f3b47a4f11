"""`LocalPool`: running (puzzle, backend) tasks in worker processes here, with hard timeouts.

The harness hands an `Executor` (`pool/task.py`) a stream of `Task`s and reads back one
`Outcome` per task, in completion order. `LocalPool` is the executor on this machine; the
worker loop is `pool/worker.py`, the parent's handle on one worker (its pipe, tasks in
flight, the running task's clock) `pool/handle.py`; `DaskExecutor` (`pool/dask.py`) runs the
same tasks on a dask.distributed cluster, each dask worker using a `LocalPool` of its own.

How `LocalPool` works:

- `jobs` persistent worker processes (started with `forkserver` where the platform has it, so a
  restart after a kill costs milliseconds, else `spawn`; never `fork`, which is unsafe once the
  parent runs threads such as a progress bar). Each worker caches one backend instance per name.
  When every backend is sudokubench's own, `prepare` starts the workers (before the run's first
  task, while the caller stores the run's start); else the first batches start them.
- Tasks go to a worker in batches over that worker's own pipe (one pickle per batch keeps the cost
  per task low for backends that take a millisecond); each worker has two batches in flight so it
  never waits for the next, more while those last less than `handle.AHEAD` (50 ms) at its pace, or
  twice the time between the parent's looks lately (`handle.ahead_for`, 0.2 s at most), as long as
  their bytes fit its pipe (`WorkerHandle.wants`; on Linux the pipe is a socket pair whose buffer is
  raised and read, `handle.send_room`), and a worker's new batches go out in the look that read the
  outcomes that made room for them, before the caller's turn with those outcomes; while the caller
  works through a look's outcomes, the pool looks again between its steps when a worker runs low
  (`PENDING`). Batches shrink as the queue drains, and once the tasks are all taken a worker holds
  at most its share of what is left, so the workers finish together. `run` takes the caller's tasks
  lazily, a window of `WINDOW` (4,096) at a time; at the start only two batches a worker, sent at
  once, and the window fills while they run, as many tasks again a look with no sleep between, so
  that the first outcomes find the parent looking. Outcomes come back as soon as they finish, those
  finishing within `HOLD` (20 ms) of each other in one message (a task that takes longer is sent on
  its own at once), so the caller can store each as it finishes (`run_batches` hands back those
  found at one look at a worker's pipe as one list, which `compare` stores and tallies in one step
  each; `run` one at a time; a worker of sudokubench's own backends sends its message as columns,
  `batch.py`, which `run_columns` hands back as it came, a `Batch`, stored with one INSERT and
  tallied a column at a time). The parent looks at the pipes every 5 to 25 ms (`handle.pause`: half
  the time until the first worker runs out at its pace, which the parent follows by the worker's
  marker of its running task, `WorkerHandle.look`) instead of blocking on them (a worker that writes
  to a pipe nobody is waiting on is not switched out for the parent, which on a busy 2-core machine
  made each message cost ~0.7 ms), and no longer than half the time a worker takes to fill its end
  of the pipe with outcomes at its pace (`WorkerHandle.fills`, its end's buffer asked
  `handle.OUTPUT_BUFFER`): a worker blocked on a full pipe waits, and its pace, measured as the
  parent sees it, then looks slower than it is, which lengthened the sleeps further. Messages are
  `Connection.send`/`recv` pickles, except what a plug-in's worker sends: JSON lines, read without
  blocking and bounded (`pool/wire.py`); what is not a message costs that worker's task (`_died`).
- The parent knows which task each worker is running (a worker runs its batch in order, and
  writes the id of the task it is solving to shared memory) and when it started: when the
  previous outcomes arrived, or when the worker reported that it had loaded the task's backend
  (loading, e.g. importing OR-Tools, is not charged to the task). Held outcomes make that clock
  start at most `HOLD` late, which the grace (0.5 s or more) absorbs.
- Hard timeout: a task still running `timeout + grace` seconds after it started gets its worker
  killed (SIGKILL); the task becomes TIMEOUT and the tasks queued behind it go to a fresh
  worker. This stops backends stuck in C code that never look at their deadline. Tasks that
  had finished but whose outcomes were held when the worker was killed run again.
  A backend that declares `forks_for_timeout` (pycosat, python-constraint, the PySAT solvers
  that cannot be interrupted) is called with `timeout=None`: the kill is its deadline (the
  "external" timeout of DESIGN.md), so it does not pay a forked child on every puzzle.
- Crashes: an exception inside `solve` becomes an ERROR outcome in the worker. A worker that
  dies (os._exit, a segfault, the OOM killer) makes its current task ERROR with the exit code
  or signal; the tasks queued behind it (and any finished ones it held) are requeued. A
  worker that loses its pipe (a plug-in closed it) exits with `LOST_PIPE`, without a traceback.
- Lanes: sudokubench's own backends share workers; each plug-in or `exec:` backend
  (`guard.trusted` is false) has workers of its own, which never run another backend's
  task, so whatever its code does to its process (crash it, close its pipes, patch the
  check) is charged to it alone; such a worker (and what it starts) may change files only in
  a temporary folder of its own (`confine.py`: not the results database). At most `jobs`
  workers live at once: a lane left without one takes an idle worker's slot (that worker is
  stopped), else one busy worker gets no new batch until it is idle and its slot changes
  lanes, so lanes take turns a batch or two at a time.
- Memory: each outcome carries the worker's peak resident set during its timed call
  (`pool/memory.py`). With `memory_limit`, the parent reads each worker's resident set at
  every look at the pipes (/proc/PID/statm, ~10 us a worker) and kills a worker over it: the
  task it was solving is an ERROR "memory limit", the tasks queued behind it go to a fresh
  worker, as after a timeout. A task that went over and back between two looks is caught by
  its own peak: its outcome becomes that ERROR and its worker is replaced (what it left
  resident would be charged to the next task). A process can touch at most one look's worth
  (5-25 ms) of memory past the limit before it is killed.
- Checking: the worker checks each answer with `verify.check_result` (`is_solution` on every
  solution, the counts) right after the timed call, so checking runs side by side on `jobs`
  cores; an outcome says `checked` and carries the verdict and the problem found, if any.
  `compare` keeps that check for its own backends only and checks a plug-in's answers again
  itself (`run.py`); every outcome is `guard.sanitize`d in the worker, a plug-in's again in
  `compare`.
- Timing: the timing rule (`backend.timed_call`): `wall_s` is `perf_counter` in the worker
  around the backend's `run` only (a solve-only plug-in's `solve`), equal to `solve_s`;
  `encode_s` is its untimed `prepare`. A killed task's `wall_s` is the parent's measure from
  its start to the kill.
- The caller's `__main__` stays out of the workers: multiprocessing would re-import the
  caller's script in every worker it starts (to unpickle objects defined there), re-running a
  script without an `if __name__ == "__main__":` guard, compare and all, in each worker.
  Workers need nothing from it (tasks name backends by strings), so `__main__` is hidden
  while a worker starts (`handle.main_hidden`) and a plain script works as written.
- Start-up: the fork server boots when the pool is made (~0.3 s here, overlapping whatever the
  caller does next); each worker then forks from it in milliseconds and imports its backends.
  `preload=` names backends the fork server imports once, for cheap restarts after kills.
- Workers ignore SIGINT: Ctrl-C reaches the parent only, which stops them cleanly. If the
  parent dies (even `kill -9`), each worker's watcher thread sees the parent's end of a
  "lifeline" pipe close and kills the worker, and `exec:` programs die with their worker.
- A run abandoned midway (the caller stops iterating) kills the workers with tasks in flight;
  the pool starts fresh ones on the next `run`.

Roads not taken: `concurrent.futures.ProcessPoolExecutor` and `multiprocessing.Pool` cannot
kill one stuck task (only the whole pool), and one dead worker breaks the whole executor
(`BrokenProcessPool`); a thread with a timeout cannot stop C code; one process per task costs
a start-up per puzzle, far more than a 17clue puzzle takes to solve.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import operator
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.pool.batch import KIND, WIDTH, Batch, take_batch
from sudokubench.harness.pool.boot import (  # (`_modules`: this module's name for it too)
    WORKER_MODULES,
    _modules,  # noqa: F401
    boot_fork_server,
)
from sudokubench.harness.pool.guard import LOAD_HINT, trusted
from sudokubench.harness.pool.handle import (
    LOAD_TIMEOUT,
    TICK,
    WorkerHandle,
    ahead_for,
    describe_exit,
    pause,
)
from sudokubench.harness.pool.memory import format_size, resident_bytes
from sudokubench.harness.pool.probe import worker_info
from sudokubench.harness.pool.task import Outcome, Task, default_grace, failed
from sudokubench.harness.pool.wire import ProtocolError, from_wire, take_outcomes

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "LOAD_TIMEOUT",
    "WORKER_MODULES",
    "LocalPool",
    "boot_fork_server",
    "describe_exit",
]

#: Most tasks per batch sent to a worker (fewer when the queue is nearly empty).
DEFAULT_BATCH_SIZE = 128
#: A batch's pickle stays under about this many bytes (so a pipe never blocks the parent).
BATCH_BYTES = 32_000
#: Bytes a task takes in a batch besides its puzzle (a generous estimate).
TASK_BYTES = 200
#: A task's backend and puzzle, read in C.
_BACKEND, _PUZZLE = operator.attrgetter("backend"), operator.attrgetter("puzzle")
#: Fewest tasks `run` takes ahead of the workers (at least two full batches per worker).
WINDOW = 4096
#: Lists of outcomes waiting for the caller under which the pool looks at the workers again
#: between the caller's steps (`_run`), once `TICK` has passed since its last look.
PENDING = 8


class LocalPool:
    """An `Executor` of `jobs` worker processes on this machine; also a context manager."""

    def __init__(
        self,
        jobs: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        grace: float | None = None,
        start_method: str | None = None,
        preload: Iterable[str] = (),
        warm_up: bool = True,
        memory_limit: int | None = None,
    ) -> None:
        """A pool; its fork server (if any) starts now, its workers on the first `run`.

        `grace`: seconds past a task's timeout before the kill (default `default_grace`).
        `preload`: backend names whose modules the fork server imports once, so a worker
        restarted after a kill does not import them again (e.g. OR-Tools).
        `warm_up`: each worker runs the first task of each backend once untimed before the
        timed call (`worker_main`).
        `memory_limit`: bytes a worker may reside in; a task that takes it over is an ERROR
        "memory limit" and its worker is replaced (None: no limit).
        """
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.jobs = jobs
        self.batch_size = batch_size
        self.warm_up = warm_up
        self.memory_limit = memory_limit
        self.grace = default_grace if grace is None else (lambda timeout: grace)
        if start_method is None:
            methods = multiprocessing.get_all_start_methods()
            start_method = "forkserver" if "forkserver" in methods else "spawn"
        self._ctx = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            # Boot it now, in the background, while the caller reads puzzles and opens storage.
            boot_fork_server(preload)
        # Workers get the reading end; this process alone holds the writing end, so it closes
        # when this process ends in any way, and the workers then kill themselves.
        self._lifeline, self._lifeline_end = self._ctx.Pipe(duplex=False)
        self._workers: list[WorkerHandle] = []
        #: Workers started so far, restarts included (for tests and diagnostics).
        self.started_workers = 0

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """This machine, which runs every worker (`probe.worker_info`, plus `processes`). A
        plug-in is asked in a child process (`harness.plugins.probe`), never loaded here: its
        import could switch off the checks this process makes of its answers."""
        from sudokubench.errors import InputError
        from sudokubench.harness.plugins import probe  # imports the pool: not at module level

        info = worker_info([b for b in backends if trusted(b)])
        if backends and all(map(trusted, backends)):
            self._start_workers()
        for name in (b for b in backends if not trusted(b)):
            try:
                found = probe(name)
            except InputError as exc:
                info["missing"][name] = str(exc)
                continue
            if found.available:
                info["backends"][name] = found.version
            else:
                info["missing"][name] = found.reason
        return [{**info, "processes": self.jobs}]

    def _start_workers(self) -> None:
        """Start the workers of sudokubench's own backends' lane now, before the first task
        (`prepare`): each forks from the fork server and loads its modules while the caller
        stores the run's start, instead of when the first batch is due (25-50 ms a worker,
        one after another, on a busy 2-core machine). A run with fewer tasks than `jobs`
        leaves the extra workers idle; one that needs a plug-in's lane (`_staff`) takes an
        idle one's slot."""
        while len(self._workers) < self.jobs:
            self._workers.append(self._new_worker())

    def close(self) -> None:
        """Stop every worker (a clean exit, then SIGKILL for any that hangs)."""
        for worker in self._workers:  # all are told first, so they exit side by side
            worker.stop(wait=False)
        for worker in self._workers:
            worker.stop()
        self._workers.clear()

    def _new_worker(self, lane: str | None = None) -> WorkerHandle:
        self.started_workers += 1
        return WorkerHandle(self._ctx, self._lifeline, self.warm_up, lane, self.memory_limit)

    def _drop(self, worker: WorkerHandle) -> None:
        """Kill a worker and free its slot (`_staff` starts a fresh one where tasks wait)."""
        worker.kill()
        self._workers.remove(worker)

    def _staff(self, queues: dict[str | None, deque[Task]]) -> None:
        """Give every lane with queued tasks a worker, at most `jobs` workers in all.

        A lane left without one takes the slot of an idle worker (killed: it holds nothing),
        else marks one busy worker (of the lane with the most) draining: it gets no new batch,
        and its slot changes lanes once it is idle. So lanes take turns when there are more
        lanes than jobs, a batch or two at a time.
        """
        waiting = [
            lane
            for lane, queue in queues.items()
            if queue and not any(w.lane == lane for w in self._workers)
        ]
        if not waiting:
            for worker in self._workers:
                worker.draining = False
        for lane in waiting:
            if len(self._workers) < self.jobs:
                self._workers.append(self._new_worker(lane))
                continue
            idle = next(
                (
                    w
                    for w in self._workers
                    if not w.tasks and (w.draining or not queues.get(w.lane))
                ),
                None,
            )
            if idle is not None:
                idle.kill()
                self._workers[self._workers.index(idle)] = self._new_worker(lane)
            elif not any(w.draining for w in self._workers):
                per_lane = Counter(w.lane for w in self._workers)
                busy = [w for w in self._workers if w.tasks]  # (one just started has none)
                if busy:
                    max(busy, key=lambda w: per_lane[w.lane]).draining = True
        while len(self._workers) < self.jobs:  # free slots: to the lane with most per worker
            per_lane = Counter(w.lane for w in self._workers)
            lane = max(queues, key=lambda k: len(queues[k]) / (1 + per_lane[k]))
            if len(queues[lane]) <= per_lane[lane]:
                break
            self._workers.append(self._new_worker(lane))

    def _dispatch(
        self, queues: dict[str | None, deque[Task]], more: bool = False, gap: float = 0.0
    ) -> None:
        """Top up every worker from its lane's queue to two batches in flight, more for a
        fast backend (`WorkerHandle.wants`); batches shrink near the end. Once the tasks are
        all taken (`more` false), a worker holds no more than its share of what is left in
        its lane (beyond one batch), so that the workers finish together. `gap`: the seconds
        between the parent's looks lately (`handle.ahead_for`)."""
        self._staff(queues)
        in_flight = sum(len(w.tasks) for w in self._workers)
        queued = sum(len(q) for q in queues.values())
        size = max(1, min(self.batch_size, math.ceil((queued + in_flight) / (2 * self.jobs))))
        shares: dict[str | None, int] = {}
        ahead = ahead_for(gap)
        if not more:
            staff: dict[str | None, list[int]] = {}
            for worker in self._workers:
                lane = staff.setdefault(worker.lane, [0, 0])
                lane[0] += len(worker.tasks)
                lane[1] += 1
            for lane, (flying, n) in staff.items():
                shares[lane] = math.ceil((flying + len(queues.get(lane) or ())) / n)
        for worker in list(self._workers):
            queue = queues.get(worker.lane)
            share = shares.get(worker.lane, math.inf)
            while (
                queue
                and not worker.draining
                and (not worker.tasks or len(worker.tasks) < share)
                and worker.wants(size, BATCH_BYTES, ahead)
            ):
                n = size if share == math.inf else max(1, min(size, share - len(worker.tasks)))
                if not self._send_batch(worker, queue, n):
                    break

    def _send_batch(self, worker: WorkerHandle, queue: deque[Task], size: int) -> bool:
        """Send the worker a batch of at most `size` tasks from the front of `queue` and
        `BATCH_BYTES`; False when the worker is dead (the batch is queued again)."""
        # The tasks that fit: counted first (all of `size` at once when they do, the
        # usual case), then taken at once.
        n = min(size, len(queue))
        if (
            sum(map(len, map(_PUZZLE, itertools.islice(queue, n)))) + TASK_BYTES * (n - 1)
            >= BATCH_BYTES
        ):
            room = BATCH_BYTES - len(queue[0].puzzle)
            n = 1
            for task in itertools.islice(queue, 1, size):
                room -= len(task.puzzle) + TASK_BYTES
                if room <= 0:
                    break
                n += 1
        batch = list(itertools.starmap(queue.popleft, itertools.repeat((), n)))
        try:
            worker.send(batch, self.grace)
        except OSError:  # the worker is dead: take the batch back
            for _ in batch:
                worker.tasks.pop()
            queue.extendleft(reversed(batch))
            if not worker.tasks:  # it died idle: no task to blame, a fresh one takes over
                self._drop(worker)
            # else `_receive` reads its EOF and reports the task it was running
            return False
        return True

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield one Outcome per task in completion order; see the module docstring."""
        for outcomes in self.run_batches(tasks):
            yield from outcomes

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """`run`'s outcomes as lists, those found at one look at a worker's pipe together
        (what the caller stores and tallies a list at a time: one step per list, not per
        outcome)."""
        return self._run(tasks, False)  # type: ignore[return-value]

    def run_columns(
        self, tasks: Iterable[Task], strict: bool = True
    ) -> Iterator[list[Outcome] | Batch]:
        """`run_batches`, with a worker's columnar message (`batch.to_columns`: a worker of
        sudokubench's own backends) handed back as it came, a `Batch`, when every task of it
        peaked within the memory limit, if any (else its outcomes, each checked against the
        limit): what `compare` stores and tallies a batch at a time without an object a
        task. Without `strict`, a `Batch`'s answer after the limit keeps the worker's status
        (`batch.take_batch`): a dask worker's pool passes its batches on so (`dask_batch.py`)."""
        return self._run(tasks, True, strict)

    def _run(
        self, tasks: Iterable[Task], columns: bool, strict: bool = True
    ) -> Iterator[list[Outcome] | Batch]:
        queues: dict[str | None, deque[Task]] = {}
        lanes: dict[str, str | None] = {}
        source = iter(tasks)  # taken lazily, a window at a time: a run's tasks are never a list
        window = max(WINDOW, 4 * self.jobs * self.batch_size)

        def queue_of(backend: str) -> deque[Task]:
            """The queue of the backend's lane (its own when its code is a plug-in's)."""
            lane = lanes.get(backend, "")
            if lane == "":
                lane = lanes[backend] = None if trusted(backend) else backend
            queue = queues.get(lane)
            if queue is None:
                queue = queues[lane] = deque()
            return queue

        def take(most: int = window) -> bool:
            """Queue tasks up to `most`; False once `tasks` is exhausted. (Tasks put back
            after a kill or a crash can leave the queues over it: then none is taken.)"""
            wanted = most - sum(len(q) for q in queues.values())
            if wanted <= 0:
                return True
            chunk = list(itertools.islice(source, wanted))
            backends = set(map(_BACKEND, chunk))
            if len(backends) == 1:  # (the usual window: one backend's, one lane, at once)
                (backend,) = backends
                queue_of(backend).extend(chunk)
                return len(chunk) == wanted
            backend, queue = None, None  # the last task's, which the next one usually shares
            for task in chunk:
                if task.backend != backend or queue is None:
                    backend = task.backend
                    queue = queue_of(backend)
                queue.append(task)
            return len(chunk) == wanted

        # At first only two batches a worker, so they start at once; the window fills up
        # while they run (taking it all first kept every worker idle ~0.1 s on 17clue), as
        # much again a look, without a sleep between (`filling`): planning the whole window
        # in one look (about 10 ms for 17clue's 4,096 tasks) outlasted the first batches'
        # work, and their workers waited for the next look.
        step = 2 * self.jobs * self.batch_size
        more = take(step)
        if not queues:
            return
        filling = more and step < window

        gap = last = 0.0  # seconds between the parent's looks lately; the last one's time

        def look() -> list[list[Outcome] | Batch]:
            """Read every worker's pipe, check the deadlines and memory, send the new batches
            (`_dispatch`), take more tasks: what was read, for the caller."""
            nonlocal more, gap, last, filling
            found: list[list[Outcome] | Batch] = []
            for worker in list(self._workers):
                found.extend(
                    self._receive(worker, queues.setdefault(worker.lane, deque()), columns, strict)
                )
            if self.memory_limit is not None and (capped := list(self._cap_memory(queues))):
                found.append(capped)
            now = time.perf_counter()
            for worker in list(self._workers):
                if worker.tasks and now >= worker.due(self.grace):
                    queue = queues.setdefault(worker.lane, deque())
                    found.extend(self._receive(worker, queue, columns, strict))  # in time?
                    if worker.tasks and now >= worker.due(self.grace):
                        found.append([self._overrun(worker, queue, now)])
            for worker in self._workers:
                worker.look(now)
            # The time since the last look, followed at once when longer, by a quarter when
            # shorter (the caller's turns, a commit's among them, and the machine's other
            # programs set it): the work a worker gets in flight covers it.
            if last:
                since = now - last
                gap = since if since > gap else 0.75 * gap + 0.25 * since
            last = now
            self._dispatch(queues, more, gap)
            if more and filling:
                queued = sum(map(len, queues.values()))
                more = take(min(window, queued + step))
                filling = more and queued + step < window
            elif more:
                more = take()
            return found

        try:
            while more or any(queues.values()) or any(w.tasks for w in self._workers):
                # What every worker sent, read first; new batches sent next (`_dispatch`),
                # then what was read handed on: a worker that ran low gets its tasks before
                # the caller stores and tallies (which takes it milliseconds a look).
                pending = deque(look())
                looked = time.perf_counter()
                while pending:
                    yield pending.popleft()
                    # The caller's turn with a look's outcomes can outlast the work in flight
                    # (tens of ms with jobs 2, its process sharing two cores with the workers):
                    # between its steps, a look once `TICK` has passed and a worker runs out
                    # within half the work it would be given, or half the time it takes to
                    # fill its pipe with outcomes has passed (no look for nothing), while few
                    # steps wait (what waits stays bounded: memory flat).
                    now = time.perf_counter()
                    if (
                        len(pending) < PENDING
                        and now - looked >= TICK
                        and (
                            min((w.ahead(now) for w in self._workers), default=0.0)
                            < ahead_for(gap) / 2
                            or 2 * (now - looked)
                            >= min((w.fills() for w in self._workers), default=math.inf)
                        )
                    ):
                        pending.extend(look())
                        looked = time.perf_counter()
                # Sleep rather than block on the pipes: a worker writing to a pipe nobody waits
                # on is not switched out for the parent, which keeps small tasks cheap.
                now = time.perf_counter()
                deadline = min((w.due(self.grace) for w in self._workers if w.tasks), default=now)
                if not filling:
                    time.sleep(max(0.0, min(pause(self._workers, now), deadline - now)))
        finally:  # abandoned mid-run (an error, Ctrl-C, close()): in-flight answers are stale
            for worker in [w for w in self._workers if w.tasks]:
                worker.kill()
                self._workers.remove(worker)

    def _receive(
        self,
        worker: WorkerHandle,
        queue: deque[Task],
        columns: bool = False,
        strict: bool = True,
    ) -> Iterator[list[Outcome] | Batch]:
        """Yield the outcomes waiting in the worker's pipe, as one list (on EOF the worker
        died: then also its task's ERROR); with `columns`, a columnar message as its `Batch`
        (`strict`: `take_batch`'s), in order with the lists."""
        if not worker.tasks:
            return
        found: list[Outcome] = []
        made: list[list[Outcome] | Batch] = []  # (with `columns`: what came before `found`)
        try:
            for message in worker.messages():
                now = time.perf_counter()
                tasks = worker.tasks
                if isinstance(message, tuple):
                    if message and message[0] == KIND:  # a columnar message (`batch.py`)
                        # (a bad one: none taken)
                        batch = take_batch(tasks, message, columns and strict)
                        if columns and self._within_limit(batch):
                            if found:
                                made.append(found)
                                found = []
                            made.append(batch)
                        elif self.memory_limit is None:
                            found.extend(batch.outcomes())
                        else:
                            found.extend(self._within_memory(worker, o) for o in batch.outcomes())
                        worker.arm(now, self.grace)
                        continue
                    if message[0] == "load":  # ("load", task_id): a shape's load, untimed
                        worker.loading(message[1], now)
                    else:  # ("ready", task_id): backend loaded, clock starts
                        worker.ready(message[1], now, self.grace)
                    continue
                if self.memory_limit is None:  # outcomes, in task order, in one loop
                    take_outcomes(tasks, message, found)  # (a bad one leaves it in flight)
                else:
                    for wire in message:
                        if not tasks:
                            raise ProtocolError("an outcome when no task was in flight")
                        outcome = from_wire(tasks[0], wire)  # (a bad one leaves it in flight)
                        tasks.popleft()
                        found.append(self._within_memory(worker, outcome))
                worker.arm(now, self.grace)
        except (EOFError, OSError):
            if worker.tasks:
                found.append(self._died(worker, queue))
            yield from made
            if found:
                yield found
            return
        except ProtocolError as exc:
            if worker.tasks:
                found.append(self._died(worker, queue, str(exc)))
            else:  # a stray message after its last task: nothing to blame, a fresh one next
                self._drop(worker)
            yield from made
            if found:
                yield found
            return
        yield from made
        if found:
            yield found

    def _within_limit(self, batch: Batch) -> bool:
        """Whether every task of the batch peaked within the memory limit, if any (else its
        outcomes are read one by one, `_within_memory`)."""
        limit = self.memory_limit
        if limit is None:
            return True
        peaks = batch.values[WIDTH - 1 :: WIDTH]
        return None not in peaks and max(peaks) <= limit

    def _memory_error(
        self, task: Task, resided: int, wall_s: float, who: str = "worker"
    ) -> Outcome:
        limit = format_size(self.memory_limit or 0)
        message = f"memory limit: the {who} resided in {format_size(resided)}, over {limit}"
        return failed(task, Status.ERROR, message, wall_s)

    def _within_memory(self, worker: WorkerHandle, outcome: Outcome) -> Outcome:
        """The outcome, or an ERROR "memory limit" when its peak was over the limit (the
        worker is then replaced at the next `_cap_memory`). An `exec:` program's peak is its
        own process tree's; one its worker caught over the limit (and killed) stays as it is."""
        peak = outcome.peak_memory_bytes
        if self.memory_limit is None or peak is None or peak <= self.memory_limit:
            return outcome
        if outcome.status == Status.ERROR and outcome.message.startswith("memory limit: "):
            return outcome
        worker.over_memory = True
        who = "program" if outcome.task.backend.startswith("exec:") else "worker"
        error = self._memory_error(outcome.task, peak, outcome.wall_s, who)
        return error._replace(peak_memory_bytes=peak)

    def _cap_memory(self, queues: dict[str | None, deque[Task]]) -> Iterator[Outcome]:
        """Kill the workers over the memory limit: the task one is solving is an ERROR, the
        tasks behind it are queued again; a worker whose last task went over is replaced."""
        for worker in list(self._workers):
            resided = resident_bytes(worker.process.pid)
            over = resided is not None and resided > (self.memory_limit or 0)
            if not (over or worker.over_memory):
                continue
            queue = queues.setdefault(worker.lane, deque())
            if over and worker.tasks:
                task = self._culprit(worker)
                elapsed = time.perf_counter() - worker.started
                error = self._memory_error(task, resided or 0, elapsed)
                yield error._replace(peak_memory_bytes=resided)
            self._requeue(worker, queue)
            self._drop(worker)

    def _requeue(self, worker: WorkerHandle, queue: deque[Task]) -> None:
        queue.extendleft(reversed(worker.tasks))
        worker.tasks.clear()

    def _culprit(self, worker: WorkerHandle) -> Task:
        """The task a killed or dead worker was solving (by its shared marker, else the first in
        flight), taken out of its queue; the tasks before it had finished but their held
        outcomes died with the worker, so they stay in flight to be run again."""
        ids = [t.task_id for t in worker.tasks]
        k = ids.index(worker.running.value) if worker.running.value in ids else 0
        again = [worker.tasks.popleft() for _ in range(k)]
        task = worker.tasks.popleft()
        worker.tasks.extendleft(reversed(again))
        return task

    def _overrun(self, worker: WorkerHandle, queue: deque[Task], now: float) -> Outcome:
        task = self._culprit(worker)
        elapsed = now - worker.started
        if task.backend in worker.loaded:
            message = f"killed after {elapsed:.1f} s (timeout {task.timeout:g} s)"
            outcome = failed(task, Status.TIMEOUT, message, elapsed)
        else:
            message = (
                f"the backend did not load within {LOAD_TIMEOUT:g} s; worker killed ({LOAD_HINT})"
            )
            outcome = failed(task, Status.ERROR, message)
        self._requeue(worker, queue)
        self._drop(worker)
        return outcome

    def _died(self, worker: WorkerHandle, queue: deque[Task], sent: str = "") -> Outcome:
        """The task a dead worker was on, an ERROR saying how it ended; or, for a worker that
        `sent` what is not a message (`wire.ProtocolError`), what it sent: it is killed. The
        tasks behind it run again."""
        task = self._culprit(worker)
        if sent:
            message = f"its worker sent {sent}; worker killed"
        else:
            worker.process.join(5)
            message = f"worker died: {describe_exit(worker.process.exitcode)}"
        outcome = failed(task, Status.ERROR, message, time.perf_counter() - worker.started)
        self._requeue(worker, queue)
        self._drop(worker)
        return outcome
