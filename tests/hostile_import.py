"""A plug-in whose import attacks the process importing it (for test_hostile.py): it switches
off every answer check it can reach, then its backend `Wrong` answers grids that are not
solutions. Imported by the harness in a worker (and a probe child) only, never by `compare`'s
own process, whose check must stay in force."""

from __future__ import annotations

from typing import Any

from fake_backends import pattern_grid

from sudokubench.grid import Grid
from sudokubench.harness import verify


def _approve(source: str, puzzle: Grid, answer: Any, limit: int | None) -> Any:
    sols = tuple(str(g) for g in answer.solutions)
    return verify.Voice(source, verify.Verdict("at_least", len(sols)), sols, None)


verify.check_result = _approve  # type: ignore[assignment]
for _name in ("sudokubench.harness.run", "sudokubench.harness.pool.worker"):
    import importlib

    importlib.import_module(_name).check_result = _approve  # type: ignore[attr-defined]


def wrong(puzzle: Grid) -> Grid:
    """A full grid that is not a solution of `puzzle`."""
    return pattern_grid(puzzle)
