"""`pysat:<solver>`: the optimized CNF of `encodings.cnf` through the SAT solvers of PySAT.

Needs the optional extra `sat` (`pip install 'sudokubench[sat]'`, package python-sat);
without it `available()` is false and `sudokubench backends` says how to install it.

Variants: `minisat22`, `cadical195`, `glucose4`, `lingeling`, `maplechrono`, `minicard`
(MiniSat 2.2, CaDiCaL 1.9.5, Glucose 4.1, Lingeling, MapleLCMDistChronoBT, MiniCard). Every one
gets the same formula: the optimized encoding (the smallest; all variables are cell-digit
variables).

Default: `minisat22`. In `benchmarks/models.py` the MiniSat family (minisat22, glucose4,
minicard, maplechrono) is within noise of itself (median encode+solve 1.4-1.6 ms on top1465,
2.1-2.2 ms on top95) and ahead of CaDiCaL (1.9 / 2.6 ms) and Lingeling (2.6 / 3.4 ms); it
counts as fast as any (about 12,900 solutions/s on the `multiple` grid, 18,000 on 100
multisolution5000 puzzles), and it can be interrupted, so a timeout costs no fork.

Counting: the solver is incremental. After each model a blocking clause over the primary
(cell-digit) variables that are true forbids that grid, and the solver is called again, until
it says UNSAT (exhaustive) or `limit` grids are found.

Timeout: the MiniSat family (glucose4, minisat22, maplechrono, minicard) is interrupted: every
call is `solve_limited(expect_interrupt=True)` and a `threading.Timer` calls `interrupt()` at
the deadline (the solver releases the GIL while it runs); between the calls of a count the
deadline is also checked in Python, since an interrupt that arrives then can be lost. PySAT's
CaDiCaL and Lingeling cannot be interrupted, so with a timeout they run in a forked child
process killed at the deadline (`solvers.child`, 5-25 ms more); without a timeout
everything runs in-process.

Stats: `variables`, `clauses` (the formula), and what the solver's `accum_stats()` reports:
`conflicts`, `decisions`, `propagations`, `restarts` (summed over the calls of a count;
missing for solvers that report none).

Limits: any shape; 9x9 in about a millisecond, the empty 25x25 in 0.3 s (minisat22).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import ClassVar

from sudokubench.backend import (
    BaseBackend,
    Deadline,
    DeadlineExceeded,
    SolveResult,
)
from sudokubench.encodings.cnf import Cnf, Encoding, decode, encode
from sudokubench.grid import Grid
from sudokubench.solvers.child import collect_solutions

__all__ = ["INTERRUPTIBLE", "PySat"]

#: The variants PySAT can interrupt (`solve_limited` + `interrupt`); the others fork.
INTERRUPTIBLE = frozenset({"glucose4", "minisat22", "maplechrono", "minicard"})

STAT_KEYS = ("conflicts", "decisions", "propagations", "restarts")


class PySat(BaseBackend):
    """A PySAT solver on the optimized CNF."""

    requires: ClassVar[str | None] = "python-sat"
    install_hint: ClassVar[str] = "pip install 'sudokubench[sat]'"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def __init__(self, solver: str = "minisat22") -> None:
        self.solver = solver
        self.name = f"pysat:{solver}"
        self.forks_for_timeout = solver not in INTERRUPTIBLE

    def available(self) -> bool:
        """Whether python-sat imports and ships this solver."""
        try:
            from pysat.solvers import SolverNames
        except ImportError:
            return False
        return hasattr(SolverNames, self.solver)

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        start = time.perf_counter()
        cnf = encode(puzzle, Encoding.OPTIMIZED)
        encode_s = time.perf_counter() - start
        interrupt = deadline.remaining() is not None and self.solver in INTERRUPTIBLE

        def search(stats: dict[str, int | float]) -> Iterator[Grid]:
            return self._models(puzzle, cnf, deadline if interrupt else None, stats)

        return collect_solutions(
            self.name,
            puzzle.shape,
            search,
            limit,
            deadline,
            encode_s=encode_s,
            fork=self.solver not in INTERRUPTIBLE,
        )

    def _models(
        self, puzzle: Grid, cnf: Cnf, deadline: Deadline | None, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield grids, blocking each; interrupted at `deadline` if one is given."""
        from pysat.solvers import Solver

        stats.update(variables=cnf.num_vars, clauses=len(cnf.clauses))
        with Solver(name=self.solver, bootstrap_with=cnf.clauses) as solver:
            timer = None
            if deadline is not None:
                timer = threading.Timer(deadline.remaining() or 0.0, solver.interrupt)
                timer.daemon = True
                timer.start()
            try:
                while True:
                    if deadline is None:
                        satisfiable = solver.solve()
                    else:  # an interrupt that came while Python ran can be missed: check too
                        deadline.check()
                        satisfiable = solver.solve_limited(expect_interrupt=True)
                    _add_stats(stats, solver)
                    if satisfiable is None:
                        raise DeadlineExceeded
                    if not satisfiable:
                        return
                    model = solver.get_model()
                    yield decode(cnf, model, puzzle)
                    solver.add_clause([-lit for lit in model if lit > 0])
            finally:
                if timer is not None:
                    timer.cancel()


def _add_stats(stats: dict[str, int | float], solver: object) -> None:
    accum = getattr(solver, "accum_stats", None)
    reported = accum() if accum is not None else None
    for key in STAT_KEYS:
        if reported and key in reported:
            stats[key] = reported[key]
