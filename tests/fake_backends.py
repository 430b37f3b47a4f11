"""Misbehaving backends for the harness tests, reachable as `fake_backends:NAME`.

Each one breaks the contract in one way a real solver might, so the harness must catch it:

- `SleepForever`: ignores its timeout and never returns (the worker must be killed).
- `KillSelf`: ends its own process with `os._exit(3)` (the worker dies).
- `Segfault`: crashes its process with SIGSEGV by reading address 0 (the worker dies, -11).
- `Crash`: raises an exception out of `solve` (the worker must turn it into ERROR).
- `WrongSolution`: returns a complete grid that keeps neither the givens nor, when that is not
  enough, its units (the checker must flag it).
- `WrongCount`: claims an exhaustive count one less than the truth (the vote must flag it).
- `SlowHonest`: sleeps 0.2 s and then answers correctly (for kill-and-resume tests).
- `LateHonest`: answers correctly 0.3 s after its timeout, before the kill grace ends.
- `SlowFirstCall`: honest, but its first call in a process takes 1 s longer (a warm-up cost).
- `Sleepy`: honest after sleeping `SUDOKUBENCH_TEST_SLEEP` seconds (a run made slower).
- `Held`: honest, but all puzzles but one wait while a file exists (a run kept going until a
  test has looked at it, however slow the machine).
- `DieOn4x4`, `HangOn4x4`: honest, but a 4x4 puzzle ends the process or never returns (so a
  worker dies or is killed right after quick answers it may not have sent yet).
- `LoadsShapes`: honest, but each shape costs it `SHAPE_LOAD_S` to load once a process, in
  `load_shape` (what a pool's worker calls before its first task of a shape) or else in its
  first solve of the shape (as `native`'s kernel of a shape other than 9x9 costs numba's
  set-up); `HangsLoading6x6`: loads at once, but never returns from loading a 6x6 shape.
- `solve_function`: a plain function puzzle -> solution, as users may pass one.

tests/ is on `sys.path` under pytest; a CLI subprocess needs it on `PYTHONPATH`.
"""

from __future__ import annotations

import ctypes
import dataclasses
import importlib.util
import os
import time

from support import pattern_cells

from sudokubench.backend import SolveResult, make_result
from sudokubench.grid import Grid, is_solution


def honest(puzzle: Grid, limit: int) -> SolveResult:
    """The true answer from a real backend (`fast` when it exists, else `backtracking`)."""
    from sudokubench.solvers import get_backend

    name = "fast" if importlib.util.find_spec("sudokubench.solvers.fast") else "backtracking"
    return get_backend(name).solve(puzzle, limit=limit)


def pattern_grid(puzzle: Grid) -> Grid:
    """A complete grid of the puzzle's shape that is not a solution of it.

    A valid pattern grid, which breaks the givens; when the givens happen to fit it (an empty
    puzzle), the same with two cells of row 1 swapped, which breaks their columns.
    """
    shape = puzzle.shape
    cells = pattern_cells(shape)
    grid = Grid(shape, tuple(cells))
    if is_solution(grid, puzzle):  # the givens happen to fit: swap two cells of row 1
        cells[0], cells[1] = cells[1], cells[0]
        grid = Grid(shape, tuple(cells))
    return grid


class Fake:
    """The parts of the Backend protocol every fake shares."""

    name = "fake"
    practical_n = 25
    handles_hard = True

    def available(self) -> bool:
        """Always: fakes need no library."""
        return True

    def version(self) -> str | None:
        """No library behind a fake."""
        return None


class SleepForever(Fake):
    """Ignores `timeout` and never returns."""

    name = "fake_backends:SleepForever"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Sleep until killed."""
        while True:
            time.sleep(3600)


class KillSelf(Fake):
    """Ends the process it runs in, as a backend that calls exit() in C would."""

    name = "fake_backends:KillSelf"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Exit the process with code 3, no cleanup."""
        os._exit(3)


class Segfault(Fake):
    """Crashes the process with a segmentation fault, as a buggy C extension would."""

    name = "fake_backends:Segfault"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Read address 0."""
        ctypes.string_at(0)
        raise AssertionError("unreachable: reading address 0 did not crash")


class Crash(Fake):
    """Raises out of `solve` instead of returning an ERROR result."""

    name = "fake_backends:Crash"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise RuntimeError."""
        raise RuntimeError("fake crash inside solve")


class WrongSolution(Fake):
    """Returns a complete, valid-looking grid that is not a solution of the puzzle."""

    name = "fake_backends:WrongSolution"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """One wrong grid, claimed SOLVED."""
        return make_result(self.name, [pattern_grid(puzzle)], finished=False)


class WrongCount(Fake):
    """Claims an exhaustive count one less than the truth (a unique puzzle becomes 'no solution').

    On a puzzle with no solution it claims an exhaustive count of one, with a wrong grid.
    """

    name = "fake_backends:WrongCount"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true solutions minus the last one, claimed exhaustive."""
        truth = honest(puzzle, limit)
        if truth.count == 0:
            return make_result(self.name, [pattern_grid(puzzle)], finished=True)
        return make_result(self.name, truth.solutions[:-1], finished=True)


class SlowHonest(Fake):
    """Sleeps 0.2 s, then answers correctly."""

    name = "fake_backends:SlowHonest"
    delay = 0.2

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, late."""
        time.sleep(self.delay)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


