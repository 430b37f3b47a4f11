"""The worker side of `LocalPool`: the loop each worker process runs, and `run_task`, which
runs and checks one task in this process (also what a dask worker's pool runs): `solve`, the
timed call, then `finish`, the check and the outcome to send.

`HOLD` was 4 ms, and each task was checked right after its call: with 20 ms a worker sends
about five times fewer messages (about 30 outcomes each on a 17clue puzzle of 0.6 ms), and
with the held tasks checked together its CPU outside the timed calls went from 86-99 us a task
to 60-76 (whole `compare --jobs 1` runs of 20,000 puzzles); `python benchmarks/pool.py
--paired`: a worker's CPU over the direct loop's 1.05-1.06, against 1.20-1.25 before.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import tempfile
import threading
import time
from array import array
from itertools import repeat
from multiprocessing.connection import Connection
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from sudokubench.backend import SolveResult, Status, Timed, _error, stamp, timed_call
from sudokubench.confine import confine_writes
from sudokubench.formats import parse_grid
from sudokubench.grid import Grid, Shape
from sudokubench.harness.noise import CpuWait
from sudokubench.harness.pool.batch import lane_columns, solved_columns, to_columns
from sudokubench.harness.pool.boot import LOST_PIPE
from sudokubench.harness.pool.guard import describe_exception, plain_text, sanitize, trusted
from sudokubench.harness.pool.memory import PeakMemory
from sudokubench.harness.pool.task import CPU_KEY, WAIT_KEY, Outcome, Task, failed
from sudokubench.harness.pool.wire import PlainEnd, receive, to_wire
from sudokubench.harness.pool.wire import send as _send
from sudokubench.harness.verify import check_result
from sudokubench.notation import _LINE_DIGITS, plain_line_bytes
from sudokubench.processes import become_subreaper, die_with_parent, kill_children

try:
    import resource as _resource
except ImportError:  # pragma: no cover - not a Unix: `PeakMemory` reads nothing there
    _resource = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from sudokubench.solvers.program import ExecBackend

__all__ = ["CPU_KEY", "HOLD", "WAIT_KEY", "run_task", "worker_main"]

#: Seconds a worker may hold finished outcomes to send them together (see `worker_main`).
HOLD = 0.02


def send(conn: Connection | PlainEnd, message: Any) -> None:
    """Send to the parent; exit at once (no traceback) when the pipe is gone: the parent
    charges the task that was running to its backend."""
    try:
        _send(conn, message)
    except (OSError, ValueError):
        os._exit(LOST_PIPE)


def run_task(backend: Any, task: Task) -> Outcome:
    """Run one task with an already resolved backend, in this process; never raises. The
    outcome is `guard.sanitize`d: plain values a plug-in cannot make unpicklable or unstorable."""
    return finish(solve(backend, task))


#: `tuple.__new__`: a `Solved` or an `Outcome` from all its fields without the named tuple's
#: `__new__` (a Python function that fills in defaults: a few tenths of a microsecond a task).
_new_tuple = tuple.__new__


class Solved(NamedTuple):
    """A task's timed call done, its answer not yet checked (`solve`, then `finish`)."""

    task: Task
    puzzle: Any  # the parsed Grid; None when the call failed (`failure` says how)
    timed: Timed | None  # the answer and the timing rule's clocks (`backend.timed_call`)
    failure: Outcome | None = None
    peak_memory_bytes: int | None = None  # the worker's peak resident set during the call
    wait_s: float | None = None  # the seconds it waited for a CPU during the call


#: This process's `PeakMemory` and `CpuWait`: made in the worker itself, and forgotten in the
#: child of a fork (a fork server that imported this module would otherwise hand its own
#: /proc/self to every worker), so that a task asks no system call to know it.
_probes: tuple[PeakMemory, CpuWait] | None = None


def _forget_probes() -> None:
    global _probes
    _probes = None


if hasattr(os, "register_at_fork"):  # (every Unix Python)
    os.register_at_fork(after_in_child=_forget_probes)


def _measures() -> tuple[PeakMemory, CpuWait]:
    global _probes
    if _probes is None:
        _probes = (PeakMemory(), CpuWait())
    return _probes


