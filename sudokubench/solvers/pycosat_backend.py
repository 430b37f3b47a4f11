"""`pycosat:<encoding>`: the CNF of `encodings.cnf` solved by picosat through pycosat.

Variants: `optimized` (default: the smallest formula, so the fastest to hand over and solve),
`minimal` and `extended` (the encodings of `encodings.cnf`, for comparing formulations).

Solving: `pycosat.solve` for one solution; counting (limit > 1) with `pycosat.itersolve`,
which blocks each model it returns and solves again incrementally. Every variable is a
cell-digit variable, so each model is one grid. itersolve enumerates assignments of *every*
variable up to the largest one: a variable that appears in no clause would be free and double
the count. `pinned_clauses` guards against it by fixing such variables to false (the stat
`pinned` says how many; our encodings never need it, formulas read from DIMACS may).

Timeout: pycosat has no wall-clock limit, only a propagation limit, and `itersolve` stops
silently when that limit is hit (indistinguishable from "no more models"). So:

- no timeout: solve in-process;
- a timeout and limit 1: first an in-process `solve` with a propagation limit worth about a
  sixth of the time left (at `PROPAGATIONS_PER_S`, below the ~1.5 million/s measured); almost
  every puzzle is solved there. When picosat answers UNKNOWN, the solve is redone in a
  forked child process that is killed at the deadline (`solvers.child`);
- a timeout and limit > 1: itersolve in a forked child, solutions streamed back as found,
  killed at the deadline (the count found so far is kept, status TIMEOUT).

The fork costs 5-25 ms (more under load), which is why it is not used without a timeout.

Stats: `variables`, `clauses` (the size of the formula), `pinned` (unused variables fixed),
`child_process` (1 when the search ran in a forked child). picosat's own counters are not
exposed by pycosat.

Limits: any shape; 9x9 in about a millisecond, the empty 16x16 in 0.08 s and the empty
25x25 in 0.2 s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import ClassVar

from sudokubench.backend import BaseBackend, Deadline, SolveResult, make_result
from sudokubench.encodings.cnf import Clause, Cnf, Encoding, decode, encode
from sudokubench.grid import Grid
from sudokubench.solvers.child import collect_solutions

__all__ = [
    "PROPAGATIONS_PER_S",
    "Pycosat",
    "iter_models",
    "pinned_clauses",
    "unused_variables",
]

#: A cautious picosat propagation rate, to size the in-process attempt under a timeout.
PROPAGATIONS_PER_S = 500_000


def unused_variables(cnf: Cnf) -> list[int]:
    """The variables 1..num_vars that no clause mentions.

    The scan stops as soon as every variable has been seen: for our encodings that is after
    the cells' at-least-one clauses, which come first, so the guard costs microseconds.
    """
    used: set[int] = set()
    for clause in cnf.clauses:
        used.update(map(abs, clause))
        if len(used) >= cnf.num_vars:
            return []
    return [v for v in range(1, cnf.num_vars + 1) if v not in used]


def pinned_clauses(cnf: Cnf) -> Sequence[Clause]:
    """The clauses plus a unit clause `-v` for each variable 1..num_vars that no clause uses."""
    unused = unused_variables(cnf)
    if not unused:
        return cnf.clauses
    return [*cnf.clauses, *((-v,) for v in unused)]


def iter_models(cnf: Cnf) -> Iterator[list[int]]:
    """Every model of `cnf` once per assignment of its variables (unused ones pinned false)."""
    import pycosat

    yield from pycosat.itersolve(pinned_clauses(cnf), vars=cnf.num_vars)


class Pycosat(BaseBackend):
    """picosat on one of the CNF encodings."""

    requires: ClassVar[str | None] = "pycosat"
    install_hint: ClassVar[str] = "pip install pycosat"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True
    forks_for_timeout = True

    def __init__(self, encoding: str = "optimized") -> None:
        self.encoding = Encoding(encoding)
        self.name = f"pycosat:{self.encoding.value}"

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        start = time.perf_counter()
        cnf = encode(puzzle, self.encoding)
        clauses = pinned_clauses(cnf)
        encode_s = time.perf_counter() - start
        stats: dict[str, int | float] = {
            "variables": cnf.num_vars,
            "clauses": len(cnf.clauses),
            "pinned": len(clauses) - len(cnf.clauses),
        }

        def search(found_stats: dict[str, int | float]) -> Iterator[Grid]:
            import pycosat

            found_stats.update(stats)
            if limit == 1:
                model = pycosat.solve(clauses, vars=cnf.num_vars)
                if isinstance(model, list):
                    yield decode(cnf, model, puzzle)
                return
            for model in pycosat.itersolve(clauses, vars=cnf.num_vars):
                yield decode(cnf, model, puzzle)

        remaining = deadline.remaining()
        if remaining is not None and limit == 1:
            quick = self._attempt(puzzle, cnf, clauses, remaining, encode_s, stats)
            if quick is not None:
                return quick
        return collect_solutions(
            self.name, puzzle.shape, search, limit, deadline, encode_s=encode_s
        )

    def _attempt(
        self,
        puzzle: Grid,
        cnf: Cnf,
        clauses: Sequence[Clause],
        remaining: float,
        encode_s: float,
        stats: dict[str, int | float],
    ) -> SolveResult | None:
        """Solve in-process with a propagation limit; None if picosat gave up (UNKNOWN)."""
        import pycosat

        props = max(1, int(remaining * PROPAGATIONS_PER_S / 2))
        start = time.perf_counter()
        model = pycosat.solve(clauses, vars=cnf.num_vars, prop_limit=props)
        solve_s = time.perf_counter() - start
        if model == "UNKNOWN":
            return None
        solutions = [decode(cnf, model, puzzle)] if isinstance(model, list) else []
        return make_result(
            self.name,
            solutions,
            finished=not solutions,
            encode_s=encode_s,
            solve_s=solve_s,
            stats={**stats, "prop_limit": props},
        )
