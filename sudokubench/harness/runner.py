"""Running (puzzle, backend) tasks in worker processes, with hard timeouts.

The harness hands an `Executor` a stream of `Task`s and reads back one `Outcome` per task, in
completion order. `LocalPool` is the executor on this machine; `DaskExecutor` runs the same
tasks on a dask.distributed cluster, each dask worker using a `LocalPool` of its own.

How `LocalPool` works:

- `jobs` persistent worker processes (started with `forkserver` where the platform has it, so a
  restart after a kill costs milliseconds, else `spawn`; never `fork`, which is unsafe once the
  parent runs threads such as a progress bar). Each worker caches one backend instance per name.
- Tasks go to a worker in batches over that worker's own pipe (one pickle per batch keeps the
  cost per task low for backends that take a millisecond); each worker has up to two batches
  in flight so it never waits for the next. Batches shrink as the queue drains so the workers
  finish together. Outcomes come back as soon as they finish, those finishing within `HOLD`
  (4 ms) of each other in one message (a task that takes longer is sent on its own at once),
  so the caller can store each as it finishes. The parent looks at the pipes every few
  milliseconds instead of blocking on them (a worker that writes to a pipe nobody is waiting
  on is not switched out for the parent, which on a busy 2-core machine made each message cost
  ~0.7 ms), and reads all a pipe holds in one system call.
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
  or signal; the tasks queued behind it (and any finished ones it held) are requeued.
- Checking: the worker checks each answer with `verify.check_answer` (`is_solution` on every
  solution, the counts) right after the timed call, so checking runs side by side on `jobs`
  cores; an outcome says `checked` and carries the verdict and the problem found, if any.
- Timing: `wall_s` is `perf_counter` in the worker around `backend.solve` only; `encode_s` and
  `solve_s` are the backend's own split. A killed task's `wall_s` is the parent's measure from
  its start to the kill.
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

import contextlib
import math
import multiprocessing
import os
import pickle
import select
import signal
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from multiprocessing.connection import Connection
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from sudokubench.backend import SolveResult
from sudokubench.formats import parse_grid
from sudokubench.grid import Shape
from sudokubench.harness.verify import check_answer

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "LOAD_TIMEOUT",
    "DaskExecutor",
    "Executor",
    "LocalPool",
    "Outcome",
    "Task",
    "default_grace",
    "run_task",
]

#: Most tasks per batch sent to a worker (fewer when the queue is nearly empty).
DEFAULT_BATCH_SIZE = 128
#: A batch's pickle stays under about this many bytes (so a pipe never blocks the parent).
BATCH_BYTES = 32_000
#: Bytes a task takes in a batch besides its puzzle (a generous estimate).
TASK_BYTES = 200
#: What every worker imports; the fork server imports it once for all of them.
WORKER_MODULES = (
    "sudokubench.harness.runner",
    "sudokubench.formats",
    "sudokubench.solvers",
    "sudokubench.solvers.external",
)
#: Seconds a worker may hold finished outcomes to send them together (see `_worker_main`).
HOLD = 0.004
#: Most bytes the parent reads from a worker's pipe in one system call.
READ_BYTES = 1 << 16
_SIZE = struct.Struct("!i")  # the frame header of `multiprocessing.connection`
_BIG_SIZE = struct.Struct("!Q")  # after a size of -1, for messages of 2 GiB or more
#: Seconds the parent sleeps between looks at the workers' pipes.
TICK = 0.005
#: Seconds a worker may take to start and load a backend before it counts as stuck.
LOAD_TIMEOUT = 60.0


class Task(NamedTuple):
    """One backend run on one puzzle (a named tuple: the harness makes one per run and puzzle,
    and it travels to a worker as a plain tuple)."""

    task_id: int  # unique within a run and stable across --resume
    puzzle_id: str  # "file:line"
    puzzle: str  # the puzzle in line form (digits > 9 as letters); shape inferred
    box: str | None  # "RxC" when the shape must be forced, else None
    backend: str  # any name get_backend() resolves (registry, module:attr, exec:CMD)
    limit: int
    timeout: float  # seconds; the backend gets timeout=this, the worker dies at timeout + grace
    sample: int  # 0..repeat-1 for measured samples; negative for warm-up runs


class Outcome(NamedTuple):
    """What came back for one task: the backend's answer and, when `checked`, the harness's
    check of it (`verify.check_answer`, run in the worker right after the timed call)."""

    task: Task
    status: str  # Status.value: "solved" | "unsatisfiable" | "timeout" | "error"
    count: int
    exhaustive: bool
    solutions: tuple[str, ...]  # line strings: canonical when checked and sound, else as returned
    encode_s: float
    solve_s: float
    wall_s: float  # perf_counter in the worker around backend.solve(...)
    stats: Mapping[str, int | float] = MappingProxyType({})
    message: str = ""  # why, for timeout/error
    checked: bool = False  # whether `verdict` and `problem` below are the harness's check
    verdict: str = "?"  # the answer's verdict: "0", "=n", ">=n" or "?"
    problem: str | None = None  # what is wrong with the answer on its own; None when sound


class Executor(Protocol):
    """Runs tasks somewhere and streams their outcomes back in completion order."""

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield one Outcome per task, as each finishes (checked with `run_task`'s check, or
        unchecked, `checked=False`, for `compare` to check)."""
        ...

    def close(self) -> None:
        """Release the workers."""
        ...


