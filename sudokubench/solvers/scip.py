"""`scip`: SCIP through PySCIPOpt, mixed-integer programming with constraint handlers.

Library: PySCIPOpt (its wheel bundles SCIP itself).

Model: the 0/1 assignment model over the candidates: one binary variable per empty cell and
digit that no given peer holds, an exactly-one constraint per empty cell and one per unit and
digit not given in that unit (linear equalities; SCIP recognises them as set partitioning).
No objective: a feasibility problem. Leaving the givens' consequences out of the model is what
made 16x16 practical: the full N**3 model (a given's variable fixed to 1) took 0.2-0.45 s to
build for showcase line 40 in PySCIPOpt and 2.7 s in all under load. SCIP's presolve alone
settles most 9x9 puzzles (0 branch-and-bound nodes on top95's first 20).

Solving and counting: one code path, SCIP's own solution counter (`count`, with
`setParamsCountsols`, which turns off the reductions that would lose solutions) stopped at
`limit` solutions by `constraints/countsols/sollimit`. The counter keeps only a number, and
PySCIPOpt does not expose SCIP's collected solutions, so a small constraint handler of ours
(`_Recorder`) sits just before SCIP's counting handler (enforcement and check priority one
above it, so every other constraint has already accepted the assignment) and records each
assignment it is shown; duplicates are dropped. The count is exact when the search ends:
every solution it counted was recorded, and a mismatch between SCIP's number and ours is an
ERROR naming both. Where the counter is not exact: after a timeout SCIP's number is a lower
bound and may lag one or two solutions behind the recorded ones (recorded, not yet counted,
when the clock stopped); all recorded solutions are returned. Measured on top95's first 20
puzzles (limit 1, load 8.6): the counter path took 0.8-1.3 s, `optimize` 1.1 s, so counting
costs a single solve nothing and one path it is.

Statuses (`getStatus` after `count`): "infeasible" means the counter exhausted the search
(every solution was counted and cut off: UNSATISFIABLE when there were none, else an exact
count); "userinterrupt" means the solution limit stopped it; "timelimit" is a TIMEOUT; any
other status raises, naming it (an ERROR result).

Timeout: native, `limits/time` set to the time left.

Stats: `nodes` (branch-and-bound nodes), `lp_iterations`, `counted` (SCIP's counter),
`scip_time` (SCIP's own clock).

Limits: any shape; 9x9 in tens of milliseconds, showcase line 40 (16x16) in 0.1-0.2 s, the
25x25 test grids in 0.2-0.5 s (load 11 on 2 cores). The first solve in a process takes 1-3 s
more: SCIP loading its plug-ins.

Roads not taken: no-good cuts and a fresh solve per solution (what `highs` does: MIP solvers
without a counter need it; SCIP's counter keeps one search tree); the integer model with
`alldifferent` (SCIP has no native allDifferent; linearising it gives back this model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from sudokubench.grid import Grid
from sudokubench.solvers.modelled import ModelledBackend, Outcome

__all__ = ["Scip"]

#: SCIP's counting handler (cons_countsols) enforces and checks at this priority; ours runs
#: just before it.
COUNTSOLS_PRIORITY = -9_999_999


@dataclass
class _Model:
    """A built SCIP model: the model, its variables by (cell, digit), and the recorder."""

    scip: Any
    x: dict[tuple[int, int], Any]
    recorder: Any
    limit: int


class Scip(ModelledBackend):
    """SCIP: the 0/1 assignment model, solved and counted by SCIP's solution counter."""

    name = "scip"
    requires: ClassVar[str | None] = "pyscipopt"
    install_hint: ClassVar[str] = "pip install pyscipopt"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def _model(self, puzzle: Grid, limit: int) -> _Model:
        """The SCIP model of `puzzle`, set up to count up to `limit` solutions (no search)."""
        from pyscipopt import Model

        scip = Model()
        scip.hideOutput()
        n = puzzle.shape.n
        x = {
            (k, d): scip.addVar(f"r{k // n + 1}c{k % n + 1}#{d}", vtype="B")
            for k, given in enumerate(puzzle.cells)
            if not given
            for d in puzzle.candidates(k)
        }
        for k, given in enumerate(puzzle.cells):
            if not given:
                _exactly_one(scip, [x[k, d] for d in puzzle.candidates(k)])
        for unit in puzzle.shape.units:
            placed = {puzzle.cells[k] for k in unit}
            for d in range(1, n + 1):
                if d not in placed:
                    _exactly_one(scip, [x[k, d] for k in unit if (k, d) in x])
        recorder = _recorder(x)
        scip.includeConshdlr(
            recorder,
            "sudokubench_recorder",
            "records each assignment before SCIP's counter counts it",
            enfopriority=COUNTSOLS_PRIORITY + 1,
            chckpriority=COUNTSOLS_PRIORITY + 1,
            needscons=False,
        )
        scip.setParamsCountsols()
        # Without this the counter counts a subtree whose free variables are unconstrained as
        # 2**free solutions at once (a "sparse" solution) and the recorder sees only one.
        scip.setParam("constraints/countsols/sparsetest", False)
        scip.setParam("constraints/countsols/sollimit", limit)
        return _Model(scip, x, recorder, limit)

    def _search(self, puzzle: Grid, built: _Model, timeout: float | None) -> Outcome:
        """Count up to `built.limit` solutions within `timeout` seconds."""
        scip = built.scip
        if timeout is not None:
            scip.setParam("limits/time", timeout)
        scip.count()
        status = scip.getStatus()
        counted = scip.getNCountedSols()
        solutions = [_grid(puzzle, assignment) for assignment in built.recorder.found]
        stats = {
            "nodes": scip.getNNodes(),
            "lp_iterations": scip.getNLPIterations(),
            "counted": counted,
            "scip_time": scip.getSolvingTime(),
        }
        if status == "infeasible":
            if counted != len(solutions):
                raise RuntimeError(f"SCIP counted {counted} solutions, {len(solutions)} recorded")
            return Outcome(solutions, True, False, stats)
        if status == "userinterrupt" and counted >= built.limit:
            return Outcome(solutions[: built.limit], False, False, stats)
        if status == "timelimit":
            return Outcome(solutions[: built.limit], False, True, stats)
        raise RuntimeError(f"SCIP returned the status {status!r} while counting")


