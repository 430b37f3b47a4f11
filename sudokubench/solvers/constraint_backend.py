"""`constraint:<solver>`: python-constraint (package python-constraint2) on `encodings.csp`.

Variants, one per solver class of the library: `backtracking` (BacktrackingSolver),
`optimized` (OptimizedBacktrackingSolver, the library's default) and `recursive`
(RecursiveBacktrackingSolver), all with forward checking.

Default: `backtracking`. Measured with `benchmarks/models.py` (docs), median per puzzle
for `backtracking` / `recursive` / the library's default `optimized`: Norvig's 11 "hardest"
17 / 10 / 49 ms; every 5th top95 puzzle 109 ms / 183 ms (1 of 19 over 5 s) / over 5 s (10 of
19); counting, 1,109 / 627 / 302 solutions per second on the `multiple` grid and 1,791 /
1,677 / 1,389 on 100 multisolution5000 puzzles. `recursive` wins on the 11 "hardest", but
`backtracking` is the steadiest on top95 and the fastest counter, so it is the default.

Solving: `getSolution` for one solution, `getSolutionIter` to count (limit > 1).

Timeout: python-constraint has no time limit, and a single `getSolution` cannot be
interrupted from Python. With a timeout the search runs in a forked child process that streams
solutions back and is killed at the deadline (`solvers.child`; 5-25 ms of fork, small
next to this backend's solve times). Without a timeout it runs in-process.

Stats: `variables`, `constraints` (the model's size); the library counts nothing else.

Capabilities (measured with `benchmarks/models.py` and a 5 s timeout): no variant handles hard
puzzles in about a second each: on every 5th top95 puzzle the interquartile range of
`backtracking` is 0.9 s, `recursive` and `optimized` exceed 5 s on some. Most
16x16 puzzles (hexadoku1500) take about 0.1 s with `backtracking` and `recursive` (over 10 s
with `optimized`), but proving some of them unique takes longer than the test suite's
timeout, so `practical_n` is 9.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import ClassVar

from sudokubench.backend import BaseBackend, Deadline, SolveResult
from sudokubench.grid import Grid
from sudokubench.solvers.child import collect_solutions

__all__ = ["SOLVERS", "Constraint"]

#: Variant name -> python-constraint solver class name.
SOLVERS = {
    "backtracking": "BacktrackingSolver",
    "optimized": "OptimizedBacktrackingSolver",
    "recursive": "RecursiveBacktrackingSolver",
}


class Constraint(BaseBackend):
    """python-constraint's backtracking solvers on the one-variable-per-cell model."""

    requires: ClassVar[str | None] = "python-constraint2"
    install_hint: ClassVar[str] = "pip install python-constraint2"
    practical_n: ClassVar[int] = 9
    handles_hard: ClassVar[bool] = False
    forks_for_timeout = True

    def __init__(self, solver: str = "backtracking") -> None:
        if solver not in SOLVERS:
            raise ValueError(f"unknown python-constraint solver {solver!r}")
        self.solver = solver
        self.name = f"constraint:{solver}"

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        import constraint

        from sudokubench.encodings.csp import build, decode

        start = time.perf_counter()
        problem = build(puzzle, getattr(constraint, SOLVERS[self.solver])())
        encode_s = time.perf_counter() - start
        size = {"variables": puzzle.shape.cells, "constraints": len(puzzle.shape.units)}

        def search(stats: dict[str, int | float]) -> Iterator[Grid]:
            stats.update(size)
            if limit == 1:
                solution = problem.getSolution()
                if solution is not None:
                    yield decode(puzzle, solution)
                return
            for solution in problem.getSolutionIter():
                yield decode(puzzle, solution)

        return collect_solutions(
            self.name, puzzle.shape, search, limit, deadline, encode_s=encode_s
        )
