"""Plug-ins that attack the harness from their worker, for test_isolation.py, reachable as
`hostile_wire:NAME`.

Each finds the worker's end of the pipe and the task it runs in the worker loop's frame (what
any plug-in can do) and writes to it past the worker's own code:

- `PickleBomb`: a pickle (in `multiprocessing`'s own framing) whose `__reduce__` creates the
  file named by `HOSTILE_MARKER` when unpickled, then the true answer.
- `HalfMessage`: a frame header announcing 1,000 bytes and 10 of them, then hangs.
- `Endless`: announces its task ready again every 20 ms, for ever (each once reset its clock).
- `Oversized`: a frame header announcing 600 MB, then that many bytes, 1 MB at a time.
- `WrongTask`: an outcome for a task id that is not its task's.
- `Garbage`: a line of bytes that are not a message, then the true answer.
- `DeepJson`: a JSON line nested 100,000 deep.
- `Exits`, `GenExit`, `BareBase`: raise SystemExit, GeneratorExit, BaseException from `solve`
  (past any `except Exception`).
- `CloseStdio`: closes descriptors 0-2 of its worker, then answers truly.
- `Tamper`: not the pipe: rewrites the rows of the results database named by `HOSTILE_DB`
  (every other backend's tasks made unsatisfiable, then deleted), then answers truly.

tests/ is on `sys.path` under pytest; a CLI subprocess needs it on `PYTHONPATH`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import struct
import sys
import time
from multiprocessing.connection import Connection
from typing import Any

from fake_backends import Fake, honest

from sudokubench.backend import SolveResult, Status
from sudokubench.grid import Grid


def _loop() -> tuple[Any, Any]:
    """The worker loop's end of the pipe and the task it is running (from its frame)."""
    frame = sys._getframe()
    while frame.f_code.co_name != "_serve":
        frame = frame.f_back
        assert frame is not None, "not called from the worker loop"
    return frame.f_locals["conn"], frame.f_locals["task"]


def _fd() -> int:
    conn = _loop()[0]
    return getattr(conn, "conn", conn).fileno()


def _write(data: bytes) -> None:
    fd = _fd()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Marker:
    """Creates the marker file when unpickled (`open(path, "w")` is the unpickling call)."""

    def __reduce__(self) -> Any:
        return (open, (os.environ["HOSTILE_MARKER"], "w"))


class _Honest(Fake):
    def answer(self, puzzle: Grid, limit: int) -> SolveResult:
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class PickleBomb(_Honest):
    """Sends a pickle that runs code where it is loaded, then answers truly."""

    name = "hostile_wire:PickleBomb"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Send the bomb in multiprocessing's framing, past the worker's own sender."""
        Connection(os.dup(_fd()), readable=False).send(_Marker())
        return self.answer(puzzle, limit)


class HalfMessage(_Honest):
    """Half a message, then silence."""

    name = "hostile_wire:HalfMessage"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Announce 1,000 bytes, send 10, hang."""
        _write(struct.pack("!i", 1000) + b"x" * 10)
        time.sleep(3600)
        raise AssertionError("not reached: the harness kills this worker")


class Endless(_Honest):
    """Keeps announcing its task ready, as if its clock should start again."""

    name = "hostile_wire:Endless"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Send ("ready", task) every 20 ms through the worker's own sender, for ever."""
        conn, task = _loop()
        while True:
            conn.send(("ready", task.task_id))
            time.sleep(0.02)


class Oversized(_Honest):
    """A message of 600 MB, streamed."""

    name = "hostile_wire:Oversized"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Announce 600 MB and send them; the parent must not hold them."""
        size = 600 * 2**20
        _write(struct.pack("!i", size))
        block = b"[" * 2**20
        for _ in range(size // len(block)):
            _write(block)
        return self.answer(puzzle, limit)


class WrongTask(_Honest):
    """Answers for a task that is not its own."""

    name = "hostile_wire:WrongTask"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Send an outcome for task id + 1000 through the worker's own sender."""
        from sudokubench.harness.pool.task import failed
        from sudokubench.harness.pool.wire import to_wire

        conn, task = _loop()
        conn.send([to_wire(failed(task._replace(task_id=task.task_id + 1000), Status.ERROR, "x"))])
        return self.answer(puzzle, limit)


class Garbage(_Honest):
    """A line that is not a message, then the true answer."""

    name = "hostile_wire:Garbage"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Bytes that are neither a pickle nor JSON."""
        _write(b"\xff\x00 not a message \x1b[2J\n")
        return self.answer(puzzle, limit)


class DeepJson(_Honest):
    """JSON nested 100,000 deep (which would overflow a recursive parser)."""

    name = "hostile_wire:DeepJson"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Send the deep line, then answer."""
        _write(b"[" * 100_000 + b"]" * 100_000 + b"\n")
        return self.answer(puzzle, limit)


class Tamper(_Honest):
    """Writes the results database directly (same user, same file), then answers truly."""

    name = "hostile_wire:Tamper"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Make the others' rows unsatisfiable, delete them; raises when the file is refused."""
        with sqlite3.connect(os.environ["HOSTILE_DB"], timeout=5) as db:
            db.execute("UPDATE tasks SET status = 'unsatisfiable' WHERE backend != ?", (self.name,))
            db.execute("DELETE FROM tasks WHERE backend != ?", (self.name,))
        return self.answer(puzzle, limit)


class Exits(_Honest):
    """Raises SystemExit from `solve`."""

    name = "hostile_wire:Exits"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Exit, as a script would."""
        raise SystemExit(3)


class GenExit(_Honest):
    """Raises GeneratorExit from `solve`."""

    name = "hostile_wire:GenExit"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise what closes a generator."""
        raise GeneratorExit("closed")


class BareBase(_Honest):
    """Raises a bare BaseException from `solve`."""

    name = "hostile_wire:BareBase"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise past `except Exception`."""
        raise BaseException("past every except Exception")


class CloseStdio(_Honest):
    """Closes its worker's stdin, stdout and stderr, then answers truly."""

    name = "hostile_wire:CloseStdio"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Close 0-2, answer."""
        for fd in (0, 1, 2):
            with contextlib.suppress(OSError):
                os.close(fd)
        return self.answer(puzzle, limit)