def _exactly_one(scip: Any, variables: list[Any]) -> None:
    """Exactly one of `variables` is 1; with none, a constraint no assignment meets (a cell
    without a candidate, a digit without a place), which SCIP proves infeasible."""
    from pyscipopt import quicksum

    if not variables:
        variables = [scip.addVar("impossible", vtype="B", ub=0)]
    scip.addCons(quicksum(variables) == 1)


def _grid(puzzle: Grid, assignment: frozenset[tuple[int, int]]) -> Grid:
    """The puzzle with a set of (cell, digit) pairs set to 1 filled in; every empty cell gets
    exactly one digit or it raises."""
    cells = list(puzzle.cells)
    for k, d in assignment:
        if cells[k]:
            raise RuntimeError(f"SCIP gave cell {k} two digits")
        cells[k] = d
    if not all(cells):
        raise RuntimeError("SCIP gave an assignment with an empty cell")
    return Grid(puzzle.shape, tuple(cells))


def _recorder(x: dict[tuple[int, int], Any]) -> Any:
    """A constraint handler that records every assignment it is asked to enforce or check.

    It accepts everything (it constrains nothing, so it needs no locks); SCIP's counter, which
    runs after it, counts the assignment and cuts it off.
    """
    from pyscipopt import SCIP_RESULT, Conshdlr

    class Recorder(Conshdlr):
        def __init__(self) -> None:
            self.found: list[frozenset[tuple[int, int]]] = []
            self.seen: set[frozenset[tuple[int, int]]] = set()

        def record(self, solution: Any) -> dict[str, Any]:
            value = self.model.getSolVal
            ones = frozenset(key for key, v in x.items() if value(solution, v) > 0.5)
            if ones not in self.seen:
                self.seen.add(ones)
                self.found.append(ones)
            return {"result": SCIP_RESULT.FEASIBLE}

        def consenfolp(self, constraints, nusefulconss, solinfeasible):
            return self.record(None)

        def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
            return self.record(None)

        def conscheck(
            self, constraints, solution, checkintegrality, checklprows, printreason, completely
        ):
            return self.record(solution)

        def conslock(self, constraint, locktype, nlockspos, nlocksneg):
            return None

    return Recorder()
