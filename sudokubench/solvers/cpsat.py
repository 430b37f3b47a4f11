"""`cpsat:<formulation>`: Google OR-Tools CP-SAT on the models of `encodings.cpsat`.

Variants: `integer` (default: cells 1..N with AllDifferent per unit, givens as fixed domains)
and `boolean` (0/1 cell-digit variables with ExactlyOne constraints).

Solving: for limit 1 one `solve` with `SOLVE_WORKERS` search workers. CP-SAT's default is one
worker per core (a portfolio); on Sudoku the portfolio only adds thread start-up: in
`benchmarks/models.py` on a 2-core machine the median solve over top1465 took 4.1 ms with 1
worker and 5.4 ms with the default (top95: 4.9 and 6.3 ms), so 1 it is.
Counting (limit > 1) uses `enumerate_all_solutions` with a solution callback that stops the
search at `limit`; CP-SAT enumerates with one worker only.

Statuses: FEASIBLE and OPTIMAL both mean a solution was found (when enumerating, OPTIMAL means
every solution was); INFEASIBLE means none exists; UNKNOWN after the time limit is a TIMEOUT;
MODEL_INVALID, an UNKNOWN without the time limit, or any other status raise (an ERROR result).

Timeout: native, `max_time_in_seconds` set to the time left.

Stats: `branches`, `conflicts` (CP-SAT's counters), `wall_time` (CP-SAT's own clock; our
`solve_s` is perf_counter around the call), `num_workers`, `enumerate` (1 when counting).

Limits: any shape; 9x9 in a few milliseconds, the empty 16x16 in 0.3-0.8 s, the empty
25x25 in about 2 s.
"""

from __future__ import annotations

import time
from typing import ClassVar

from sudokubench.backend import BaseBackend, Deadline, SolveResult, make_result
from sudokubench.grid import Grid

__all__ = ["SOLVE_WORKERS", "CpSat"]

#: Search workers for a single solve (see the module docstring for the measurement).
SOLVE_WORKERS = 1


class CpSat(BaseBackend):
    """OR-Tools CP-SAT, integer or Boolean formulation."""

    requires: ClassVar[str | None] = "ortools"
    install_hint: ClassVar[str] = "pip install ortools"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def __init__(self, formulation: str = "integer") -> None:
        from sudokubench.encodings.cpsat import Formulation

        self.formulation = Formulation(formulation)
        self.name = f"cpsat:{self.formulation.value}"

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        from ortools.sat.python import cp_model

        from sudokubench.encodings.cpsat import build, decode

        start = time.perf_counter()
        model = build(puzzle, self.formulation)
        encode_s = time.perf_counter() - start
        solver = cp_model.CpSolver()
        remaining = deadline.remaining()
        if remaining is not None:
            solver.parameters.max_time_in_seconds = remaining
        enumerate_all = limit > 1
        solver.parameters.num_workers = 1 if enumerate_all else SOLVE_WORKERS
        solver.parameters.enumerate_all_solutions = enumerate_all
        formulation = self.formulation

        class Collector(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()
                self.found: list[Grid] = []

            def on_solution_callback(self) -> None:
                self.found.append(decode(puzzle, formulation, self.response_proto.solution))
                if len(self.found) >= limit:
                    self.stop_search()

        collector = Collector()
        start = time.perf_counter()
        status = solver.solve(model, collector if enumerate_all else None)
        solve_s = time.perf_counter() - start
        found = collector.found
        if not enumerate_all and status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            found = [decode(puzzle, formulation, solver.response_proto.solution)]
        stats = {
            "branches": solver.num_branches,
            "conflicts": solver.num_conflicts,
            "wall_time": solver.wall_time,
            "num_workers": solver.parameters.num_workers,
            "enumerate": int(enumerate_all),
        }
        finished, timed_out = _ending(status, len(found), limit, remaining is not None)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT says the model is invalid: {model.validate()}")
        if finished is None:
            raise RuntimeError(f"CP-SAT returned {solver.status_name(status)} unexpectedly")
        return make_result(
            self.name,
            found[:limit],
            finished=finished,
            timed_out=timed_out,
            encode_s=encode_s,
            solve_s=solve_s,
            stats=stats,
        )


def _ending(status: int, found: int, limit: int, timed: bool) -> tuple[bool | None, bool]:
    """(finished, timed_out) for every CP-SAT status; (None, False) for one that should not
    happen (MODEL_INVALID, or UNKNOWN without a time limit)."""
    from ortools.sat.python import cp_model

    if status == cp_model.INFEASIBLE:
        return True, False
    if status == cp_model.OPTIMAL:
        return found < limit, False
    if status == cp_model.FEASIBLE:
        return False, found < limit
    if status == cp_model.UNKNOWN and timed:  # the time limit
        return False, True
    return None, False
