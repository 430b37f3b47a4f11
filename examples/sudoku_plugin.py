"""A Python plug-in for sudokubench: the two shapes a user's solver can take.

Put this directory on PYTHONPATH and name the object with `module:attr`:

    export PYTHONPATH=examples
    sudokubench compare puzzles/easy50.txt --backends fast,sudoku_plugin:solve
    sudokubench compare puzzles/easy50.txt --backends fast,sudoku_plugin:Counting

or register it in your own package's pyproject.toml, so that `--backends sudoku-plugin` finds it:

    [project.entry-points."sudokubench.backends"]
    sudoku-plugin = "sudoku_plugin:Counting"

- `solve` is a plain function puzzle -> solution: it gives one solution (count 1, not
  exhaustive) or None, which claims the puzzle has no solution.
- `Counting` is a Backend class: it writes one generator of solutions, and sudokubench's
  `SearchBackend` applies the limit and the cooperative timeout, so it can count and prove
  uniqueness (`--limit 2`) like the built-in backends.
"""

from __future__ import annotations

from collections.abc import Iterator

from sudokubench.backend import Deadline, SearchBackend
from sudokubench.grid import Grid


def fill(grid: Grid, deadline: Deadline | None = None) -> Iterator[Grid]:
    """Every completion of `grid`, filling the empty cell with the fewest candidates first."""
    if deadline is not None:
        deadline.check()
    empty = [k for k, d in enumerate(grid.cells) if not d]
    if not empty:
        yield grid
        return
    k = min(empty, key=lambda k: len(grid.candidates(k)))
    for d in grid.candidates(k):
        yield from fill(grid.with_value(k, d), deadline)


def solve(puzzle: Grid) -> Grid | None:
    """The first solution of `puzzle`, or None when it has none."""
    if not puzzle.is_valid():
        return None
    return next(fill(puzzle), None)


class Counting(SearchBackend):
    """The same search as a Backend: sudokubench applies the limit and the timeout."""

    name = "sudoku_plugin"

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield every solution of `puzzle` (its givens do not conflict)."""
        return fill(puzzle, deadline)