def default_grace(timeout: float) -> float:
    """Seconds past its timeout a task may run before its worker is killed: 0.5 s + 10%."""
    return 0.5 + 0.1 * timeout


def failed(task: Task, status: str, message: str, wall_s: float = 0.0) -> Outcome:
    """An outcome with no answer (timeout or error): nothing to check, verdict `?`."""
    return Outcome(task, status, 0, False, (), 0.0, 0.0, wall_s, {}, message, True, "?", None)


# -- the worker side --------------------------------------------------------------------------


def run_task(backend: Any, task: Task) -> Outcome:
    """Run one task with an already resolved backend, in this process; never raises."""
    try:
        puzzle = parse_grid(task.puzzle, Shape.parse(task.box) if task.box else None)
    except ValueError as exc:
        return failed(task, "error", f"cannot read the puzzle: {exc}")
    # A backend whose own timeout costs a forked child per solve runs without one: this
    # worker is killed at the deadline anyway.
    timeout = None if getattr(backend, "forks_for_timeout", False) else task.timeout
    start = time.perf_counter()
    try:
        result = backend.solve(puzzle, limit=task.limit, timeout=timeout)
    except Exception as exc:  # a backend that raises is an ERROR result; the run goes on
        wall_s = time.perf_counter() - start
        return failed(task, "error", f"{type(exc).__name__}: {exc}", wall_s)
    wall_s = time.perf_counter() - start
    if not isinstance(result, SolveResult):
        return failed(task, "error", f"solve returned {type(result).__name__}, not a SolveResult")
    # The harness's check, outside the timed call: it is per-answer work, so it runs side by
    # side in the workers instead of one after another in the parent.
    status = result.status.value
    try:
        voice = check_answer(
            task.backend,
            puzzle,
            status=status,
            count=result.count,
            exhaustive=result.exhaustive,
            solutions=result.solutions,
            limit=task.limit,
        )
    except Exception as exc:  # a malformed result (e.g. a count that is not an int)
        return failed(task, "error", f"cannot check the result: {type(exc).__name__}: {exc}")
    return Outcome(
        task,
        status,
        result.count,
        result.exhaustive,
        voice.solutions if voice.sound else tuple(str(g) for g in result.solutions),
        result.encode_s,
        result.solve_s,
        wall_s,
        {k: v for k, v in result.stats.items() if isinstance(v, int | float)},
        result.message,
        True,
        str(voice.verdict),
        voice.problem,
    )


def _wire(outcome: Outcome) -> tuple:
    """The outcome as the worker sends it: a plain tuple, the task as its id (cheap to pickle)."""
    o = outcome
    fields = (o.status, o.count, o.exhaustive, o.solutions, o.encode_s, o.solve_s, o.wall_s)
    return (o.task.task_id, *fields, o.stats, o.message, o.checked, o.verdict, o.problem)