def solve(backend: Any, task: Task) -> Solved:
    """The task's timed call, nothing else: `finish` checks the answer and makes the outcome.
    Kept apart so that a worker can run several calls back to back, then check them (the
    solver's code and data stay in the CPU's caches across the calls). The timing rule is
    `backend.timed_call`'s: only the backend's `run` (or a solve-only plug-in's `solve`) is
    timed; `wall_s` and `cpu_s` are that region's."""
    try:
        shape = Shape.parse(task.box) if task.box else None
        # (the planner's line form: read at once, its bytes kept for the solver and checker)
        cells = plain_line_bytes(task.puzzle, shape)
        puzzle = Grid._from_bytes(*cells) if cells else parse_grid(task.puzzle, shape)
    except ValueError as exc:
        return _failed(failed(task, Status.ERROR, f"cannot read the puzzle: {exc}"))
    # A backend whose own timeout costs a forked child per solve runs without one: this
    # worker is killed at the deadline anyway.
    timeout = None if getattr(backend, "forks_for_timeout", False) else task.timeout
    memory, waited = _probes or _measures()
    # an `exec:` program's memory is its own process tree's (`_program`, inline)
    programs = _loaded(_PROGRAM)
    is_program = programs is not None and isinstance(backend, programs.ExecBackend)
    program = backend if is_program else None
    if program is not None:
        program.reset_peak()
    memory.reset()  # (outside the timed region, as the reads below)
    start = time.perf_counter()
    try:
        timed = timed_call(backend, puzzle, task.limit, timeout, waited=waited.seconds)
    except Exception as exc:  # a backend that raises is an ERROR result; the run goes on
        wall_s = time.perf_counter() - start
        outcome = failed(task, Status.ERROR, describe_exception(exc), wall_s)
        peak = memory.peak() if program is None else program.peak_bytes()
        return _failed(outcome._replace(peak_memory_bytes=peak))
    peak = memory.peak() if program is None else program.peak_bytes()
    return _new_tuple(Solved, (task, puzzle, timed, None, peak, timed.wait_s))


#: The module of `ExecBackend` (`exec:` programs), imported by whatever makes one: until then
#: no backend is one, and a worker (the fork server, for every worker) does without it.
_PROGRAM = "sudokubench.solvers.program"
#: `sys.modules.get`, a global.
_loaded = sys.modules.get


def _program(backend: Any) -> ExecBackend | None:
    """The `exec:` backend whose program runs the tasks, else None."""
    programs = _loaded(_PROGRAM)
    return backend if programs is not None and isinstance(backend, programs.ExecBackend) else None


def _failed(outcome: Outcome) -> Solved:
    return Solved(outcome.task, None, None, outcome)


def finish(solved: Solved) -> Outcome:
    """The outcome of a `solve`d task: its answer checked, `guard.sanitize`d; never raises."""
    failure = solved.failure
    return sanitize(_checked(solved) if failure is None else failure)


def _checked(solved: Solved) -> Outcome:
    task, puzzle, timed = solved.task, solved.puzzle, solved.timed
    answer = timed.answer
    if not isinstance(answer, SolveResult):
        kind = type(answer).__name__
        return failed(task, Status.ERROR, f"solve returned {kind}, not a SolveResult")
    # The harness's check, outside the timed call: it is per-answer work, so it runs side by
    # side in the workers instead of one after another in the parent.
    try:
        # The rule's times (`stamp`): a plain SolveResult that reports no times of its own
        # (sudokubench's backends) is read as it is, without the copy `stamp` makes, which
        # would only change its `encode_s` and `solve_s` (the outcome takes them from `timed`).
        unstamped = type(answer) is SolveResult and not (answer.encode_s or answer.solve_s)
        result = answer if unstamped else stamp(timed)
        voice = check_result(task.backend, puzzle, result, task.limit)
    except Exception as exc:  # a malformed result (e.g. a count that is not an int)
        return failed(task, Status.ERROR, f"cannot check the result: {describe_exception(exc)}")
    try:
        stats = _stats_copy(result.stats)  # (`sanitize` drops non-numbers)
        # (`_to_microseconds` inline: two calls a task)
        stats[CPU_KEY] = round(timed.cpu_s * 1e6) / 1e6
        if (wait_s := solved.wait_s) is not None:
            stats[WAIT_KEY] = round(wait_s * 1e6) / 1e6
        solutions = voice.solutions if voice.problem is None else tuple(map(str, result.solutions))
        return _new_tuple(
            Outcome,
            (
                task,
                result.status,
                result.count,
                result.exhaustive,
                solutions,
                timed.encode_s,
                timed.solve_s,
                timed.solve_s,  # wall_s: the timed region, as `Backend.solve` reports it
                stats,
                result.message,
                True,
                voice.verdict.text,  # (`str(voice.verdict)`, made once a verdict)
                voice.problem,
                "",
                solved.peak_memory_bytes,
                None,  # texts: `wire.to_wire` makes them as the outcome is sent
            ),
        )
    except Exception as exc:  # e.g. a solution whose str() raises
        return failed(task, Status.ERROR, f"cannot read the result: {describe_exception(exc)}")


