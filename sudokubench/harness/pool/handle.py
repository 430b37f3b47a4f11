"""`WorkerHandle`: one worker process as `LocalPool` (`pool/local.py`) sees it from the parent.

A handle starts its worker (`pool/worker.py`'s `worker_main`, through `boot.start_worker`,
with the caller's `__main__` hidden: `main_hidden`), owns the parent's end of the worker's
pipe, and keeps the tasks in flight in the order the worker runs them and the clock of the one
at their head: its deadline is the task's timeout plus grace once the worker reported the
backend loaded, `LOAD_TIMEOUT` before and while the worker loads what the backend needs for a
new shape (`loading`); `due` also looks at the worker's shared marker, so a later task with a
shorter timeout is not overlooked behind held outcomes; and its pace (`look`, from that
marker at each of the parent's looks; `ahead`: the seconds of work in flight, which `pause`
turns into the parent's sleep and `wants` into batches beyond two, within the bytes its
connection holds: `send_room`). `describe_exit` words how a dead worker ended. Which tasks a
handle gets, and when it is killed, is `LocalPool`'s business.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import pickle
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
import types
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from sudokubench.confine import cache_folder
from sudokubench.harness.pool.boot import LOST_PIPE, start_worker
from sudokubench.harness.pool.guard import load_timeout
from sudokubench.harness.pool.task import Task
from sudokubench.harness.pool.wire import PlainReader, ProtocolError, send
from sudokubench.processes import kill_tree

__all__ = [
    "AHEAD",
    "LOAD_TIMEOUT",
    "LONG_TICK",
    "MOST_AHEAD",
    "PIPE_BYTES",
    "SEND_BUFFER",
    "TICK",
    "WRITE_BYTES",
    "WorkerHandle",
    "ahead_for",
    "describe_exit",
    "main_hidden",
    "pause",
    "send_room",
]

#: Seconds a worker may take to start and load a backend before it counts as stuck
#: (`SUDOKUBENCH_LOAD_TIMEOUT`, default 60, read when sudokubench is imported).
LOAD_TIMEOUT = load_timeout()

#: Seconds the parent sleeps between looks at the workers' pipes: `TICK`, or up to `LONG_TICK`
#: while every worker has twice that much work in flight at its pace (a wake-up costs the
#: parent ~70 us of CPU time on a 2-core VM, and a worker its caches when they share cores).
TICK = 0.005
LONG_TICK = 0.025
#: Seconds of work in flight under which a worker gets a batch beyond two (`WorkerHandle.wants`):
#: two of the parent's longest sleeps.
AHEAD = 2 * LONG_TICK
#: Most seconds of work in flight `ahead_for` asks for, however far apart the looks.
MOST_AHEAD = 0.2
#: Most bytes of batches in flight to a worker, the next included (`WorkerHandle.wants`), where
#: the connection's buffer cannot be read: within a pipe's 64 KiB, what Linux gives one.
PIPE_BYTES = 64_000
#: The send buffer asked for a worker's connection (`SO_SNDBUF`; Linux doubles what it is asked
#: and reports that): room for a fast worker's `AHEAD` of batches, about 0.5 MB of the kernel's
#: memory a worker at most.
SEND_BUFFER = 256 * 1024
#: The send buffer asked for the worker's end of its connection, which its outcomes fill while
#: the parent sleeps or stores (Linux doubles it, within `net.core.wmem_max`): a worker that
#: fills it blocks until the parent reads. A `native` task's row is about 300 bytes of a
#: message, so the usual 208 KiB held about 10 ms of 17clue's tasks, less than the parent's
#: longest sleep (`LONG_TICK`); asked 1 MiB, about 0.1 s where the system allows it. The
#: parent also looks before a worker's buffer would fill (`WorkerHandle.fills`, `pause`).
OUTPUT_BUFFER = 1024 * 1024
#: Bytes a batch is counted for besides its pickle (`WorkerHandle.send`): a write's buffer in
#: the kernel (Linux: up to twice its bytes rounded up, and ~0.6 KB more) against half the
#: buffer, so that many small batches (a queue's last tasks) fit as surely as large ones.
WRITE_BYTES = 1024


def send_room(conn: Any, asked: int = SEND_BUFFER) -> int:
    """Bytes of batches (`WRITE_BYTES` a batch included) that may be in flight on `conn`
    without the parent's write blocking. On Linux, multiprocessing's duplex `Pipe` is a
    socket pair, whose writes are charged to the writer's send buffer until the reader reads
    them (the worker may not have read a byte): half the buffer the kernel reports, asked up
    to `asked` first. Elsewhere, or where the buffer cannot be read, `PIPE_BYTES`. (The
    worker's end: `asked` `OUTPUT_BUFFER`, the bytes of outcomes it can send unread.)"""
    if sys.platform != "linux":
        return PIPE_BYTES  # (other kernels count a socket's buffer their own way)
    try:
        with socket.socket(fileno=os.dup(conn.fileno())) as sock:
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) < 2 * asked:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, asked)
            size = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    except (OSError, AttributeError, ValueError):
        return PIPE_BYTES
    return size // 2