def _watch(lifeline: Connection) -> None:
    """Kill this worker as soon as the parent's end of the lifeline closes (the run died)."""
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv_bytes()
    os.kill(os.getpid(), signal.SIGKILL)


def _worker_main(conn: Connection, lifeline: Connection, running: Any = None) -> None:
    """Worker loop: receive batches, send ("ready", id) after loading a backend, then outcomes.

    Outcomes go back as lists: tasks run within `HOLD` seconds from the start of the first one
    not yet sent travel together (one message, one system call), and any wait for a new batch
    or a backend load sends what is held first. A task that takes `HOLD` or more is therefore
    sent as soon as it ends. `running` (shared memory) holds the id of the task being solved,
    so the parent blames the right one if this process is killed or dies holding answers.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from sudokubench.solvers import get_backend
    from sudokubench.solvers.external import die_with_parent

    # A kill -9 of the run must not leave a worker solving on: a thread waits for the end of
    # the lifeline, which only the run holds (the fork server stays up while workers live).
    threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    die_with_parent()

    backends: dict[str, Any] = {}
    held: list[tuple] = []  # finished, not yet sent
    since = 0.0  # when the first of them started
    while True:
        if held:
            conn.send(held)
            held = []
        if running is not None:
            running.value = -1  # idle: no task to blame
        try:
            batch = conn.recv()
        except EOFError:
            return
        if batch is None:
            return
        for fields in batch:
            task = Task(*fields)
            if running is not None:
                running.value = task.task_id
            backend = backends.get(task.backend)
            if backend is None:
                if held:
                    conn.send(held)
                    held = []
                try:
                    backend = get_backend(task.backend)
                except Exception as exc:
                    conn.send([_wire(failed(task, "error", f"cannot load the backend: {exc}"))])
                    continue
                if not backend.available():
                    reason = getattr(backend, "unavailable_reason", lambda: "")()
                    conn.send([_wire(failed(task, "error", f"backend not available: {reason}"))])
                    continue
                backends[task.backend] = backend
                conn.send(("ready", task.task_id))
            if not held:
                since = time.perf_counter()
            held.append(_wire(run_task(backend, task)))
            if time.perf_counter() - since >= HOLD:
                conn.send(held)
                held = []


# -- the parent side --------------------------------------------------------------------------


def describe_exit(exitcode: int | None) -> str:
    """`exit 3`, `signal 11 (SIGSEGV)`, or `unknown exit` for a dead worker."""
    if exitcode is None:
        return "unknown exit"
    if exitcode < 0:
        try:
            return f"signal {-exitcode} ({signal.Signals(-exitcode).name})"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit {exitcode}"


class _Worker:
    """A worker process as the parent sees it: its pipe, tasks in flight, current task's clock."""

    def __init__(self, ctx: Any, lifeline: Connection) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        # The id of the task the worker is solving, in shared memory (no message, no lock).
        self.running = ctx.RawValue("q", -1)
        self.process = ctx.Process(
            target=_worker_main, args=(child, lifeline, self.running), daemon=True
        )
        self.process.start()
        child.close()
        # One poll object per worker: `Connection.poll` builds a selector on every call.
        self._poller = select.poll() if hasattr(select, "poll") else None
        if self._poller is not None:
            self._poller.register(self.conn.fileno(), select.POLLIN)
        self._fd = self.conn.fileno()
        self._buffer = bytearray()  # bytes read from the pipe that do not yet make a message
        self.loaded: set[str] = set()  # backend names the worker has reported loaded
        self.tasks: deque[Task] = deque()  # in flight, in the order the worker runs them
        self.deadline = math.inf
        self.started = 0.0

    def readable(self) -> bool:
        """Whether a message (or the EOF of a dead worker) is waiting, without blocking."""
        if self._poller is None:
            return self.conn.poll()
        return bool(self._poller.poll(0))

    def messages(self) -> Iterator[tuple]:
        """The messages waiting in the pipe, without blocking; EOFError (or OSError) once the
        worker is gone and every message it sent before has been yielded.

        Where `poll` exists, whatever the pipe holds is read in one system call and cut into
        `Connection` frames here (a 4-byte big-endian size, or -1 and an 8-byte size, then the
        pickle), instead of three calls per message (poll, size, body): with fast tasks the
        messages come in bunches between two looks. Nothing else reads this end of the pipe.
        """
        if self._poller is None:
            while self.conn.poll():
                yield self.conn.recv()
            return
        buffer = self._buffer
        while self._poller.poll(0):
            chunk = os.read(self._fd, READ_BYTES)
            if not chunk:
                raise EOFError
            buffer += chunk
            ready, start, end = [], 0, len(buffer)
            while end - start >= 4:
                (size,) = _SIZE.unpack_from(buffer, start)
                head = 4
                if size == -1:
                    if end - start < 12:
                        break
                    (size,) = _BIG_SIZE.unpack_from(buffer, start + 4)
                    head = 12
                if end - start < head + size:
                    break
                ready.append(pickle.loads(memoryview(buffer)[start + head : start + head + size]))
                start += head + size
            del buffer[:start]
            yield from ready

    def send(self, batch: list[Task], grace: Callable[[float], float]) -> None:
        idle = not self.tasks
        self.tasks.extend(batch)
        # Plain tuples pickle smaller and faster than named ones (`Task(*fields)` in the worker).
        self.conn.send([tuple(t) for t in batch])
        if idle:
            self.arm(time.perf_counter(), grace)

    def arm(self, now: float, grace: Callable[[float], float]) -> None:
        """Start the clock of the task now at the head of the queue."""
        if not self.tasks:
            self.deadline = math.inf
            return
        task = self.tasks[0]
        self.started = now
        if task.backend in self.loaded:
            self.deadline = now + task.timeout + grace(task.timeout)
        else:
            self.deadline = now + LOAD_TIMEOUT

    def due(self, grace: Callable[[float], float]) -> float:
        """When to kill: the deadline of the task at the head of the queue, or sooner when the
        worker's marker shows it solving a later task (the ones before it done, their outcomes
        held) whose own timeout ends first; its clock is the head's, `HOLD` at most early."""
        if not self.tasks:
            return math.inf
        running = self.running.value
        tasks = self.tasks
        if running == tasks[0].task_id:
            return self.deadline
        # Tasks are planned in order and batches taken from the front of the queue, so the
        # running one is usually found straight away by its id (the parent looks every tick).
        k = running - tasks[0].task_id
        if 0 < k < len(tasks) and tasks[k].task_id == running:
            task = tasks[k]
        else:
            task = next((t for t in tasks if t.task_id == running), None)
            if task is None:
                return self.deadline
        if task.backend not in self.loaded:
            return self.deadline
        return min(self.deadline, self.started + task.timeout + grace(task.timeout))

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()

    def stop(self, *, wait: bool = True) -> None:
        """Ask the worker to exit; with `wait`, give it 2 s and then kill it."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
        if wait:
            self.process.join(2)
            self.kill()


def _modules(backends: Iterable[str]) -> list[str]:
    """The modules of the registered backends among `backends`."""
    from sudokubench.solvers import REGISTRY

    entries = (REGISTRY.get(name.partition(":")[0]) for name in backends)
    return sorted({e.target.partition(":")[0] for e in entries if e is not None})


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
    ) -> None:
        """A pool; its fork server (if any) starts now, its workers on the first `run`.

        `grace`: seconds past a task's timeout before the kill (default `default_grace`).
        `preload`: backend names whose modules the fork server imports once, so a worker
        restarted after a kill does not import them again (e.g. OR-Tools).
        """
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.jobs = jobs
        self.batch_size = batch_size
        self.grace = default_grace if grace is None else (lambda timeout: grace)
        if start_method is None:
            methods = multiprocessing.get_all_start_methods()
            start_method = "forkserver" if "forkserver" in methods else "spawn"
        self._ctx = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            modules = [*WORKER_MODULES, *_modules(preload)]
            self._ctx.set_forkserver_preload(modules)
            # Boot it now, in the background, while the caller reads puzzles and opens storage.
            from multiprocessing import forkserver

            forkserver.ensure_running()
        # Workers get the reading end; this process alone holds the writing end, so it closes
        # when this process ends in any way, and the workers then kill themselves.
        self._lifeline, self._lifeline_end = self._ctx.Pipe(duplex=False)
        self._workers: list[_Worker] = []
        #: Workers started so far, restarts included (for tests and diagnostics).
        self.started_workers = 0

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (a clean exit, then SIGKILL for any that hangs)."""
        for worker in self._workers:  # all are told first, so they exit side by side
            worker.stop(wait=False)
        for worker in self._workers:
            worker.stop()
        self._workers.clear()

    def _new_worker(self) -> _Worker:
        self.started_workers += 1
        return _Worker(self._ctx, self._lifeline)

    def _replace(self, worker: _Worker) -> _Worker:
        """Kill a worker and put a fresh one in its slot; return the new one."""
        worker.kill()
        fresh = self._new_worker()
        self._workers[self._workers.index(worker)] = fresh
        return fresh

    def _dispatch(self, queue: deque[Task]) -> None:
        """Top up every worker to at most two batches in flight; batches shrink near the end."""
        in_flight = sum(len(w.tasks) for w in self._workers)
        size = max(1, min(self.batch_size, math.ceil((len(queue) + in_flight) / (2 * self.jobs))))
        for worker in list(self._workers):
            if not queue or len(worker.tasks) >= size:
                continue
            batch = [queue.popleft()]
            room = BATCH_BYTES - len(batch[0].puzzle)
            while queue and len(batch) < size and room > len(queue[0].puzzle) + TASK_BYTES:
                room -= len(queue[0].puzzle) + TASK_BYTES
                batch.append(queue.popleft())
            try:
                worker.send(batch, self.grace)
            except OSError:  # the worker is dead: take the batch back
                for _ in batch:
                    worker.tasks.pop()
                queue.extendleft(reversed(batch))
                if not worker.tasks:  # it died idle: no task to blame, a fresh one takes over
                    self._replace(worker)
                # else `_receive` reads its EOF and reports the task it was running

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield one Outcome per task in completion order; see the module docstring."""
        queue = deque(tasks)
        if not queue:
            return
        while len(self._workers) < min(self.jobs, len(queue)):
            self._workers.append(self._new_worker())
        try:
            while queue or any(w.tasks for w in self._workers):
                self._dispatch(queue)
                for worker in list(self._workers):
                    yield from self._receive(worker, queue)
                now = time.perf_counter()
                for worker in list(self._workers):
                    if worker.tasks and now >= worker.due(self.grace):
                        yield from self._receive(worker, queue)  # a last answer in time?
                        if worker.tasks and now >= worker.due(self.grace):
                            yield self._overrun(worker, queue, now)
                # Sleep rather than block on the pipes: a worker writing to a pipe nobody waits
                # on is not switched out for the parent, which keeps small tasks cheap.
                deadline = min((w.due(self.grace) for w in self._workers if w.tasks), default=now)
                time.sleep(max(0.0, min(TICK, deadline - time.perf_counter())))
        finally:  # abandoned mid-run (an error, Ctrl-C, close()): in-flight answers are stale
            for worker in [w for w in self._workers if w.tasks]:
                worker.kill()
                self._workers.remove(worker)

    def _receive(self, worker: _Worker, queue: deque[Task]) -> Iterator[Outcome]:
        """Yield the outcomes waiting in the worker's pipe; on EOF the worker died."""
        if not worker.tasks:
            return
        try:
            for message in worker.messages():
                now = time.perf_counter()
                if isinstance(message, tuple):  # ("ready", task_id): backend loaded, clock starts
                    worker.loaded.add(worker.tasks[0].backend)
                    worker.arm(now, self.grace)
                    continue
                for wire in message:  # outcomes, in task order
                    task = worker.tasks.popleft()
                    if wire[0] != task.task_id:  # pragma: no cover - a protocol bug
                        raise RuntimeError(f"worker answered task {wire[0]}, expected {task}")
                    yield Outcome(task, *wire[1:])
                worker.arm(now, self.grace)
        except (EOFError, OSError):
            if worker.tasks:
                yield self._died(worker, queue)

    def _requeue(self, worker: _Worker, queue: deque[Task]) -> None:
        queue.extendleft(reversed(worker.tasks))
        worker.tasks.clear()

    def _culprit(self, worker: _Worker) -> Task:
        """The task a killed or dead worker was solving (by its shared marker, else the first in
        flight), taken out of its queue; the tasks before it had finished but their held
        outcomes died with the worker, so they stay in flight to be run again."""
        ids = [t.task_id for t in worker.tasks]
        k = ids.index(worker.running.value) if worker.running.value in ids else 0
        again = [worker.tasks.popleft() for _ in range(k)]
        task = worker.tasks.popleft()
        worker.tasks.extendleft(reversed(again))
        return task

    def _overrun(self, worker: _Worker, queue: deque[Task], now: float) -> Outcome:
        task = self._culprit(worker)
        elapsed = now - worker.started
        if task.backend in worker.loaded:
            message = f"killed after {elapsed:.1f} s (timeout {task.timeout:g} s)"
            outcome = failed(task, "timeout", message, elapsed)
        else:
            message = f"the backend did not load within {LOAD_TIMEOUT:g} s; worker killed"
            outcome = failed(task, "error", message)
        self._requeue(worker, queue)
        self._replace(worker)
        return outcome

    def _died(self, worker: _Worker, queue: deque[Task]) -> Outcome:
        task = self._culprit(worker)
        worker.process.join(5)
        elapsed = time.perf_counter() - worker.started
        how = describe_exit(worker.process.exitcode)
        outcome = failed(task, "error", f"worker died: {how}", elapsed)
        self._requeue(worker, queue)
        self._replace(worker)
        return outcome