def _stats_copy(stats: Any) -> dict[str, Any]:
    """A result's stats as a new dict: a `MappingProxyType`'s (what a SolveResult keeps) copied
    in C by its own mapping's `copy`, about a sixth of the time of `{**stats}`, which reads any
    other mapping (and a proxy whose mapping's `copy` gives something else than a dict)."""
    if type(stats) is MappingProxyType:
        copied = stats.copy()
        if type(copied) is dict:
            return copied
    return {**stats}


def _to_microseconds(seconds: float) -> float:
    """`seconds` to the microsecond, as `round(seconds, 6)` (a third of its time: it rounds
    the exact decimal of the float, this the float times a million; the two can differ only
    where that product lies within a float's error of a half, by one microsecond)."""
    return round(seconds * 1e6) / 1e6


def _watch(lifeline: Connection) -> None:
    """Kill this worker as soon as the parent's end of the lifeline closes (the run died)."""
    with contextlib.suppress(EOFError, OSError):
        while True:
            lifeline.recv_bytes()
    kill_children()  # programs and what they left behind, detached or not
    os.kill(os.getpid(), signal.SIGKILL)


def worker_main(
    conn: Connection,
    lifeline: Connection,
    running: Any = None,
    warm_up: bool = False,
    confined: tuple[str, str] | None = None,
    memory_limit: int | None = None,
) -> None:
    """Worker loop: receive batches, send ("ready", id) after loading a backend, then outcomes;
    ("load", id) and ("ready", id) around a backend's load of a shape it has not solved here
    (`_load_shape`).

    Outcomes go back as lists: tasks run within `HOLD` seconds from the start of the first one
    not yet sent travel together (one message, one system call), and any wait for a new batch
    or a backend load sends what is held first. A task that takes `HOLD` or more is therefore
    sent as soon as it ends. The tasks held are solved back to back and checked together just
    before they are sent (`solve`, then `finish`): the solver's code and data stay in the CPU's
    caches across the calls. `running` (shared memory) holds the id of the task being solved,
    so the parent blames the right one if this process is killed or dies holding answers.

    With `warm_up`, the first task of each backend runs once untimed and discarded (imports,
    caches, JIT) before its timed call; a second ("ready", id) restarts the parent's clock, so
    the warm-up is bounded by the task's own deadline but not charged to it.

    With `confined` folders (a plug-in's lane: a temporary one, its caches'), this process
    and its children may change files only there (`confine.confine_writes`), and
    messages go up as JSON lines (`wire.PlainEnd`), never pickles: the parent of a worker that
    runs a plug-in's code unpickles nothing from it.

    `memory_limit` (bytes) caps the process tree of an `exec:` backend's program, which the
    parent's look at this worker's resident set does not see (`ExecBackend.memory_limit`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _collect_less_often()
    _measures()  # opens /proc/self/clear_refs for writing: before any confinement forbids it
    if confined is not None:
        _confine(*confined)
    # What a plug-in prints goes to stderr: the tool's stdout is the report (`--json`).
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    # A kill -9 of the run must not leave a worker solving on: a thread waits for the end of
    # the lifeline, which only the run holds (the fork server stays up while workers live).
    threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    die_with_parent()
    become_subreaper()  # a program's detached descendants become ours, to kill at the end
    try:
        _serve(conn if confined is None else PlainEnd(conn), running, warm_up, memory_limit)
    finally:
        kill_children()


#: The length of a task's tuple, as the set `_serve` compares a batch's lengths with.
_TASK_WIDTH = {len(Task._fields)}

#: How many times less often than Python's default a worker collects cycles (`worker_main`).
COLLECT_LESS = 100


def _collect_less_often() -> None:
    """Collect cycles `COLLECT_LESS` times less often in this worker.

    The collector counts the containers made less those freed. A worker holds the tasks it
    solved within `HOLD` (hundreds at `native`'s speed, a dozen containers each: the task, its
    grids, the answer, its stats) until it checks and sends them, so at the default threshold
    (700) the young collections run every few dozen tasks and walk the held ones, again at
    each of them until they are promoted: about 15,000 of a task's 250,000 instructions
    (callgrind, `native` on 17clue). A task's objects are freed by their counts, in no cycle;
    a plug-in that makes cycles still has them collected, once 70,000 containers more than
    were freed have been made instead of 700.
    """
    first, *rest = gc.get_threshold()
    if first:  # 0 means no automatic collection at all: leave it so
        gc.set_threshold(max(first, COLLECT_LESS * 700), *rest)


def _confine(scratch: str, cache: str) -> None:
    """Changes to files only in `scratch` and `cache` (where it can be done), temporary
    files in `scratch`."""
    if confine_writes(scratch, cache) is not None:  # (where it cannot, `compare` said so)
        tempfile.tempdir = os.environ["TMPDIR"] = scratch


def _serve(
    conn: Connection | PlainEnd, running: Any, warm_up: bool, memory_limit: int | None
) -> None:
    """The loop of `worker_main`: batches in, outcomes out, until the parent says stop."""
    backends: dict[str, Any] = {}
    done: list[Solved] = []  # solved, not yet checked and sent
    since = 0.0  # when the first of them started
    # A worker of sudokubench's own backends sends each outcome's solutions and stats as
    # the JSON the database stores, which its parent then stores as they are (`to_wire`),
    # what it held as one message of the rows' columns (`batch.to_columns`); a plug-in's
    # lane sends none (its parent makes its own of what it checked itself).
    texts = not isinstance(conn, PlainEnd)
    # Each backend's shapes loaded here (`_load_shape`), by (backend, box, the puzzle's
    # length); the last task's apart, so that a task of the same looks no further (about
    # 0.1 us a task).
    shapes: set[tuple[str, str | None, int]] = set()
    name = box = None
    cells = -1

    lane: _NativeLane | None = None  # (made at the first task it can take, `_NativeLane`)
    laned = tried = False  # whether the last task's (name, box, cells) go on the lane

    def flush() -> None:
        if lane is not None:
            lane.flush()
        if done:
            _send_solved(conn, done, texts)
            done.clear()

    while True:
        flush()
        if running is not None:
            running.value = -1  # idle: no task to blame
        try:
            batch = receive(conn)
        except EOFError:
            return
        except OSError:
            os._exit(LOST_PIPE)
        if batch is None:
            return
        # (the parent's tuples made Tasks in one call: `Task(*fields)` runs the named tuple's
        # Python `__new__` a task; any other batch goes that way, which says what is wrong)
        if set(map(len, batch)) == _TASK_WIDTH:
            tasks = list(map(_new_tuple, repeat(Task), batch))
        else:
            tasks = [Task(*fields) for fields in batch]
        k = 0
        while k < len(tasks):
            task = tasks[k]
            k += 1
            if running is not None:
                running.value = task.task_id
            backend = backends.get(task.backend)
            if backend is None:
                flush()
                backend = _load(conn, task)
                if backend is None:
                    continue
                if (program := _program(backend)) is not None:
                    program.memory_limit = memory_limit
                backends[task.backend] = backend
                name, box, cells = task.backend, task.box, len(task.puzzle)
                shapes.add((name, box, cells))  # (loaded by `_load`)
                laned = texts and name == _NATIVE and box is None and cells == _LANE_CELLS
                if warm_up:
                    with contextlib.suppress(BaseException):  # (the timed call says it again)
                        run_task(backend, task)
                    send(conn, ("ready", task.task_id))
            elif len(task.puzzle) != cells or task.box != box or task.backend != name:
                name, box, cells = key = task.backend, task.box, len(task.puzzle)
                laned = texts and name == _NATIVE and box is None and cells == _LANE_CELLS
                if key not in shapes:  # its first task of this shape: load it, untimed
                    shapes.add(key)
                    flush()
                    _load_shape(conn, backend, task, announce=True)
            if laned:  # (this task and those after it of the same key, on the lane)
                if not tried:
                    tried = True
                    lane = _NativeLane.made(conn, backend)
                if lane is not None and _lane_run(tasks, k - 1):
                    if done:  # (what is held goes first, in order)
                        _send_solved(conn, done, texts)
                        done.clear()
                    k = lane.solve(tasks, k - 1, running)
                    continue
            if not done:
                since = time.perf_counter()
            try:
                done.append(solve(backend, task))
            except BaseException as exc:  # (`_solve_guarded`, inline: a call a task)
                message = f"the backend raised {describe_exception(exc)}"
                done.append(_failed(failed(task, Status.ERROR, message)))
            if time.perf_counter() - since >= HOLD:
                flush()


def _solve_guarded(backend: Any, task: Task) -> Solved:
    """`solve`, and what it raises past `Exception` the task's ERROR (SystemExit,
    GeneratorExit, KeyboardInterrupt, a bare BaseException raised by a plug-in in `solve`: the
    task's ERROR saying so, not this worker's end; the plug-in's other tasks run on)."""
    try:
        return solve(backend, task)
    except BaseException as exc:
        return _failed(failed(task, Status.ERROR, f"the backend raised {describe_exception(exc)}"))


