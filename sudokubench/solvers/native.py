"""`native`: a bitset solver and counter compiled by numba, for any box shape up to 35 digits.

Algorithm (the kernel, `native_kernel.py`): int64 candidate bitsets, naked and hidden singles,
box-line reduction while more than `LAST_CELLS` cells are open, fewest-candidates branching on
an explicit stack whose levels are blocks of one array; see that module's docstring.

Timeout: cooperative. The kernel returns to Python every `BUDGET` nodes (about a millisecond
on 9x9) with its whole state in arrays; the deadline is checked there and the search resumes,
so there is no clock in the hot loop. A timeout keeps the solutions found so far.

Stats: `nodes` (digits tried), `guesses` (branch points), `backtracks` (nodes that ended in a
contradiction), `max_depth` (deepest stack level), `hidden_singles`, `locked_eliminations`.

Compilation: `@njit(cache=True)` compiles each kernel function once per machine into numba's
on-disk cache (a `__pycache__` beside the kernel module, or numba's per-user cache directory
when that one is not writable; `NUMBA_CACHE_DIR` overrides both). `warm()` (run by
`sudokubench backends --warm`, or by the first solve) compiles or loads it; worker processes
load the cached machine code. `solve` never times compilation: `encode_s` holds the one-off
load, `solve_s` the search.

Beyond the contract: `count_all` counts every solution of a grid at kernel speed keeping only
the first few as grids, and `estimate` runs Knuth's estimator for grids whose solutions are too
many to enumerate.

Limits: without numba the backend is not ready (`pip install 'sudokubench[native]'`).
Roads not taken: tdoku's band-of-three SIMD layout and JCZSolve's per-digit band bitmaps are
faster on 9x9 but fixed to it; one cell-major layout serves every shape.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, ClassVar

from sudokubench.backend import (
    BaseBackend,
    Deadline,
    SolveResult,
    Status,
    make_result,
    package_version,
)
from sudokubench.grid import Grid, Shape

#: Nodes the kernel searches between two deadline checks (about 1 ms on 9x9 puzzles).
BUDGET = 4096
#: Solutions written by the kernel per call before Python turns them into grids.
ROWS = 256
#: Grids `count_all` keeps besides the count.
KEEP = 10
#: Probes per kernel call of the estimator, between two clock checks.
PROBES_PER_CALL = 256


@dataclass(frozen=True)
class Tables:
    """The arrays the kernel needs for one shape (numpy arrays; `kernel` is a tuple of them)."""

    shape: Shape
    full: int  # every digit's bit
    kernel: tuple[Any, ...]  # peers, units, units of each cell, scratch, segment tables


@cache
def tables(shape: Shape) -> Tables:
    """Peers, units and box-line segments of `shape` as int32 arrays."""
    import numpy as np

    n = shape.n
    peers = np.array([sorted(p) for p in shape.peers], dtype=np.int32)
    units = np.array(shape.units, dtype=np.int32)
    seg_cells: list[tuple[int, ...]] = []
    seg_line: list[tuple[int, int]] = []
    seg_box: list[tuple[int, int]] = []
    lines_of = (shape.rows, shape.cols)
    for direction, lines in enumerate(lines_of):
        for line_no, line in enumerate(lines):
            for box_no, box in enumerate(shape.boxes):
                common = tuple(k for k in line if k in set(box))
                if common:
                    seg_cells.append(common)
                    seg_line.append((direction, line_no))
                    seg_box.append((direction, box_no))
    nseg = len(seg_cells)
    segs = range(nseg)

    def padded(rows: list[list[int]], fill: int) -> Any:
        width = max(1, *(len(r) for r in rows))
        return np.array([r + [fill] * (width - len(r)) for r in rows], dtype=np.int32)

    line_others = [[o for o in segs if o != s and seg_line[o] == seg_line[s]] for s in segs]
    box_others = [[o for o in segs if o != s and seg_box[o] == seg_box[s]] for s in segs]
    line_rest = [
        [k for k in lines_of[seg_line[s][0]][seg_line[s][1]] if k not in seg_cells[s]] for s in segs
    ]
    box_rest = [[k for k in shape.boxes[seg_box[s][1]] if k not in seg_cells[s]] for s in segs]
    cell_units = np.array([(r, n + c, 2 * n + b) for r, c, b in shape.cell_units], dtype=np.int32)
    kernel = (
        peers,
        units,
        cell_units,
        np.ones(3 * n, dtype=np.int8),  # scratch: the units to look at again
        padded([list(c) for c in seg_cells], 0),
        np.array([len(c) for c in seg_cells], dtype=np.int32),
        padded(line_others, nseg),  # segment `nseg` is an always-empty dummy
        padded(box_others, nseg),
        padded(line_rest, -1),
        padded(box_rest, -1),
        np.zeros(nseg + 1, dtype=np.int64),
    )
    return Tables(shape, (1 << n) - 1, kernel)


class Run:
    """One resumable search of one puzzle: the kernel's arrays and a loop around it.

    The big arrays (a block of candidates per stack level) belong to the shape and are reused
    from run to run: a process searches one puzzle at a time.
    """

    def __init__(self, puzzle: Grid, rows: int) -> None:
        import numpy as np

        from sudokubench.solvers import native_kernel as nk

        self.kernel = nk
        self.puzzle = puzzle
        self.tab = tables(puzzle.shape)
        self.cand, self.open_at, self.branch_at, self.todo_at, self.queue = _workspace(puzzle.shape)
        self.givens = np.frombuffer(bytes(puzzle.cells), dtype=np.uint8)
        self.st = nk.empty_state()
        self.sols = np.zeros((rows, puzzle.shape.cells), dtype=np.uint8)

    def step(self, limit: int, budget: int, drain: bool) -> int:
        """One call of the kernel: FINISHED, LIMIT, PAUSED or FULL."""
        return self.kernel.search(
            self.cand, self.open_at, self.branch_at, self.todo_at, self.queue, self.givens,
            self.tab.kernel, self.tab.full, self.st, self.sols, limit, budget, drain,
        )  # fmt: skip

    def take(self) -> list[Grid]:
        """The grids written since the last `take`, and room for more."""
        saved = int(self.st[self.kernel.SAVED])
        self.st[self.kernel.SAVED] = 0
        shape = self.puzzle.shape
        # The kernel wrote digits 1..N into every cell: the checks of Grid() are not needed.
        return [Grid._unchecked(shape, tuple(row)) for row in self.sols[:saved].tolist()]

    def stats(self) -> dict[str, int | float]:
        """The kernel's counters under the contract's names."""
        nk, st = self.kernel, self.st
        return {
            "nodes": int(st[nk.NODES]),
            "guesses": int(st[nk.GUESSES]),
            "backtracks": int(st[nk.BACKTRACKS]),
            "max_depth": int(st[nk.MAX_DEPTH]),
            "hidden_singles": int(st[nk.HIDDEN]),
            "locked_eliminations": int(st[nk.LOCKED]),
        }


@cache
def _workspace(shape: Shape) -> tuple[Any, ...]:
    """The stack of one shape: candidate blocks, open cells, branch cells, untried digits, queue."""
    import numpy as np

    cells = shape.cells
    levels = cells + 2
    return (
        np.zeros(levels * cells, dtype=np.int64),
        np.zeros(levels, dtype=np.int64),
        np.zeros(levels, dtype=np.int64),
        np.zeros(levels, dtype=np.int64),
        np.zeros(cells + 2, dtype=np.int64),
    )


@dataclass(frozen=True)
class Count:
    """An exhaustive (or timed-out) count: the number, and only the first `KEEP` grids."""

    backend: str
    count: int
    exhaustive: bool
    first: tuple[Grid, ...]
    solve_s: float
    stats: MappingProxyType[str, int | float]


@dataclass(frozen=True)
class Estimate:
    """Knuth's estimate of a grid's number of solutions from `probes` random probes."""

    mean: float
    standard_error: float
    probes: int
    seconds: float

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval (normal approximation), clipped at 0."""
        half = 1.959964 * self.standard_error
        return max(0.0, self.mean - half), self.mean + half

    @property
    def relative_error(self) -> float:
        """The standard error relative to the estimate (inf for an estimate of 0)."""
        return self.standard_error / self.mean if self.mean else math.inf