class DaskExecutor:
    """An `Executor` on a dask.distributed cluster (the optional extra `dask`).

    Tasks go to the cluster in small batches (`client.map`); on each dask worker a batch runs
    through that worker's own `LocalPool` of one process, so hard timeouts, killed workers and
    crashes behave exactly as with `LocalPool` here. Outcomes stream back a batch at a time, in
    completion order. Without a `client`, a `LocalCluster` of `jobs` single-threaded worker
    processes is started (and closed by `close`). A cluster of your own must run its workers as
    non-daemon processes (dask config `distributed.worker.daemon: False`), since each starts
    a process of its own.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        jobs: int = 1,
        batch_size: int = 4,
        grace: float | None = None,
    ) -> None:
        """Use `client`, or start a local cluster of `jobs` worker processes."""
        import dask
        from dask.distributed import Client, LocalCluster

        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.grace = grace
        self._cluster = None
        if client is None:
            with dask.config.set({"distributed.worker.daemon": False}):
                self._cluster = LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
                )
            client = Client(self._cluster)
        self.client = client

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield every task's Outcome, a batch at a time, in completion order."""
        from dask.distributed import as_completed

        todo = list(tasks)
        batches = [todo[k : k + self.batch_size] for k in range(0, len(todo), self.batch_size)]
        futures = self.client.map(_run_on_dask_worker, batches, grace=self.grace, pure=False)
        try:
            for future in as_completed(futures):
                yield from future.result()
        finally:  # an abandoned run leaves nothing queued on the cluster
            self.client.cancel(futures)

    def close(self) -> None:
        """Close the client and the cluster this executor started (not one it was given)."""
        if self._cluster is not None:
            self.client.close()
            self._cluster.close()
            self._cluster = None


_dask_pools = threading.local()


def _run_on_dask_worker(batch: list[Task], grace: float | None) -> list[Outcome]:
    """On a dask worker: run a batch through this thread's own one-process LocalPool."""
    pool = getattr(_dask_pools, "pool", None)
    if pool is None:
        pool = _dask_pools.pool = LocalPool(jobs=1, grace=grace)
    return list(pool.run(batch))
