"""`highs`: the MIP solver HiGHS (package highspy) on the 0/1 assignment model of `encodings.mip`.

Needs the optional extra `mip` (`pip install 'sudokubench[mip]'`); without it `available()`
is false and `sudokubench backends` says how to install it.

Model: N**3 binary columns (cell, digit), "exactly one" equality rows per cell and per unit
and digit, zero objective, givens as lower bounds of 1; HiGHS's presolve removes the givens'
peers, and a 9x9 puzzle is usually solved at the root, without branching (0 nodes for the
median top95 puzzle). The row arrays are built once per shape and handed over in one
`addRows` call.

Counting: by no-good cuts on the 0/1 columns. After each solution a row "the empty cells'
chosen columns sum to at most their number - 1" forbids it, and HiGHS solves again (each
solve is a new branch and bound), until infeasible or `limit` grids. So counting costs one MIP
per solution, and the cuts pile up and make each solve slower: the 28-solution grid took
0.7 s of CPU, the empty 4x4 grid's 288 solutions 11 s (on a loaded 2-core machine), where
clingo enumerates the 288 in under 0.1 s. So `practical_count` is 30. Options tried
and left at HiGHS's defaults (same CPU within 10-20%): presolve off, symmetry detection off,
primal heuristics off, restarts off. A stronger valid cut (two grids differ in at least 4
cells, so "at most their number - 4") saved about a third and is not used: it is an argument
about Sudoku, not a no-good. HiGHS has a lazy-constraint callback type, but highspy 1.16's
callback data has no field to return a row through, so the cuts cannot go into one branch
and bound.

Statuses (HiGHS's model status after each `run`): `Optimal` is a solution (any feasible point
is optimal), `Infeasible` proves there is none (or no more), `Time limit reached` is a
TIMEOUT keeping the grids found; every other status (load, model, presolve, solve or
postsolve error, unbounded, iteration, solution or memory limit, interrupt, not set, ...) is an
ERROR that names it, as is a failed `run` call.

Timeout: native, HiGHS's `time_limit` option set to the time left before every solve; the
deadline is also checked between the solves of a count.

Stats: summed over the solves of a count from HiGHS's info: `nodes` (branch-and-bound
nodes), `lp_iterations` (simplex iterations); plus `solves`, and the model's `columns` and
`rows` (before presolve, cuts included).

Threads: `threads` is 1, so a worker does not start HiGHS's thread pool beside the other
workers of a run (`parallel` on or off cost the same here: 1.5 ms of CPU a solve of the 4x4
model).

Output: HiGHS prints a banner on standard output from C++ when the first solver of a process
is made, before any option can silence it; that first construction runs with file
descriptor 1 pointed at /dev/null, so `solve --json` output stays clean.

Limits: any shape; a 9x9 puzzle in 10-20 ms, a 16x16 in 0.1-0.3 s; the empty 25x25 in about
2 s (practical_n 16).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any, ClassVar

from sudokubench.backend import Deadline, SolveResult, make_result
from sudokubench.encodings.mip import decode, lower_bounds, no_good, rows
from sudokubench.grid import Grid
from sudokubench.solvers.modelled import Model, SearchedModel

__all__ = ["Highs"]

#: Whether this process already made a HiGHS solver (and so saw its banner).
_banner_shown = False


class Highs(SearchedModel):
    """HiGHS on the 0/1 assignment model, counting by no-good cuts."""

    name = "highs"
    requires: ClassVar[str | None] = "highspy"
    install_hint: ClassVar[str] = "pip install 'sudokubench[mip]'"
    practical_n: ClassVar[int] = 16
    handles_hard: ClassVar[bool] = True
    practical_count: ClassVar[int] = 30  # one MIP per grid: see "Counting" above

    def _model(self, puzzle: Grid, limit: int) -> Model:
        """A silent single-threaded HiGHS holding the puzzle's columns and rows."""
        import highspy
        import numpy as np

        with _quiet_first_construction():
            highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        lower = np.array(lower_bounds(puzzle))
        highs.addVars(len(lower), lower, np.ones(len(lower)))
        integer = highspy.HighsVarType.kInteger
        highs.changeColsIntegrality(len(lower), np.arange(len(lower)), np.full(len(lower), integer))
        shape_rows = rows(puzzle.shape)
        highs.addRows(
            shape_rows.count,
            np.ones(shape_rows.count),
            np.ones(shape_rows.count),
            len(shape_rows.indices),
            np.array(shape_rows.starts, dtype=np.int32),
            np.array(shape_rows.indices, dtype=np.int32),
            np.ones(len(shape_rows.indices)),
        )
        return Model(puzzle, highs, limit)

    def _search(self, model: Model, deadline: Deadline) -> SolveResult:
        """Solve, cut the solution off, solve again until infeasible, `limit`, or the deadline."""
        import highspy

        highs, puzzle = model.handle, model.puzzle
        status_type = highspy.HighsModelStatus
        found: list[Grid] = []
        finished = timed_out = False
        start = time.perf_counter()
        while len(found) < model.limit:
            remaining = deadline.remaining()
            if remaining is not None:
                if remaining <= 0:
                    timed_out = True
                    break
                highs.setOptionValue("time_limit", remaining)
            ran = highs.run()
            _add_stats(model.stats, highs)
            status = highs.getModelStatus()
            if ran == highspy.HighsStatus.kError:
                raise RuntimeError(f"HiGHS failed: {highs.modelStatusToString(status)}")
            if status == status_type.kInfeasible:
                finished = True
                break
            if status == status_type.kTimeLimit:
                timed_out = True
                break
            if status != status_type.kOptimal:
                raise RuntimeError(f"HiGHS ended with {highs.modelStatusToString(status)!r}")
            grid = decode(puzzle, highs.getSolution().col_value)
            found.append(grid)
            columns, most = no_good(grid, puzzle)
            if not columns:  # a full grid: its one solution is the only one
                finished = True
                break
            highs.addRow(-highs.inf, most, len(columns), columns, [1.0] * len(columns))
        solve_s = time.perf_counter() - start
        model.stats.update(columns=highs.getNumCol(), rows=highs.getNumRow())
        return make_result(
            self.name,
            found,
            finished=finished,
            timed_out=timed_out,
            solve_s=solve_s,
            stats=model.stats,
        )


def _add_stats(stats: dict[str, int | float], highs: Any) -> None:
    """Add one solve's node and simplex-iteration counts to `stats`."""
    info = highs.getInfo()
    stats["nodes"] = stats.get("nodes", 0) + max(0, info.mip_node_count)
    stats["lp_iterations"] = stats.get("lp_iterations", 0) + max(0, info.simplex_iteration_count)
    stats["solves"] = stats.get("solves", 0) + 1


@contextlib.contextmanager
def _quiet_first_construction() -> Iterator[None]:
    """Send file descriptor 1 to /dev/null while the process's first HiGHS is made."""
    global _banner_shown
    if _banner_shown:
        yield
        return
    _banner_shown = True
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
        yield
    finally:
        _flush_c_stdout()
        os.dup2(saved, 1)
        os.close(saved)


def _flush_c_stdout() -> None:
    """Flush C's stdout buffer, so the banner goes to /dev/null and not later to fd 1."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)
