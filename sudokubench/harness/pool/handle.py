"""`WorkerHandle`: one worker process as `LocalPool` (`pool/local.py`) sees it from the parent.

A handle starts its worker (`pool/worker.py`'s `worker_main`, with the caller's `__main__`
hidden: `main_hidden`), owns the parent's end of the worker's pipe, and keeps the tasks in
flight in the order the worker runs them and the clock of the one at their head: its deadline
is the task's timeout plus grace once the worker reported the backend loaded, `LOAD_TIMEOUT`
before (`due` also looks at the worker's shared marker, so a later task with a shorter timeout
is not overlooked behind held outcomes), and its pace (`ahead`: the seconds of work in flight,
which `pause` turns into the parent's sleep). `describe_exit` words how a dead worker ended.
Which tasks a handle gets, and when it is killed, is `LocalPool`'s business.
"""

from __future__ import annotations

import contextlib
import io
import math
import pickle
import select
import shutil
import signal
import sys
import tempfile
import time
import types
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from sudokubench.confine import cache_folder
from sudokubench.harness.pool.guard import load_timeout
from sudokubench.harness.pool.task import Task
from sudokubench.harness.pool.wire import PlainReader, ProtocolError, receive, send
from sudokubench.harness.pool.worker import LOST_PIPE, worker_main
from sudokubench.processes import kill_tree

__all__ = [
    "LOAD_TIMEOUT",
    "LONG_TICK",
    "TICK",
    "WorkerHandle",
    "describe_exit",
    "main_hidden",
    "pause",
]

#: Seconds a worker may take to start and load a backend before it counts as stuck
#: (`SUDOKUBENCH_LOAD_TIMEOUT`, default 60, read when sudokubench is imported).
LOAD_TIMEOUT = load_timeout()

#: Seconds the parent sleeps between looks at the workers' pipes: `TICK`, or up to `LONG_TICK`
#: while every worker has twice that much work in flight at its pace (a wake-up costs the
#: parent ~70 us of CPU time on a 2-core VM, and a worker its caches when they share cores).
TICK = 0.005
LONG_TICK = 0.025


def describe_exit(exitcode: int | None) -> str:
    """`exit 3`, `signal 11 (SIGSEGV)`, or `unknown exit` for a dead worker."""
    if exitcode is None:
        return "unknown exit"
    if exitcode < 0:
        try:
            return f"signal {-exitcode} ({signal.Signals(-exitcode).name})"
        except ValueError:
            return f"signal {-exitcode}"
    if exitcode == LOST_PIPE:
        return f"exit {exitcode} (it lost its pipe to the harness)"
    return f"exit {exitcode}"


def pause(workers: Iterable[WorkerHandle]) -> float:
    """Seconds until the parent's next look at the pipes: half the work in flight of the
    worker with the least (`WorkerHandle.ahead`), within `TICK`..`LONG_TICK`."""
    ahead = min((w.ahead() for w in workers), default=0.0)
    return min(LONG_TICK, max(TICK, ahead / 2))


def tasks_pickle(tasks: list[tuple[Any, ...]]) -> memoryview:
    """A batch of tasks' tuples pickled as `Connection.send` would, for the worker's `recv`
    (which unpickles whatever it is sent), in less time: no `ForkingPickler` made a message
    (its dispatch table copied), and no memo (`Pickler.fast`: a str met twice, the backend's
    name, is written twice instead of remembered; tuples of str, int, float and None hold
    no cycle, and the worker needs no object shared)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(tasks)
    return buffer.getbuffer()


@contextlib.contextmanager
def main_hidden() -> Iterator[None]:
    """Show multiprocessing a `__main__` with no file and no spec while a worker starts, so
    the worker does not import (run) the caller's script or module; restored at once."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main


