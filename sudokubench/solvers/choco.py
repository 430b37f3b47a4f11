"""`choco`: Choco-solver through pychoco, classic constraint programming.

Library: pychoco, Choco-solver compiled to a native library (a GraalVM native image: no JVM).

Model: one integer variable per cell, domain 1..N (a given's domain is its digit alone), and
one `allDifferent` per row, column and box with Choco's arc-consistent propagator "AC"
(Zhang's improvement of Regin's matching algorithm). Measured on top95 (limit 2, model built
per puzzle, load 8.8 on 2 cores): median 1.4-1.7 ms a puzzle with "AC", 5-8 ms with
"AC_REGIN", 10-14 ms with "DEFAULT" (bounds plus a probabilistic AC) and 14-16 ms with "BC"
(bounds only): arc consistency finds the hidden singles that bounds reasoning misses.

Search: Choco's default strategy for a satisfaction problem; `solve` called again for each
next solution until `limit` are found or it returns false. Each solution is read as soon as it
is found, inside the time limit: `find_all_solutions` reads them after the search, one
variable at a time through the native bridge (about 1.6 us a value), and on the empty 9x9
grid that reading made a 1 s time limit take 1.6 s.

Statuses: `limit` solutions found: the limit stopped the search (not exhaustive). Otherwise the
search state after the last `solve`: TERMINATED, the search ended and the count is exact (no
solution: UNSATISFIABLE); STOPPED, the time limit (TIMEOUT). Any other state (NEW, RUNNING,
KILLED) raises, naming it (an ERROR result).

Timeout: native, Choco's `limit_time` set to the time left, written as Choco parses it
("2.500s"): Choco's parser aborts the whole process on "0s" or "0.0s", so the limit is at
least one millisecond and always has three decimals.

Stats: `nodes`, `fails`, `backtracks`, `restarts` (Choco's counters) and `choco_time`
(Choco's own clock, seconds). The node count is read from `pychoco.backend`: pychoco 0.4's
`Solver.get_node_count` returns the time count (its second definition calls the wrong
function).

Limits: any shape; 9x9 in about 2 ms, the shipped 16x16 and the 25x25 test grid in well
under a second (see docs/paradigms.md). Solutions are copied out of Choco one variable at a
time, so counting a million solutions would be slow: counts here are small.

Roads not taken: the 0/1 cell-digit model (the SAT-style formulation; Choco's strength is
global constraints, so the integer model is the idiomatic one), Choco's parallel portfolio
(two cores shared with the harness's own workers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from sudokubench.grid import Grid
from sudokubench.solvers.modelled import ModelledBackend, Outcome

__all__ = ["ALL_DIFFERENT", "Choco"]

#: Choco's allDifferent propagator (see the module docstring for the measurement).
ALL_DIFFERENT = "AC"


@dataclass(frozen=True)
class _Model:
    """A built Choco model: the model, its cell variables, and the solution limit."""

    model: Any
    cells: list[Any]
    limit: int


class Choco(ModelledBackend):
    """Choco-solver: integer cells, arc-consistent allDifferent, Choco's default search."""

    name = "choco"
    requires: ClassVar[str | None] = "pychoco"
    install_hint: ClassVar[str] = "pip install pychoco"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def _model(self, puzzle: Grid, limit: int) -> _Model:
        """The Choco model of `puzzle` (no search yet)."""
        from pychoco import Model

        model = Model()
        n = puzzle.shape.n
        cells = [model.intvar(d, d) if d else model.intvar(1, n) for d in puzzle.cells]
        for unit in puzzle.shape.units:
            model.all_different([cells[k] for k in unit], ALL_DIFFERENT).post()
        return _Model(model, cells, limit)

    def _search(self, puzzle: Grid, built: _Model, timeout: float | None) -> Outcome:
        """Run Choco's search for up to `built.limit` solutions within `timeout` seconds."""
        from pychoco import backend

        solver = built.model.get_solver()
        if timeout is not None:
            solver.limit_time(choco_duration(timeout))
        solutions: list[Grid] = []
        while len(solutions) < built.limit and solver.solve():  # read inside the time limit
            solutions.append(Grid(puzzle.shape, tuple(v.get_value() for v in built.cells)))
        state = solver.get_search_state()
        if len(solutions) >= built.limit:
            finished = timed_out = False
        elif state == "TERMINATED":
            finished, timed_out = True, False
        elif state == "STOPPED":
            finished, timed_out = False, True
        else:
            raise RuntimeError(f"Choco ended in the search state {state!r}")
        stats = {
            "nodes": backend.get_node_count(solver._handle),
            "fails": solver.get_fail_count(),
            "backtracks": solver.get_backtrack_count(),
            "restarts": solver.get_restart_count(),
            "choco_time": solver.get_time_count(),
        }
        return Outcome(solutions, finished, timed_out, stats)


def choco_duration(seconds: float) -> str:
    """`seconds` as Choco's time-limit text, at least one millisecond: 2.5 -> "2.500s"."""
    millis = max(1, round(seconds * 1000))
    return f"{millis // 1000}.{millis % 1000:03d}s"