def ahead_for(gap: float) -> float:
    """Seconds of work in flight a worker gets batches up to (`WorkerHandle.wants`) when the
    parent's looks are `gap` seconds apart (lately, at the longest: `LocalPool._run`): twice
    that, at least `AHEAD`, at most `MOST_AHEAD`; the bytes' rule bounds it too."""
    return min(MOST_AHEAD, max(AHEAD, 2 * gap))


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


def pause(workers: Iterable[WorkerHandle], now: float | None = None) -> float:
    """Seconds until the parent's next look at the pipes: half the time until the first worker
    runs out of work at its pace (`WorkerHandle.ahead`), within `TICK`..`LONG_TICK`, and no
    more than half the time until one fills its connection with outcomes the parent has not
    read (`WorkerHandle.fills`; `TICK` at least): a worker blocked on a full pipe waits, and
    looks slower than it is (its pace)."""
    workers = list(workers)
    ahead = min((w.ahead(now) for w in workers), default=0.0)
    fills = min((w.fills() for w in workers), default=math.inf)
    return min(LONG_TICK, max(TICK, ahead / 2), max(TICK, fills / 2))


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
        #: Bytes of outcomes the worker can send that the parent has not read (`fills`).
        self.output_room = send_room(child, OUTPUT_BUFFER)
        # The id of the task the worker is solving, in shared memory (no message, no lock).
        self.running = ctx.RawValue("q", -1)
        self.warm_up = warm_up
        # A plug-in's worker writes files only in a folder of its own (`confine.py`, removed
        # with the worker) and sends JSON lines, read without blocking (`wire.PlainReader`).
        plain = lane is not None
        self.scratch = tempfile.mkdtemp(prefix="sudokubench-plugin-") if plain else None
        folders = (self.scratch, cache_folder(lane)) if lane is not None else None
        self.process = ctx.Process(
            target=start_worker,
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
        #: Seconds per task lately (the worker's progress through its tasks between the
        #: parent's looks, `look`), 0.0 until known: how long the tasks in flight will keep
        #: the worker busy (`ahead`).
        self.pace = 0.0
        # At the last look: when, the tasks not yet done (the running one included), and
        # (when, tasks done) at the look that began the current measure of the pace.
        self._looked = 0.0
        self._left = 0
        self._mark: tuple[float, int] | None = None
        # The batches in flight (`wants`): each one's end, counted in tasks sent since the
        # worker was last idle (`_count`), and its bytes; `_bytes` their sum.
        self._sent: deque[tuple[int, int]] = deque()
        self._count = 0
        self._bytes = 0
        self._since = 0.0  # when the worker was last sent tasks while idle
        # Tasks ever sent, and the bytes of the messages read (`fills`: bytes a task).
        self._all = 0
        self._read = 0
        #: Most bytes of batches in flight to the worker (`send_room`, `wants`).
        self.room = send_room(self.conn)

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
        conn = self.conn
        while self.readable():
            data = conn.recv_bytes()  # (what `receive` reads, its bytes counted: `fills`)
            self._read += len(data)
            yield pickle.loads(data)

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
        self._mark = None  # (the load is not part of the pace)
        self.arm(now, grace)

    def loading(self, task_id: object, now: float) -> None:
        """The worker loads what its backend needs for the shape of the task at the head
        before that task's clock starts (`worker._load_shape`): until its ("ready", task_id),
        the deadline is the load limit, and a worker killed at it failed to load (as on a
        backend's first load), not to solve in time."""
        tasks = self.tasks
        if not tasks or tasks[0].task_id != task_id:
            raise ProtocolError(f"task {task_id!r} announced loading when it was not due")
        self.loaded.discard(tasks[0].backend)
        self._mark = None  # (the load is not part of the pace)
        self.started = now
        self.deadline = now + LOAD_TIMEOUT

    def send(self, batch: list[Task], grace: Callable[[float], float]) -> None:
        idle = not self.tasks
        if idle:  # (what was sent before is all done, or taken back)
            self._sent.clear()
            self._bytes = self._count = self._left = 0
            self._mark = None
        self.tasks.extend(batch)
        # Plain tuples pickle smaller and faster than named ones (`Task(*fields)` in the worker).
        payload = tasks_pickle(list(map(tuple, batch)))
        self.conn.send_bytes(payload)
        self._count += len(batch)
        self._all += len(batch)
        cost = len(payload) + WRITE_BYTES
        self._bytes += cost
        self._sent.append((self._count, cost))
        self._left += len(batch)
        if idle:
            self._since = time.perf_counter()
            self.arm(self._since, grace)

    def look(self, now: float) -> None:
        """Note where the worker is at the parent's look at `now` (after its outcomes were
        read): which task it runs (its shared marker), so how many are left, and its pace:
        the tasks it finished since an earlier look over the time between (only while it
        ran a task at both: a worker never runs dry between two looks while it runs one
        at the second, since only a look sends it tasks), followed at once when it is
        quicker and by a quarter when it is slower."""
        tasks = self.tasks
        self._looked = now
        running = self.running.value
        k = running - tasks[0].task_id if tasks and running >= 0 else -1
        if not 0 <= k < len(tasks) or tasks[k].task_id != running:
            # (past the first batch: its outcomes sent since they were read; or between
            # tasks, idle, loading)
            k = next((i for i, t in enumerate(tasks) if t.task_id == running), -1)
            if k < 0:
                self._left = len(tasks)
                self._mark = None
                if not tasks and self._count:
                    # It ran dry: all it was sent since it was last idle took at most the time
                    # since, which bounds its pace (else a pace once too slow would stay so:
                    # sleeps too long for it ever to run a task at two looks in a row).
                    bound = (now - self._since) / self._count
                    if not self.pace or bound < self.pace:
                        self.pace = bound
                return
        self._left = len(tasks) - k
        done = self._count - self._left
        mark = self._mark
        if mark is None:
            self._mark = (now, done)
        elif done > mark[1]:
            # Quicker at once, slower by a quarter a look: a worker that other programs
            # slowed down may get its core back at any moment, and then runs out sooner.
            pace = (now - mark[0]) / (done - mark[1])
            old = self.pace
            self.pace = pace if not old or pace < old else 0.75 * old + 0.25 * pace
            self._mark = (now, done)

    def ahead(self, now: float | None = None) -> float:
        """Seconds of work the worker had in flight at the parent's last look at its pace, less
        the time since then when `now` is given (0.0 while the pace is unknown)."""
        if now is None:
            return self.pace * self._left
        return self.pace * self._left - (now - self._looked)

    def fills(self) -> float:
        """Seconds the worker takes to fill its connection with outcomes at its pace, from
        the bytes a task's outcome took in the messages read so far (a plug-in's lane: its
        lines, `PlainReader.read`; `output_room` of them fit); infinite while either is
        unknown."""
        read = self._all - len(self.tasks)
        got = self._read if self._reader is None else self._reader.read
        if not self.pace or read <= 0 or not got:
            return math.inf
        return self.output_room * read / got * self.pace

    def wants(self, size: int, most: int, ahead: float = AHEAD) -> bool:
        """Whether the worker gets another batch of up to `size` tasks and `most` bytes: while
        it has less than one batch's tasks in flight, and more while those in flight last less
        than `ahead` seconds (`AHEAD`, or more when the parent's looks are further apart:
        `ahead_for`) at its pace (a fast backend's, over before the parent's next look
        or two); either only while the bytes of the batches in flight and the next stay within
        its connection's `room`, so that the worker's pipe never fills (a parent blocked
        writing to it would not read the pipe the worker writes to). An idle worker always
        gets one."""
        flying = len(self.tasks)
        if not flying:
            return True
        if flying >= size and (not self.pace or self.ahead() >= ahead):
            return False
        sent, done = self._sent, self._count - flying  # (tasks leave in order)
        while sent and sent[0][0] <= done:
            self._bytes -= sent.popleft()[1]
        return self._bytes + most <= self.room

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