def _send_solved(conn: Connection | PlainEnd, done: list[Solved], texts: bool) -> None:
    """Send the held `solve`d tasks' outcomes as one message: the usual batch straight to its
    columns (`batch.solved_columns`: checked and tested a batch at a time, no outcome made);
    any other through `finish`, then one columnar message (`batch.to_columns`) where the
    outcomes allow it, else the outcomes (`to_wire`; a plug-in's lane, without `texts`)."""
    columns = solved_columns(done) if texts else None
    if columns is None:
        finished = [finish(s) for s in done]
        columns = to_columns(finished) if texts else None
        send(conn, columns or [to_wire(o, texts) for o in finished])
    else:
        send(conn, columns)


def _load(conn: Connection | PlainEnd, task: Task) -> Any:
    """The task's backend, after sending ("ready", task_id); None after sending an ERROR
    outcome for the task when it cannot be loaded or is not available here."""
    from sudokubench.solvers import get_backend

    try:
        backend = get_backend(task.backend)
    except BaseException as exc:  # (a plug-in's import may raise SystemExit, too)
        message = f"cannot load the backend: {describe_exception(exc)}"
        send(conn, [to_wire(failed(task, Status.ERROR, message))])
        return None
    try:
        ok = bool(backend.available())
        reason = "" if ok else plain_text(backend.unavailable_reason())
    except Exception as exc:
        ok, reason = False, describe_exception(exc)
    if not ok:
        send(conn, [to_wire(failed(task, Status.ERROR, f"backend not available: {reason}"))])
        return None
    _load_shape(conn, backend, task, announce=False)  # (under the same load limit)
    send(conn, ("ready", task.task_id))
    return backend


