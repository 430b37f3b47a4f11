"""Plug-ins that lie about their own answer, reachable as `lying_plugins:NAME`.

`SolveResult` refuses an inconsistent result when it is built; each of these builds a true one
and then changes a field behind its back (`object.__setattr__`), as a plug-in can, so that
what reaches the harness contradicts itself:

- `SolvedWithoutSolution`: SOLVED, no solution.
- `UnsatisfiableWithoutProof`: UNSATISFIABLE, but its search was not exhaustive.
- `CountAboveSolutions`: the true solutions, claimed exhaustive with a count of 5.
- `ExhaustiveError`: ERROR, and its search exhaustive.
- `KeptBytesNotCells`: each solution a grid whose cells break the puzzle, with the true
  solution's bytes kept beside them (as `Grid._from_bytes` keeps the bytes it made the cells
  of): the answer is its cells, so it is wrong.

tests/ is on `sys.path` under pytest; a CLI subprocess needs it on `PYTHONPATH`.
"""

from __future__ import annotations

import dataclasses

from fake_backends import Fake, honest, pattern_grid

from sudokubench.backend import SolveResult, Status
from sudokubench.grid import Grid

#: Each lie as the fields it changes in a true result.
LIES: dict[str, dict[str, object]] = {
    "SolvedWithoutSolution": {"status": Status.SOLVED, "solutions": (), "count": 0},
    "UnsatisfiableWithoutProof": {
        "status": Status.UNSATISFIABLE,
        "solutions": (),
        "count": 0,
        "exhaustive": False,
    },
    "CountAboveSolutions": {"count": 5, "exhaustive": True},
    "ExhaustiveError": {"status": Status.ERROR, "solutions": (), "count": 0, "exhaustive": True},
}


class _Liar(Fake):
    """The true answer, then the fields of `LIES[lie]` set past `SolveResult`'s checks."""

    lie = ""

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Answer truly, then change the answer's claims."""
        result = dataclasses.replace(honest(puzzle, limit), backend=self.name)
        for field, value in LIES[self.lie].items():
            object.__setattr__(result, field, value)
        return result


class SolvedWithoutSolution(_Liar):
    """SOLVED with no solution."""

    name = "lying_plugins:SolvedWithoutSolution"
    lie = "SolvedWithoutSolution"


class UnsatisfiableWithoutProof(_Liar):
    """UNSATISFIABLE with a search that was not exhaustive."""

    name = "lying_plugins:UnsatisfiableWithoutProof"
    lie = "UnsatisfiableWithoutProof"


class CountAboveSolutions(_Liar):
    """An exhaustive count that is not the number of solutions returned."""

    name = "lying_plugins:CountAboveSolutions"
    lie = "CountAboveSolutions"


class ExhaustiveError(_Liar):
    """An ERROR that claims an exhaustive search."""

    name = "lying_plugins:ExhaustiveError"
    lie = "ExhaustiveError"


class KeptBytesNotCells(Fake):
    """The true solution's bytes kept beside cells that break the puzzle."""

    name = "lying_plugins:KeptBytesNotCells"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Answer truly, then put a wrong grid's cells in each solution, its bytes kept."""
        result = dataclasses.replace(honest(puzzle, limit), backend=self.name)
        wrong = pattern_grid(puzzle).cells
        forged = []
        for solution in result.solutions:
            grid = Grid._from_bytes(puzzle.shape, bytes(solution.cells))
            object.__setattr__(grid, "cells", wrong)
            forged.append(grid)
        object.__setattr__(result, "solutions", tuple(forged))
        return result
