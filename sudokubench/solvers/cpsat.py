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

Timing (the rule of `sudokubench.backend`): `prepare` builds the model and the solver, untimed;
`run`, the timed region, is CP-SAT's `solve` (when counting, the callback only copies each
solution's values); `answer` decodes the solutions.

Timeout: native, `max_time_in_seconds` set to the timeout when `run` starts.

Stats: `branches`, `conflicts` (CP-SAT's counters), `wall_time` (CP-SAT's own clock; the
timing is the harness's, around `run`), `num_workers`, `enumerate` (1 when counting).

Limits: any shape; 9x9 in a few milliseconds, the empty 16x16 in 0.3-0.8 s, the empty
25x25 in about 2 s.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sudokubench.backend import BaseBackend, SolveResult, make_result
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

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: the givens checked, the model built, the solver and its parameters set."""
        from ortools.sat.python import cp_model

        from sudokubench.encodings.cpsat import build

        ready = super().prepare(puzzle, limit)
        if isinstance(ready, SolveResult):
            return ready
        solver = cp_model.CpSolver()
        enumerate_all = limit > 1
        solver.parameters.num_workers = 1 if enumerate_all else SOLVE_WORKERS
        solver.parameters.enumerate_all_solutions = enumerate_all
        collector = _collector(limit) if enumerate_all else None
        return puzzle, limit, build(puzzle, self.formulation), solver, collector

    def run(self, prepared: Any, timeout: float | None) -> Any:
        """Timed: CP-SAT's solve, its time limit the whole timeout; its status, and whether
        it had a time limit."""
        _, _, model, solver, collector = prepared
        if timeout is not None:
            solver.parameters.max_time_in_seconds = timeout
        return solver.solve(model, collector), timeout is not None

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        """Untimed: the status mapped, the solutions decoded, CP-SAT's counters as stats."""
        from ortools.sat.python import cp_model

        from sudokubench.encodings.cpsat import decode

        puzzle, limit, model, solver, collector = prepared
        status, timed = raw
        if collector is not None:
            values = collector.found
        elif status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            values = [solver.response_proto.solution]
        else:
            values = []
        found = [decode(puzzle, self.formulation, v) for v in values[:limit]]
        stats = {
            "branches": solver.num_branches,
            "conflicts": solver.num_conflicts,
            "wall_time": solver.wall_time,
            "num_workers": solver.parameters.num_workers,
            "enumerate": int(collector is not None),
        }
        finished, timed_out = _ending(status, len(found), limit, timed)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT says the model is invalid: {model.validate()}")
        if finished is None:
            raise RuntimeError(f"CP-SAT returned {solver.status_name(status)} unexpectedly")
        return make_result(self.name, found, finished=finished, timed_out=timed_out, stats=stats)


def _collector(limit: int) -> Any:
    """A solution callback that keeps each solution's values (decoded later, untimed) and
    stops the search at `limit`."""
    from ortools.sat.python import cp_model

    class Collector(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[list[int]] = []

        def on_solution_callback(self) -> None:
            self.found.append(list(self.response_proto.solution))
            if len(self.found) >= limit:
                self.stop_search()

    return Collector()


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
