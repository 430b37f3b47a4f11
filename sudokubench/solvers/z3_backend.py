"""`z3`: the SMT solver z3 (package z3-solver) on the pseudo-Boolean model of `encodings.smt`.

Needs the optional extra `smt` (`pip install 'sudokubench[smt]'`); without it `available()`
is false and `sudokubench backends` says how to install it.

Model: cell-digit Booleans with one pseudo-Boolean exactly-one (`pbeq`) per cell and per unit
and digit, chosen by measurement. On top95's first 10 puzzles (a loaded 2-core machine) z3
took 0.8 s of CPU with `pbeq`, 1.5 s with `AtMost`/`AtLeast` cardinalities, and 10 s with the
textbook SMT model, integer cells with `distinct` per unit (z3's arithmetic solver branches on
the integers: 23,781 decisions against 46). The integer model also failed to prove within 10 s
that a 9x9 puzzle where digit 1 has no place in row 1 has no solution (`distinct` says
nothing about where a digit must go), so it is not offered as a variant.

Model building: the formula is SMT-LIB 2 text parsed by z3 (see `encodings.smt` for why) into
a new solver of a z3 context kept per thread (z3 contexts are not thread-safe). Solves share
only that context's hash-consed terms: a fresh `z3.Context` per solve cost 5 ms more CPU a
puzzle (12 against 6.5 ms to build, solving 17 ms either way: top95's first 30, twice each,
loaded 2-core machine).

Counting: after each model, an assertion forbidding that grid's empty-cell values (the givens
are fixed) is added and z3 is asked again (incrementally), until unsat or `limit` grids.
A check per grid: the empty 4x4 grid's 288 solutions took about 1 s of CPU, 872 solutions of
a 9x9 puzzle 6 s (loaded 2-core machine), so `practical_count` is 300.

Statuses: `sat` is a solution, `unsat` proves there is none (or no more); `unknown` whose
reason is z3's `timeout` or `canceled` is a TIMEOUT (keeping the grids found); any other
`unknown` reason, or a model that leaves a cell empty, is an ERROR that names it.

Timeout: native, z3's `timeout` parameter (milliseconds) set to the time left before every
`check`; the deadline is also checked between the checks of a count.

Stats: z3's own counters, summed by z3 over the checks of a count: `conflicts`, `decisions`,
`propagations`, `restarts`, `pb_conflicts`, `pb_propagations` (those z3 reports), plus
`checks` (the number of `check` calls). z3's own `time` is left out: `solve_s` is ours.

Limits: any shape; a 9x9 puzzle in 20 ms to build and about 40 ms to solve, the empty 16x16
in about 0.5 s, the empty 25x25 in about 2 s (practical_n 16).
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

from sudokubench.backend import Deadline, SolveResult, make_result
from sudokubench.encodings.smt import blocking_clause, decode, smtlib
from sudokubench.grid import Grid
from sudokubench.solvers.modelled import Model, SearchedModel

__all__ = ["Z3"]

#: z3's counters copied into `stats` (z3 spells them with dashes).
STAT_KEYS = (
    "conflicts",
    "decisions",
    "propagations",
    "restarts",
    "pb-conflicts",
    "pb-propagations",
)
#: `reason_unknown()` texts that mean our time limit stopped the check.
TIMEOUT_REASONS = frozenset({"timeout", "canceled"})
#: This thread's z3 context (`_context`).
_local = threading.local()


class Z3(SearchedModel):
    """z3 on Sudoku as pseudo-Boolean SMT."""

    name = "z3"
    requires: ClassVar[str | None] = "z3-solver"
    install_hint: ClassVar[str] = "pip install 'sudokubench[smt]'"
    practical_n: ClassVar[int] = 16
    handles_hard: ClassVar[bool] = True
    practical_count: ClassVar[int] = 300  # a check per grid: see "Counting" above

    def _model(self, puzzle: Grid, limit: int) -> Model:
        """Parse the puzzle's formula into a new solver (of this thread's context)."""
        import z3

        solver = z3.Solver(ctx=_context())
        solver.from_string(smtlib(puzzle))
        return Model(puzzle, solver, limit)

    def _search(self, model: Model, deadline: Deadline) -> SolveResult:
        """Check, block, check again until unsat, `limit` grids, or the deadline."""
        import z3

        solver, puzzle = model.handle, model.puzzle
        found: list[Grid] = []
        finished = timed_out = False
        checks = 0
        start = time.perf_counter()
        while len(found) < model.limit:
            remaining = deadline.remaining()
            if remaining is not None:
                if remaining <= 0:
                    timed_out = True
                    break
                solver.set("timeout", max(1, int(remaining * 1000)))  # 0 would mean none
            outcome = solver.check()
            checks += 1
            if outcome == z3.unsat:
                finished = True
                break
            if outcome == z3.unknown:
                reason = solver.reason_unknown()
                if reason not in TIMEOUT_REASONS:
                    raise RuntimeError(f"z3 answered unknown: {reason}")
                timed_out = True
                break
            if outcome != z3.sat:
                raise RuntimeError(f"z3 returned {outcome} unexpectedly")
            grid = decode(puzzle, solver.model().sexpr())
            if 0 in grid.cells:
                raise RuntimeError("z3's model leaves a cell without a digit")
            found.append(grid)
            solver.from_string(blocking_clause(grid, puzzle))
        solve_s = time.perf_counter() - start
        return make_result(
            self.name,
            found,
            finished=finished,
            timed_out=timed_out,
            solve_s=solve_s,
            stats=_stats(solver.statistics(), checks),
        )


def _context() -> Any:
    """This thread's z3 context, made on first use."""
    import z3

    context = getattr(_local, "context", None)
    if context is None:
        context = _local.context = z3.Context()
    return context


def _stats(statistics: Any, checks: int) -> dict[str, int | float]:
    """z3's counters among STAT_KEYS (underscored), and our number of checks."""
    reported = {key: statistics.get_key_value(key) for key in statistics.keys()}  # noqa: SIM118
    stats: dict[str, int | float] = {
        key.replace("-", "_"): reported[key] for key in STAT_KEYS if key in reported
    }
    stats["checks"] = checks
    return stats
