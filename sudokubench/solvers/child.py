"""A wall-clock timeout for libraries that have none: search in a forked child, kill it in time.

pycosat (picosat) and python-constraint cannot be interrupted from Python: a call into them
returns when it is done. `collect_in_child` runs a search generator in a child process made
with `os.fork` (so nothing is pickled and the child starts at once, with the model already
built), streams each solution back through a pipe as it is found, and kills the child with
SIGKILL at the deadline. The solutions received by then are kept, so a timed-out count still
reports what it found (status TIMEOUT, not exhaustive). The child also arms its own SIGALRM
for the deadline plus `GRACE_S`, so it cannot outlive a parent that was itself killed.

Cost: a fork and a pipe, 5 ms on an idle 2-core machine with OR-Tools loaded and up to 25 ms
under load (the last table of `benchmarks/models.py`); backends therefore use it only when a
timeout is given, and solve in-process otherwise. The search
generator's `stats` dict is sent back when the child finishes (a killed child's stats are
lost). Where `os.fork` does not exist (Windows) the search runs in-process with the deadline
checked between solutions only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection

from sudokubench.backend import Deadline, SolveResult, collect, make_result
from sudokubench.grid import Grid, Shape

__all__ = ["collect_in_child", "collect_solutions", "fork_available"]

Search = Callable[[dict[str, int | float]], Iterator[Grid]]

#: The child's own alarm goes off this long after the deadline (if the parent cannot kill it).
GRACE_S = 1.0


def fork_available() -> bool:
    """Whether this platform can fork (the child-process timeout needs it)."""
    return hasattr(os, "fork")


def collect_solutions(
    backend: str,
    shape: Shape,
    search: Search,
    limit: int,
    deadline: Deadline,
    *,
    encode_s: float = 0.0,
    fork: bool = True,
) -> SolveResult:
    """Up to `limit` solutions from `search(stats)`: in a child killed at the deadline when
    there is one (and `fork`), else here (the search cannot outrun a deadline it lacks)."""
    if fork and deadline.remaining() is not None:
        return collect_in_child(backend, shape, search, limit, deadline, encode_s=encode_s)
    stats: dict[str, int | float] = {}
    return collect(backend, search(stats), limit, encode_s=encode_s, stats=stats)


def collect_in_child(
    backend: str,
    shape: Shape,
    search: Search,
    limit: int,
    deadline: Deadline,
    *,
    encode_s: float = 0.0,
) -> SolveResult:
    """Draw up to `limit` solutions of `shape` from `search(stats)` in a child killed at `deadline`.

    `search` yields solutions and may update the `stats` dict it is given.
    """
    stats: dict[str, int | float] = {}
    if not fork_available():
        return collect(
            backend, _checked(search(stats), deadline), limit, encode_s=encode_s, stats=stats
        )
    start = time.perf_counter()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: search, report, and leave without running the parent's cleanup
        os.close(read_fd)
        _child(Connection(write_fd, readable=False), search, limit, deadline.remaining())
    os.close(write_fd)
    found: list[Grid] = []
    finished = timed_out = False
    with Connection(read_fd, writable=False) as conn:
        try:
            while True:
                remaining = deadline.remaining()
                # past the deadline, stop even while solutions are still waiting in the pipe: a
                # child that writes faster than a busy parent reads would otherwise be read
                # until its own alarm kills it
                if remaining is not None and (remaining <= 0.0 or not conn.poll(remaining)):
                    timed_out = True
                    break
                kind, value = conn.recv()
                if kind == "solution":
                    found.append(Grid(shape, value))
                elif kind == "done":
                    finished, child_stats = value
                    stats.update(child_stats)
                    break
                else:
                    raise RuntimeError(value)
        except EOFError:
            if not deadline.expired():
                raise RuntimeError("the solver's child process died") from None
            timed_out = True  # (its own alarm, past the deadline: a timeout, not a crash)
        finally:
            _end(pid)
    stats["child_process"] = 1
    return make_result(
        backend,
        found,
        finished=finished,
        timed_out=timed_out,
        encode_s=encode_s,
        solve_s=time.perf_counter() - start,
        stats=stats,
    )


def _child(conn: Connection, search: Search, limit: int, seconds: float | None) -> None:
    code = 0
    if seconds is not None:  # outlive the deadline by GRACE_S at most, even if the parent died
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_REAL, seconds + GRACE_S)
    try:
        stats: dict[str, int | float] = {}
        finished = True
        for count, solution in enumerate(search(stats), 1):
            conn.send(("solution", solution.cells))
            if count >= limit:
                finished = False
                break
        conn.send(("done", (finished, dict(stats))))
    except BaseException as exc:  # report every failure, then leave
        code = 1
        with contextlib.suppress(BaseException):
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        os._exit(code)


def _end(pid: int) -> None:
    """Kill the child if it is still running and reap it."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _checked(solutions: Iterator[Grid], deadline: Deadline) -> Iterator[Grid]:
    for solution in solutions:
        yield solution
        deadline.check()