class Native(BaseBackend):
    """Bitsets, singles, box-line reduction, fewest-candidates branching, compiled by numba."""

    name = "native"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True
    requires: ClassVar[str | None] = "numba"
    install_hint: ClassVar[str] = "pip install 'sudokubench[native]'"

    def available(self) -> bool:
        """Whether numba imports here."""
        try:
            import numba  # noqa: F401
        except ImportError:
            return False
        return True

    def version(self) -> str | None:
        """numba's version."""
        return package_version("numba")

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Find up to `limit` solutions of `puzzle` within `timeout` seconds.

        Unlike the other backends this does not ask `Grid.is_valid` first: the kernel finds
        conflicting givens itself (placing one given removes the other's only candidate), for
        a fortieth of the cost.
        """
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        if timeout is not None and timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout!r}")
        try:
            return self._solve(puzzle, limit, Deadline(timeout))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a backend failure is a result, the run goes on
            return SolveResult(self.name, Status.ERROR, message=f"{type(exc).__name__}: {exc}")

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        encode = time.perf_counter()
        warm()
        run = Run(puzzle, min(limit, ROWS))
        start = time.perf_counter()
        found: list[Grid] = []
        nk = run.kernel
        while True:
            code = run.step(limit, BUDGET, True)
            if code == nk.FULL:
                found += run.take()
            elif code != nk.PAUSED:
                break
            if deadline.expired():
                break
        found += run.take()
        solve_s = time.perf_counter() - start
        return make_result(
            self.name,
            found,
            finished=code == nk.FINISHED,
            timed_out=code in (nk.PAUSED, nk.FULL),
            encode_s=start - encode,
            solve_s=solve_s,
            stats=run.stats(),
        )

    def count_all(self, puzzle: Grid, *, timeout: float | None = None) -> Count:
        """Count every solution of `puzzle` (until `timeout`), keeping only the first `KEEP`."""
        warm()
        start = time.perf_counter()
        deadline = Deadline(timeout, start)
        run = Run(puzzle, KEEP)
        nk = run.kernel
        code = nk.PAUSED
        if puzzle.is_valid():
            while True:
                code = run.step(sys.maxsize, BUDGET * 16, False)
                if code != nk.PAUSED or deadline.expired():
                    break
        else:
            code = nk.FINISHED
        return Count(
            self.name,
            int(run.st[nk.COUNT]),
            code == nk.FINISHED,
            tuple(run.take()),
            time.perf_counter() - start,
            MappingProxyType(run.stats()),
        )

    def estimate(
        self,
        puzzle: Grid,
        *,
        seconds: float = 10.0,
        probes: int | None = None,
        seed: int = 1,
    ) -> Estimate:
        """Knuth's estimate of the number of solutions: probes until `seconds` or `probes`."""
        import numpy as np

        warm()
        start = time.perf_counter()
        deadline = Deadline(seconds, start)
        if not puzzle.is_valid():
            return Estimate(0.0, 0.0, 0, 0.0)
        run = Run(puzzle, 1)
        nk = run.kernel
        rng = np.array([(seed * 0x9E3779B97F4A7C15 + 1) & 0x7FFFFFFFFFFFFFFF], dtype=np.int64)
        acc = np.zeros(3, dtype=np.float64)
        while probes is None or acc[0] < probes:
            batch = PROBES_PER_CALL if probes is None else min(PROBES_PER_CALL, probes - acc[0])
            nk.probes(
                run.cand, run.open_at, run.queue, run.givens, run.tab.kernel, run.tab.full,
                run.st, rng, acc, int(batch),
            )  # fmt: skip
            if probes is None and deadline.expired():
                break
        done = int(acc[0])
        variance = acc[2] / (done - 1) if done > 1 else 0.0
        return Estimate(
            float(acc[1]), math.sqrt(variance / done), done, time.perf_counter() - start
        )


@cache
def warm() -> float:
    """Compile (first time on this machine) or load (from numba's cache) the kernel; seconds.

    A 4x4 search, count and probe go through every kernel function once, so later calls in
    this process run machine code straight away.
    """
    start = time.perf_counter()
    puzzle = Grid.empty(Shape(2, 2))
    run = Run(puzzle, 1)
    run.step(1, BUDGET, True)
    run = Run(puzzle, 1)
    run.step(sys.maxsize, BUDGET, False)
    import numpy as np

    nk = run.kernel
    rng = np.array([1], dtype=np.int64)
    acc = np.zeros(3, dtype=np.float64)
    nk.probes(run.cand, run.open_at, run.queue, run.givens, run.tab.kernel, run.tab.full,
              run.st, rng, acc, 1)  # fmt: skip
    return time.perf_counter() - start
