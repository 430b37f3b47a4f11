"""Stored answers checked again when they are read back: a database is a file anyone can edit,
so `report` and `--resume` never trust the `valid`, `problem` and `verdict` stored with a
task; they re-derive them from the stored answer and puzzle with the same check `compare`
made (`verify.check_answer`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from sudokubench.errors import StoreError
from sudokubench.grid import Grid
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.verify import check_answer, puzzle_grid

__all__ = ["rechecked"]


def rechecked(
    rows: Iterable[TaskRow], puzzles: Sequence[PuzzleRow], where: object = "the database"
) -> Iterator[TaskRow]:
    """`rows` with their check made again; StoreError (naming `where`) when a row does not
    belong to the run's puzzles or cannot be checked at all."""
    by_id = {p.puzzle_id: p for p in puzzles}
    grids: dict[str, Grid] = {}
    for row in rows:
        puzzle = by_id.get(row.puzzle_id)
        if puzzle is None or puzzle.puzzle != row.puzzle:
            raise StoreError(
                f"{where} is damaged: task {row.task_id} is about a puzzle the run does not hold"
            )
        try:
            grid = grids.get(row.puzzle_id)
            if grid is None:
                grid = grids[row.puzzle_id] = puzzle_grid(puzzle)
            voice = check_answer(
                row.backend,
                grid,
                status=row.status,
                count=row.count,
                exhaustive=row.exhaustive,
                solutions=row.solutions,
                limit=row.limit,
            )
        except (ValueError, TypeError) as exc:
            raise StoreError(
                f"{where} is damaged: task {row.task_id} cannot be checked: {str(exc)[:100]}"
            ) from None
        yield row._replace(
            verdict=str(voice.verdict),
            valid=voice.problem is None,
            problem=voice.problem,
            solutions=voice.solutions if voice.sound else row.solutions,
        )