def _load_shape(conn: Connection | PlainEnd, backend: Any, task: Task, announce: bool) -> None:
    """What the task's backend loads for the task's shape (its `load_shape`, when it has one:
    `native`'s kernel of another shape than 9x9, numba's set-up with it), done before the
    task's clock starts. With `announce`, ("load", task_id) first: the parent then gives the
    task the backend's load limit instead of its timeout until ("ready", task_id) after the
    load, where its clock starts (`WorkerHandle.loading`). Never raises: a load that fails
    leaves the task's own `prepare` to report it; one that hangs is killed at the load limit."""
    try:
        load = getattr(backend, "load_shape", None)
        if load is None:
            return
        shape = Shape.parse(task.box) if task.box else Shape.for_cells(len(task.puzzle))
    except Exception:  # (a puzzle in another notation: its `prepare` loads what it needs)
        return
    if announce:
        send(conn, ("load", task.task_id))
    with contextlib.suppress(Exception):
        load(shape)
    if announce:
        send(conn, ("ready", task.task_id))


#: Whether `_serve` runs a worker's consecutive 9x9 tasks of the built-in `native` on its lane
#: (`_NativeLane`); off, each goes `solve`'s way (the tests compare the two).
NATIVE_LANE = True
_NATIVE = "native"
#: The lane's puzzles: lines of 81 characters, their shape not forced (`Task.box` None).
_LANE_CELLS = 81
#: Tasks of the lane's kind in a row (or to a batch's end) that the lane waits for before it
#: takes them: a run of `compare` with several backends interleaves them a puzzle at a time
#: (`native`, `fast`, `native`, ...), and the lane, which sends what it holds before a task
#: of another kind, would send two messages a task there; such tasks go `solve`'s way, held
#: together, one message a batch, as before.
LANE_RUN = 16


def _lane_run(tasks: list[Task], at: int) -> bool:
    """Whether `tasks[at]` begins `LANE_RUN` tasks of the lane's kind (or all of the batch's
    rest are)."""
    return all(
        t[4] == _NATIVE and t[3] is None and len(t[2]) == _LANE_CELLS
        for t in tasks[at : at + LANE_RUN]
    )