class WorkerHandle:
    """A worker process as the parent sees it: its pipe, tasks in flight, current task's clock."""

    def __init__(
        self,
        ctx: Any,
        lifeline: Connection,
        warm_up: bool = True,
        lane: str | None = None,
        memory_limit: int | None = None,
    ) -> None:
        #: The backend whose tasks alone this worker runs (a plug-in's), None for sudokubench's.
        self.lane = lane
        #: Set when another lane waits for this worker's slot: it gets no new batch.
        self.draining = False
        #: Set when a task's peak went over the memory limit: the worker is replaced.
        self.over_memory = False
        self.conn, child = ctx.Pipe(duplex=True)
        # The id of the task the worker is solving, in shared memory (no message, no lock).
        self.running = ctx.RawValue("q", -1)
        self.warm_up = warm_up
        # A plug-in's worker writes files only in a folder of its own (`confine.py`, removed
        # with the worker) and sends JSON lines, read without blocking (`wire.PlainReader`).
        plain = lane is not None
        self.scratch = tempfile.mkdtemp(prefix="sudokubench-plugin-") if plain else None
        folders = (self.scratch, cache_folder(lane)) if lane is not None else None
        self.process = ctx.Process(
            target=worker_main,
            args=(child, lifeline, self.running, warm_up, folders, memory_limit),
            daemon=True,
        )
        with main_hidden():
            self.process.start()
        child.close()
        # One poll object per worker: `Connection.poll` builds a selector on every call.
        self._poller = select.poll() if hasattr(select, "poll") else None
        if self._poller is not None:
            self._poller.register(self.conn.fileno(), select.POLLIN)
        self.loaded: set[str] = set()  # backend names the worker has reported loaded
        self.tasks: deque[Task] = deque()  # in flight, in the order the worker runs them
        self.deadline = math.inf
        self.started = 0.0
        self._reader = PlainReader(self.conn.fileno()) if plain else None
        self._readies = (-1, 0)  # the task last announced ready, and how many times
        #: Seconds per task lately (wall time between outcome messages over their tasks),
        #: 0.0 until known: how long the tasks in flight will keep the worker busy (`ahead`).
        self.pace = 0.0
        self._heard = 0.0  # when the last outcomes came, 0.0 while the worker was idle

    def readable(self) -> bool:
        """Whether a message (or the EOF of a dead worker) is waiting, without blocking."""
        if self._poller is None:
            return self.conn.poll()
        return bool(self._poller.poll(0))

    def messages(self) -> Iterator[Any]:
        """The messages waiting in the pipe, without blocking; EOFError (or OSError) once the
        worker is gone and every message it sent before has been yielded; `ProtocolError`
        for what a plug-in's worker sent that is not a message."""
        if self._reader is not None:
            yield from self._reader.messages(self.readable)
            return
        while self.readable():
            yield receive(self.conn)

    def ready(self, task_id: object, now: float, grace: Callable[[float], float]) -> None:
        """The worker loaded the backend of the task at the head (and, with warm-up, ran it
        once more untimed): its clock starts now. The parent's clock is its own: a task is
        announced at most once, twice with warm-up, else `ProtocolError`."""
        head = self.tasks[0].task_id
        if task_id != head:
            raise ProtocolError(f"task {task_id!r} announced ready when task {head} was due")
        seen = self._readies[1] + 1 if self._readies[0] == head else 1
        if seen > 1 + self.warm_up:
            raise ProtocolError(f"task {head} announced ready {seen} times")
        self._readies = (head, seen)
        self.loaded.add(self.tasks[0].backend)
        self.arm(now, grace)

    def send(self, batch: list[Task], grace: Callable[[float], float]) -> None:
        idle = not self.tasks
        self.tasks.extend(batch)
        # Plain tuples pickle smaller and faster than named ones (`Task(*fields)` in the worker).
        self.conn.send_bytes(tasks_pickle(list(map(tuple, batch))))
        if idle:
            now = time.perf_counter()
            self._heard = now  # its pace counts from here
            self.arm(now, grace)

    def heard(self, now: float, outcomes: int) -> None:
        """Note that the parent's look at `now` found `outcomes` outcomes, to follow the
        worker's pace: the time since the previous look over them, averaged over the last few
        looks (a look counts only when the worker had tasks since the previous one)."""
        if self._heard and outcomes:
            pace = (now - self._heard) / outcomes
            self.pace = pace if not self.pace else 0.75 * self.pace + 0.25 * pace
        self._heard = now if self.tasks else 0.0

    def ahead(self) -> float:
        """Seconds of work the worker has in flight at its pace (0.0 while unknown)."""
        return self.pace * len(self.tasks)

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
        """SIGKILL the worker, and first what its programs and plug-ins started: the worker
        reaps its orphans, so detached descendants are still in its tree until it dies."""
        if self.process.is_alive():
            kill_tree(self.process.pid)
            self.process.kill()
        self.process.join(5)
        self.conn.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def stop(self, *, wait: bool = True) -> None:
        """Ask the worker to exit; with `wait`, give it 2 s and then kill it."""
        with contextlib.suppress(OSError):
            send(self.conn, None)
        if wait:
            self.process.join(2)
            self.kill()
