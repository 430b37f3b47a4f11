"""Hostile plug-ins for the sweep in test_hostile.py, reachable as `hostile_plugins:NAME`.

Each one attacks the harness in one way a broken or malicious plug-in could:

- `NanTiming`: the true answer with `encode_s=nan` and `solve_s=inf`.
- `BadTypes`: the true answer with a text `encode_s` and stats of every wrong kind.
- `SwitchOffCheck`: replaces the worker's answer check with one that passes everything, then
  answers a grid that is not a solution.
- `UnpicklableMessage`: an ERROR whose message is a `str` subclass that cannot be pickled.
- `Chatty`: prints to stdout when imported and on every solve.
- `CloseFds`: closes every file descriptor of its worker, then answers.
- `Babbler`: fails every task with a different message of `MESSAGE_CHARS` characters (the
  parent must not keep every text); `Repeater` fails every task with the same one.
- `Formula`: answers ERROR with a message that is a spreadsheet formula, markup, quotes and
  escape sequences.
- `DetachAndHang`: starts a `sleep 302` detached into a session of its own (double fork), then
  never answers, so its worker is killed at the timeout.

tests/ is on `sys.path` under pytest; a CLI subprocess needs it on `PYTHONPATH`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from typing import Any

from fake_backends import Fake, honest, pattern_grid

from sudokubench.backend import SolveResult, Status
from sudokubench.grid import Grid
from sudokubench.harness.pool.guard import MESSAGE_CHARS

print("hostile_plugins imported: this line must not reach the tool's stdout")


class NanTiming(Fake):
    """Right answers, timings NaN and infinity."""

    name = "hostile_plugins:NanTiming"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, timed as NaN."""
        return dataclasses.replace(
            honest(puzzle, limit), backend=self.name, encode_s=math.nan, solve_s=math.inf
        )


class BadTypes(Fake):
    """Right answers, a text time and stats no store takes."""

    name = "hostile_plugins:BadTypes"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, a string for a time, junk stats."""
        result = dataclasses.replace(honest(puzzle, limit), backend=self.name)
        object.__setattr__(result, "encode_s", "fast")
        stats: dict[Any, Any] = {"nodes": 5, "nan": math.nan, "text": "x", 7: 1, "flag": True}
        stats.update({f"k{i}": i for i in range(200)})
        object.__setattr__(result, "stats", stats)
        return result


class SwitchOffCheck(Fake):
    """Disables the harness's check in its process, then answers a wrong grid."""

    name = "hostile_plugins:SwitchOffCheck"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Patch every check it can reach, then lie."""
        from sudokubench.harness import verify
        from sudokubench.harness.pool import worker

        def approve(source: str, puzzle: Grid, answer: Any, limit: int | None) -> Any:
            sols = tuple(str(g) for g in answer.solutions)
            return verify.Voice(source, verify.Verdict("at_least", len(sols)), sols, None)

        worker.check_result = approve  # type: ignore[assignment]
        verify.check_result = approve  # type: ignore[assignment]
        wrong = pattern_grid(puzzle)
        return SolveResult(self.name, Status.SOLVED, (wrong,), 1, False)


class Unpicklable(str):
    """A message that refuses to be pickled."""

    def __reduce__(self) -> Any:
        raise TypeError("this message cannot be pickled")


class UnpicklableMessage(Fake):
    """An ERROR whose message cannot be pickled."""

    name = "hostile_plugins:UnpicklableMessage"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Fail with a poisoned message."""
        return SolveResult(self.name, Status.ERROR, message=Unpicklable("poisoned message"))


class Chatty(Fake):
    """Honest, but prints to stdout."""

    name = "hostile_plugins:Chatty"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Print, then answer truly."""
        print("chatty plug-in says hello on stdout")
        sys.stdout.flush()
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class CloseFds(Fake):
    """Closes every file descriptor of its process (the pipes to the harness too), then
    answers truly."""

    name = "hostile_plugins:CloseFds"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Cut the worker's pipes, then answer."""
        result = dataclasses.replace(honest(puzzle, limit), backend=self.name)
        os.closerange(3, 4096)
        return result


class Babbler(Fake):
    """Fails every task with a message of its own: the process id, a serial number and the
    puzzle, padded to the longest message kept."""

    name = "hostile_plugins:Babbler"
    serial = 0

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise an error no other task raised."""
        Babbler.serial += 1
        head = f"failure {os.getpid()}-{Babbler.serial} on {puzzle} "
        raise RuntimeError(head.ljust(MESSAGE_CHARS, "x"))


class Repeater(Fake):
    """Fails every task with the same message, as long as `Babbler`'s."""

    name = "hostile_plugins:Repeater"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise the error every task raises."""
        raise RuntimeError("failure".ljust(MESSAGE_CHARS, "x"))


class Formula(Fake):
    """Answers every task ERROR with `message`, text made to run somewhere it is shown."""

    name = "hostile_plugins:Formula"
    message = "=cmd|' /C calc'!A0 <script>alert(\"x\")</script> $\\alpha$ \x1b]0;t\x07\x1b[2J"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """An ERROR result carrying the message as it is."""
        return SolveResult(backend=self.name, status=Status.ERROR, message=self.message)


class DetachAndHang(Fake):
    """Leaves a detached process behind (double fork, `setsid`), then hangs in `solve`."""

    name = "hostile_plugins:DetachAndHang"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Detach a sleeper, then sleep past any limit."""
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 4096)  # holds no pipe of the run: only the kill ends it
                os.execvp("sleep", ["sleep", "302"])
            os._exit(0)
        os.wait()
        time.sleep(3600)
        raise AssertionError("not reached: the harness kills this worker")


class Hog(Fake):
    """Touches `HOG_BYTES` (600 MB) and holds it a moment, then answers truly: over a 200M
    `--memory-limit` its worker is killed while it holds the memory."""

    name = "hostile_plugins:Hog"
    hold = 1.0

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Touch every page of 600 MB, wait, then answer."""
        block = b"\x01" * HOG_BYTES  # (every page written, so it is resident)
        time.sleep(self.hold)
        del block
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class BriefHog(Hog):
    """As `Hog`, but lets go at once: only the task's own peak can tell it went over."""

    name = "hostile_plugins:BriefHog"
    hold = 0.0


#: What `Hog` touches.
HOG_BYTES = 600 * 2**20