def solve_function(puzzle: Grid) -> Grid | None:
    """A plain function: the first solution, or None when there is none."""
    return honest(puzzle, 1).solution


class DieOn4x4(Fake):
    """Honest, except that a 4x4 puzzle ends its process (exit code 3) mid-solve."""

    name = "fake_backends:DieOn4x4"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, or os._exit(3) on a 4x4 grid."""
        if puzzle.n == 4:
            os._exit(3)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class HangOn4x4(Fake):
    """Honest, except that it never returns on a 4x4 puzzle (ignoring its timeout)."""

    name = "fake_backends:HangOn4x4"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, or sleep until killed on a 4x4 grid."""
        while puzzle.n == 4:
            time.sleep(3600)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class LateHonest(Fake):
    """Honest, but answers 0.3 s after its timeout (a backend that overruns its limit yet
    returns before the harness's kill grace is over)."""

    name = "fake_backends:LateHonest"
    overrun = 0.3

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, `overrun` seconds after the timeout (at once without one)."""
        start = time.perf_counter()
        truth = honest(puzzle, limit)
        if timeout is not None:
            time.sleep(max(0.0, start + timeout + self.overrun - time.perf_counter()))
        return dataclasses.replace(truth, backend=self.name)


class SlowFirstCall(Fake):
    """Honest; its first call in a process sleeps 1 s first (imports, caches, a JIT)."""

    name = "fake_backends:SlowFirstCall"
    first = 1.0
    called = False

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, 1 s late on the first call."""
        if not SlowFirstCall.called:
            SlowFirstCall.called = True
            time.sleep(self.first)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class Sleepy(Fake):
    """Honest, after sleeping `SUDOKUBENCH_TEST_SLEEP` seconds (0 when unset): the same backend
    made slower from one run to the next."""

    name = "fake_backends:Sleepy"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, after the sleep."""
        time.sleep(float(os.environ.get("SUDOKUBENCH_TEST_SLEEP", "0")))
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class Held(Fake):
    """Honest after 0.05 s; with `SUDOKUBENCH_TEST_HOLD` naming a file, a puzzle other than
    `HELD_FREE` waits while that file exists (at most `HOLD_MAX_S`): a test removes it once it
    has seen the run going. (A plug-in's worker may write no file outside its own folder, so
    the hold is read, never written.)"""

    name = "fake_backends:Held"
    HOLD_MAX_S = 300.0

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, once the hold is released."""
        time.sleep(0.05)
        hold = os.environ.get("SUDOKUBENCH_TEST_HOLD")
        if hold and str(puzzle) != HELD_FREE:
            end = time.monotonic() + self.HOLD_MAX_S
            while os.path.exists(hold) and time.monotonic() < end:
                time.sleep(0.02)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


#: The puzzle `Held` never holds (the course's one-solution puzzle).
HELD_FREE = "8.9.....7...5.9....35.7.89..2.7.8.1.7.......2.6.1.547..9785423....9.67..5.......6"


class Hostile(Fake):
    """Raises with a message made to escape: a Markdown fence, rich markup, an emoji code,
    a terminal's title and clear-screen sequences."""

    name = "fake_backends:Hostile"
    message = "```\n# owned [bold]x[/bold] :cat: \x1b]0;title\x07\x1b[2J\n```"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Raise RuntimeError with `message`."""
        raise RuntimeError(self.message)


#: Seconds `LoadsShapes` takes to load a shape.
SHAPE_LOAD_S = 1.5


class LoadsShapes(Fake):
    """Honest; a shape costs it `SHAPE_LOAD_S` seconds once a process: in `load_shape`, else in
    its first (timed) solve of that shape."""

    name = "fake_backends:LoadsShapes"
    load_s = SHAPE_LOAD_S

    def __init__(self) -> None:
        self.loaded: set[object] = set()

    def unavailable_reason(self) -> str:
        """Nothing: the whole protocol, so that the harness calls `load_shape` on this object."""
        return ""

    def load_shape(self, shape: object) -> None:
        """The shape loaded: the sleep, and the reference solver's first call."""
        time.sleep(self.load_s)
        honest(Grid.empty(shape), 1)  # type: ignore[arg-type]
        self.loaded.add(shape)

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The true answer, after loading the shape when `load_shape` did not."""
        if puzzle.shape not in self.loaded:
            self.load_shape(puzzle.shape)
        return dataclasses.replace(honest(puzzle, limit), backend=self.name)


class HangsLoading6x6(LoadsShapes):
    """`LoadsShapes` that loads a shape at once, but never returns from `load_shape(6x6)`."""

    name = "fake_backends:HangsLoading6x6"
    load_s = 0.0

    def load_shape(self, shape: object) -> None:
        """The shape loaded, or sleep until killed on 6x6."""
        while getattr(shape, "n", 0) == 6:
            time.sleep(3600)
        super().load_shape(shape)