def _waited(start: Any, fd: int | None, wait: Any) -> float | None:
    """The wait clock's seconds since `start`: the clock's text read before the timed region
    (`fd` its file, read again now and both parsed as `CpuWait.seconds` parses them), or with
    `fd` None the seconds `wait` (`CpuWait.seconds`) gave then, read again by it; None where
    either read fails, as `CpuWait.seconds` is None then."""
    if fd is None:
        end = wait()
        return None if end is None else end - start
    try:
        return int(os.pread(fd, 128, 0).split()[1]) / 1e9 - int(start.split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


#: The kernel's codes of a search one call ended (`native.FINISHED`, `native.LIMIT`): the
#: lane's; `native._run` gives any other (PAUSED, FULL) as a tuple with the grids taken.
_ONE_CALL = (0, 1)
#: A 9x9 line's characters to their digits (`notation.plain_line_bytes`' table), any other
#: (a larger shape's symbols too) to 127: a line is the lane's when its bytes hold no 127 (one
#: `in`, in C, instead of deleting the bytes 0..9 from them).
_DIGITS_OF = bytes(d if d <= 9 else 127 for d in _LINE_DIGITS)


class _NativeLane:
    """A worker's lane of consecutive tasks of the built-in `native` (its registry's own class,
    `guard.trusted`, never a plug-in) on 9x9 lines with a limit of 1 to `native.ROWS` - 1: a
    task's work is a few statements around the kernel's call, no Grid, result, outcome or
    dict made a task.

    For each task, as `solve` and `backend.timed_call` do and in the same order: the peak-memory
    reset; the givens written into the thread's shared band state (`native.Lane`, as
    `Native.solve` fills it), timed by `perf_counter` (`encode_s`); the CPU-wait clock,
    `process_time` and `perf_counter` read around the same timed region (`native._run` of the
    same `prepared`, with its deadline logic) and `perf_counter` and `process_time` again after
    it; the peak read, and with it (one `getrusage`) the process's context switches: when none
    happened since the last task's peak read, the thread never left its CPU, its run-queue delay
    stood still and the wait is 0 without a second read of the wait clock; else that clock is
    read again. Then its answer's parts are copied: the task, its givens' bytes, the times and
    the peak (lists), the kernel's code (a bytearray), its counters NODES to SAVED (56 bytes of
    the state) and the rows it wrote (81 bytes each), held until the message
    (`batch.lane_columns`), sent when `_serve` would send (after `HOLD` seconds, at a batch's
    end, before another kind of task). The message checks every solution on the bytes held
    (`grid.valid_lines`: digits, every given kept, every unit complete) and tests what
    `guard.sanitize` tests; a batch it cannot vouch for (a solution that fails the check, a
    value out of bounds) has each task's answer made as `native` makes it (`native.lane_answer`)
    and goes `finish`'s way, which reports it as the per-task path does.

    A task the lane does not finish goes the per-task way, in order (what the lane holds is
    sent first): a line it cannot read, a limit or a timeout it does not take, an exception
    in the kernel's call (`solve`, from the start: it says what is wrong as it says it); a
    search the kernel paused (PAUSED or FULL: a hard puzzle, a timeout), a CPU wait or a peak
    that could not be read (its answer made at once from the kernel's state, `Native.answer`,
    with the times measured, as `timed_call` makes it)."""

    __slots__ = (
        "backend", "codes", "conn", "counters", "cpus", "encodes", "general", "givens", "lane",
        "lines", "memory", "peaks", "solves", "tasks", "waited", "waits",
    )  # fmt: skip

    def __init__(self, conn: Any, backend: Any, lane: Any, memory: Any, waited: Any) -> None:
        self.conn = conn
        self.backend = backend
        self.lane = lane
        self.memory = memory
        self.waited = waited
        # What the lane holds: the same objects from one message to the next (`_sent`).
        self.tasks: list[Task] = []
        self.givens: list[bytes] = []
        self.encodes: list[float] = []
        self.solves: list[float] = []
        self.cpus: list[float] = []
        self.waits: list[float] = []
        self.peaks: list[int] = []
        self.codes = bytearray()
        self.counters = bytearray()
        self.lines = bytearray()
        self.general: list[Solved] = []  # the tasks that went the per-task way, held

    @classmethod
    def made(cls, conn: Any, backend: Any) -> _NativeLane | None:
        """The lane of `backend` when it is the built-in `native` and this thread's 9x9 run is
        ready (`native.lane`: loaded by `_load_shape`), and the worker's probes read here
        (the peak, the CPU wait); else None: every task goes `solve`'s way."""
        if not NATIVE_LANE or not trusted(_NATIVE):
            return None
        from sudokubench.solvers.native import Native, lane

        if type(backend) is not Native:
            return None
        memory, waited = _probes or _measures()
        if memory.peak() is None or waited.seconds() is None:
            return None
        ready = lane(Shape.for_cells(_LANE_CELLS))
        return None if ready is None else cls(conn, backend, ready, memory, waited)

    def solve(self, tasks: list[Task], at: int, running: Any) -> int:
        """Run `tasks[at]` and each task after it of the lane's kind (`native`, no box, a line
        of 81 characters), sending what it holds every `HOLD` seconds; the place of the first
        task it did not take (of another kind, or the batch's end), all it held sent."""
        from sudokubench.solvers.native import ROWS, _run

        lane = self.lane
        state, state_bytes, heads = lane.state, lane.state_bytes, lane.heads
        prepared = lane.prepared
        head_end, givens_end, saved_at = lane.head_end, lane.givens_end, lane.saved_at
        rows, counters_now = lane.rows, lane.counters
        # The probes read inline, as `PeakMemory` and `CpuWait` read them (their files kept
        # open; `peak_switches`' one `getrusage`), without a Python call each; the wait clock's
        # text read before the timed region and parsed only when the wait is not known to be
        # 0 (a switch since the last task's peak read). After a failed reset (the file
        # forgotten, as `reset` forgets it), or where the peak is read from /proc/self/status,
        # the probes' own methods.
        memory, waited = self.memory, self.waited
        reset, peak_switches, wait = memory.reset, memory.peak_switches, waited.seconds
        clear_fd, wait_fd, write, pread = memory._fd, waited._fd, os.write, os.pread
        # (the clock's text parsed at the lane's making, `made`: a task with no switch takes
        # its wait as 0 unparsed, as `CpuWait.seconds` read and parsed would give it)
        inline = clear_fd is not None and wait_fd is not None and not memory._status
        usage_of, usage_self = _resource.getrusage, _resource.RUSAGE_SELF
        perf_counter, process_time = time.perf_counter, time.process_time
        held, general, counters, lines = self.tasks, self.general, self.counters, self.lines
        hold, give, codes = held.append, self.givens.append, self.codes.append
        encodes, solves, cpus = self.encodes.append, self.solves.append, self.cpus.append
        waits, peaks = self.waits.append, self.peaks.append
        table, one_call = _DIGITS_OF, _ONE_CALL
        space = lane.space
        lent, space.run = space.run, None  # (lent to the lane, as `Native.solve` takes it)
        since = 0.0
        switched = None  # the process's context switches at the last peak read (this call)
        k = at
        try:
            while k < len(tasks):
                task = tasks[k]
                task_id, _, line, box, name, limit, timeout, _ = task
                if name != _NATIVE or box is not None or len(line) != _LANE_CELLS:
                    break
                k += 1
                if running is not None:
                    running.value = task_id
                if not held and not general:
                    since = perf_counter()
                try:
                    digits = line.encode("ascii").translate(table)
                except UnicodeEncodeError:
                    digits = b"\x7f"  # (not a digit: the per-task way says so)
                if (
                    127 in digits
                    or limit.__class__ is not int
                    or not 0 < limit < ROWS
                    or not (timeout is None or (timeout.__class__ is float and timeout >= 0.0))
                ):
                    self._general(_solve_guarded(self.backend, task))
                    end = perf_counter()
                else:
                    if general:  # (the tasks held before this one go first)
                        self._send_general()
                    # (the peak's mark, outside the timed region, as `solve`)
                    if inline:
                        try:
                            write(clear_fd, b"5")
                        except OSError:  # (as `reset`: the file forgotten, no peak read)
                            inline = False
                            memory.forget()
                    else:
                        reset()
                    start = perf_counter()
                    state[:head_end] = heads[limit]  # (`Native.solve`'s `prepare`)
                    state[head_end:givens_end] = digits
                    encode_s = perf_counter() - start
                    if inline:
                        try:
                            wait_text = pread(wait_fd, 128, 0)
                        except OSError:
                            wait_text = None
                    else:
                        wait_text = wait()
                    cpu_start = process_time()
                    start = perf_counter()
                    try:
                        raw = _run(prepared[limit], timeout)  # the timed region: `bind`'s
                    except BaseException:  # (the per-task way, from the start, says it)
                        self._general(_solve_guarded(self.backend, task))
                        end = perf_counter()
                    else:
                        end = perf_counter()
                        solve_s = end - start
                        cpu_s = process_time() - cpu_start
                        if inline:
                            usage = usage_of(usage_self)
                            peak = usage.ru_maxrss * 1024
                            switches = usage.ru_nvcsw + usage.ru_nivcsw
                        else:
                            peak, switches = peak_switches()
                        if wait_text is None:
                            wait_s = None
                        elif switches is not None and switches == switched:
                            # No switch since the last task's peak read, which came before
                            # the wait clock's read: the thread kept its CPU, so its
                            # run-queue delay stood still and the clock would read the same.
                            wait_s = 0.0 if solve_s > 0.0 else solve_s
                        else:
                            wait_s = _waited(wait_text, wait_fd if inline else None, wait)
                            if wait_s is not None and not wait_s < solve_s:
                                wait_s = solve_s
                        switched = switches
                        if raw in one_call and wait_s is not None and peak is not None:
                            hold(task)
                            give(digits)
                            encodes(encode_s)
                            solves(solve_s)
                            cpus(cpu_s)
                            waits(wait_s)
                            peaks(peak)
                            codes(raw)
                            counters += counters_now  # (NODES to SAVED, copied)
                            lines += rows[state_bytes[saved_at]]  # (the rows it wrote)
                        else:  # (paused, or a probe not read: the answer made now)
                            times = (encode_s, solve_s, cpu_s, wait_s)
                            self._general(self._answered(task, digits, limit, raw, times, peak))
                if end - since >= HOLD:
                    self.flush()
        finally:
            space.run = lent
        self.flush()
        return k

    def _answered(
        self, task: Task, digits: bytes, limit: int, raw: Any, times: tuple, peak: Any
    ) -> Solved:
        """The task's `Solved` from the kernel's state after its call, as `solve` makes it
        with `timed_call`: the answer `Native.answer` makes of it, with the times measured."""
        encode_s, solve_s, cpu_s, wait_s = times
        backend = self.backend
        try:
            answer = backend.answer(self.lane.prepared[limit], raw)
        except Exception as exc:  # (as `timed_call`: an ERROR answer, no wait read)
            timed = Timed(_error(backend, exc, 0.0, 0.0), encode_s, solve_s, cpu_s)
        else:
            timed = _new_tuple(Timed, (answer, encode_s, solve_s, cpu_s, wait_s))
        puzzle = Grid._from_bytes(self.lane.shape, digits)
        return _new_tuple(Solved, (task, puzzle, timed, None, peak, timed.wait_s))

    def _general(self, solved: Solved) -> None:
        """Hold a task that went the per-task way, after what the lane holds (sent now)."""
        if self.tasks:
            self._send_rows()
        self.general.append(solved)

    def flush(self) -> None:
        """Send what the lane holds."""
        if self.tasks:
            self._send_rows()
        if self.general:
            self._send_general()

    def _send_general(self) -> None:
        _send_solved(self.conn, self.general, True)
        self.general.clear()

    def _send_rows(self) -> None:
        """The held tasks' message (`batch.lane_columns`), else each answer made
        (`native.lane_answer`) and `finish`'s way; what is held cleared."""
        lane = self.lane
        message = lane_columns(
            lane.shape, self.tasks, self.givens, self.encodes, self.solves, self.cpus,
            self.waits, self.peaks, self.codes, self.counters, self.lines,
        )  # fmt: skip
        if message is not None:
            send(self.conn, message)
        else:
            _send_solved(self.conn, self.held(), True)
        for kept in (self.tasks, self.givens, self.encodes, self.solves, self.cpus, self.waits):
            kept.clear()
        self.peaks.clear()
        del self.codes[:], self.counters[:], self.lines[:]

    def held(self) -> list[Solved]:
        """The held tasks as `Solved`, each answer made as `native` makes it of the kernel's
        counters and rows (`native.lane_answer`) with the times measured: `solve`'s."""
        from sudokubench.solvers.native import lane_answer

        shape = self.lane.shape
        size = shape.cells
        words = array("q", self.counters).tolist()
        lines = bytes(self.lines)
        made = []
        at = 0
        for k, task in enumerate(self.tasks):
            counters = words[7 * k : 7 * k + 7]
            end = at + size * (counters[-1] & 0xFF)  # (the rows copied: SAVED's low byte)
            wait_s = self.waits[k]
            try:
                answer = lane_answer(shape, counters, lines[at:end], self.codes[k])
            except Exception as exc:  # (as `timed_call`: an ERROR answer, no wait read)
                answer, wait_s = _error(self.backend, exc, 0.0, 0.0), None
            at = end
            timed = (answer, self.encodes[k], self.solves[k], self.cpus[k], wait_s)
            puzzle = Grid._from_bytes(shape, self.givens[k])
            fields = (task, puzzle, _new_tuple(Timed, timed), None, self.peaks[k], wait_s)
            made.append(_new_tuple(Solved, fields))
        return made
