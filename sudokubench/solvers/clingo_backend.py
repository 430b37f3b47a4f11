"""`clingo`: answer-set programming with clingo (Potassco) on `encodings/sudoku.lp`.

Needs the optional extra `asp` (`pip install 'sudokubench[asp]'`); without it `available()`
is false and `sudokubench backends` says how to install it.

Model: the program is data, `encodings/sudoku.lp`: exactly-one choice rules for every cell and
for every digit in every row, column and box; the puzzle adds the constants `n`, `br`, `bc`
and one fact `given(R, C, D)` per given. Chosen by measurement over all of top95 on a loaded
2-core machine (ground + solve per puzzle): these choice rules 7 + 2 ms; the textbook form, a
choice rule per cell and integrity constraints `#count { ... } != 1` per unit and digit,
16 + 6 ms; pairwise integrity constraints (`:- cell(R, C1, D), cell(R, C2, D), C1 < C2.`)
took longer again (top95's first 10: 32 ms a puzzle to ground, against 18 ms for the
`#count` form) and were the slowest on big grids (empty 25x25: 0.1 s ground + 0.06 s solve
for the choice rules, 0.4 + 0.2 s for `#count`, 2.3 + 1.6 s pairwise).

Building: grounding (`Control.ground`) is the model build and counts in `encode_s`; for a 9x9
puzzle it takes longer than the search.

Counting: clingo enumerates answer sets itself (`--models=LIMIT`, on_model collects them);
every answer set is one grid, since all atoms but `cell/3` are facts. An answer set shows one
integer per cell (its cell-digit number), which Python reads with one call into clingo, not
four: counting 39,168 6x6 grids took 3.1 s of CPU against 13.2 s with `#show cell/3`.

Statuses: clingo's `SolveResult`: `exhausted` means the enumeration ended (exact count,
UNSATISFIABLE when it found nothing), `interrupted` means our deadline cancelled it (TIMEOUT,
keeping what it found), satisfiable and not exhausted means `limit` was reached; anything
else (`unknown` without an interrupt, or too few models) is an ERROR that names it.

Timeout: native. The solve runs asynchronously (`async_=True`); `SolveHandle.wait(remaining)`
then `cancel()` at the deadline. Grounding cannot be interrupted, but is short (25x25: 0.1 s).

Stats: from clingo's statistics: `choices`, `conflicts`, `restarts` (the solver),
`atoms`, `rules` (the ground program), `vars`, `constraints` (clasp's problem), `models`
(answer sets enumerated).

Limits: any shape; a 9x9 grid in about 10 ms, the empty 25x25 in under a second. Roads not
taken: one `Control` per shape reused across puzzles through `#external given/3` atoms would
skip most grounding, but clasp's learnt clauses would then carry over from puzzle to puzzle,
so a puzzle's time would depend on the ones before it.
"""

from __future__ import annotations

import time
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from sudokubench.backend import Deadline, SolveResult, make_result
from sudokubench.grid import Grid
from sudokubench.solvers.modelled import Model, SearchedModel

__all__ = ["Clingo", "program"]


@cache
def program() -> str:
    """The ASP program, `encodings/sudoku.lp` (a file of the package)."""
    return resources.files("sudokubench.encodings").joinpath("sudoku.lp").read_text("utf-8")


class Clingo(SearchedModel):
    """clingo on the ASP program `encodings/sudoku.lp`."""

    name = "clingo"
    requires: ClassVar[str | None] = "clingo"
    install_hint: ClassVar[str] = "pip install 'sudokubench[asp]'"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True

    def _model(self, puzzle: Grid, limit: int) -> Model:
        """Load the program, add the puzzle's constants and givens, and ground it."""
        import clingo

        shape = puzzle.shape
        n = shape.n
        constants = {"n": n, "br": shape.box_rows, "bc": shape.box_cols}
        arguments = [f"--models={limit}"]
        for key, value in constants.items():
            arguments += ["--const", f"{key}={value}"]
        control = clingo.Control(arguments)
        control.add("base", [], program())
        givens = (f"given({k // n},{k % n},{d})." for k, d in enumerate(puzzle.cells) if d)
        control.add("base", [], "".join(givens))
        control.ground([("base", [])])
        return Model(puzzle, control, limit)

    def _search(self, model: Model, deadline: Deadline) -> SolveResult:
        """Enumerate up to `limit` answer sets, cancelled at the deadline."""
        puzzle, n = model.puzzle, model.puzzle.shape.n
        found: list[Grid] = []

        def on_model(answer: Any) -> None:
            cells = list(puzzle.cells)
            for shown in answer.symbols(shown=True):  # cell-digit numbers, see sudoku.lp
                k, d0 = divmod(shown.number, n)
                cells[k] = d0 + 1
            found.append(Grid(puzzle.shape, tuple(cells)))

        start = time.perf_counter()
        with model.handle.solve(on_model=on_model, async_=True) as handle:
            if not handle.wait(deadline.remaining()):
                handle.cancel()
            outcome = handle.get()
        solve_s = time.perf_counter() - start
        finished, timed_out = _ending(outcome, len(found), model.limit)
        return make_result(
            self.name,
            found,
            finished=finished,
            timed_out=timed_out,
            solve_s=solve_s,
            stats=_stats(model.handle.statistics),
        )


def _ending(outcome: Any, found: int, limit: int) -> tuple[bool, bool]:
    """(finished, timed_out) for a clingo SolveResult; raises on one that should not happen."""
    if outcome.interrupted:
        return False, True
    if outcome.exhausted:
        return True, False
    if outcome.satisfiable and found >= limit:
        return False, False
    raise RuntimeError(f"clingo ended with {outcome} after {found} of {limit} models")


def _stats(statistics: Any) -> dict[str, int | float]:
    """The counters named in the module docstring, as ints."""
    solver = statistics["solving"]["solvers"]
    program = statistics["problem"]["lp"]
    problem = statistics["problem"]["generator"]
    return {
        "choices": int(solver["choices"]),
        "conflicts": int(solver["conflicts"]),
        "restarts": int(solver["restarts"]),
        "atoms": int(program["atoms"]),
        "rules": int(program["rules"]),
        "vars": int(problem["vars"]),
        "constraints": int(problem["constraints"]),
        "models": int(statistics["summary"]["models"]["enumerated"]),
    }
