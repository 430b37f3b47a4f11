"""`ModelledBackend`: a backend on a solver library, split by the timing rule.

A subclass writes `_model(puzzle, limit)`, which builds the library's model (untimed: it is
`prepare`, its time recorded as `encode_s`), and `_search(puzzle, model, timeout)`, which solves
it and returns an `Outcome` (the timed region: `run`); `answer` turns the outcome into the
result. Used by `choco` and `scip`; `SearchedModel` is the same split for a search that
makes its result itself (`z3`, `clingo`, `highs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sudokubench.backend import BaseBackend, Deadline, SolveResult, make_result
from sudokubench.grid import Grid

__all__ = ["Model", "ModelledBackend", "Outcome", "SearchedModel"]


@dataclass(frozen=True)
class Outcome:
    """What one search gave back: the solutions, whether it ended or timed out, the stats."""

    solutions: list[Grid]
    finished: bool
    timed_out: bool
    stats: dict[str, int | float] = field(default_factory=dict)


@dataclass
class Model:
    """What `SearchedModel._model` builds for one puzzle: the library's object holding its model
    (`handle`: a z3 solver, a grounded clingo Control, a HiGHS instance), the limit, and the
    statistics its search gathers."""

    puzzle: Grid
    handle: Any
    limit: int
    stats: dict[str, int | float] = field(default_factory=dict)


class ModelledBackend(BaseBackend):
    """`prepare` builds the model (`_model`), `run` searches it (`_search`), `answer` decodes."""

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: conflicting givens end here; else the puzzle and its model."""
        ready = super().prepare(puzzle, limit)
        return ready if isinstance(ready, SolveResult) else (puzzle, self._model(puzzle, limit))

    def run(self, prepared: Any, timeout: float | None) -> Outcome:
        """Timed: the library's search, with `timeout` as its own time limit."""
        puzzle, model = prepared
        return self._search(puzzle, model, timeout)

    def answer(self, prepared: Any, raw: Outcome) -> SolveResult:
        """Untimed: the outcome as a result."""
        return make_result(
            self.name,
            raw.solutions,
            finished=raw.finished,
            timed_out=raw.timed_out,
            stats=raw.stats,
        )

    def _model(self, puzzle: Grid, limit: int) -> Any:
        raise NotImplementedError

    def _search(self, puzzle: Grid, model: Any, timeout: float | None) -> Outcome:
        raise NotImplementedError


class SearchedModel(BaseBackend):
    """`prepare` builds the model (`_model`), `run` is `_search(model, deadline)`, which returns
    the result itself (the deadline starts in `run`). Used by `z3`, `clingo` and `highs`."""

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: conflicting givens end here; else the model."""
        ready = super().prepare(puzzle, limit)
        return ready if isinstance(ready, SolveResult) else self._model(puzzle, limit)

    def run(self, prepared: Any, timeout: float | None) -> SolveResult:
        """Timed: the library's search under a deadline that starts now."""
        return self._search(prepared, Deadline(timeout))

    def _model(self, puzzle: Grid, limit: int) -> Any:
        raise NotImplementedError

    def _search(self, model: Any, deadline: Deadline) -> SolveResult:
        raise NotImplementedError
