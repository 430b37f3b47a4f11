"""Stored answers checked again when they are read back: a database is a file anyone can edit,
so `report` and `--resume` never trust the `valid`, `problem` and `verdict` stored with a
task; they re-derive them from the stored answer and puzzle with the same check `compare`
made (`verify.check_result`).

`checked_puzzles` reads a run back puzzle by puzzle, in input order, each puzzle with its
stored rows checked again: the one ordered, streaming read that `report` and the report's
views are made from. A run's task ids are numbered puzzle by puzzle (`plan.tasks_per_puzzle`),
so the rows of the i-th puzzle are the next ones in task order, and memory holds one puzzle.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sudokubench.errors import StoreError
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.store import Store
from sudokubench.harness.verify import check_result, puzzle_grid

__all__ = ["checked_puzzles", "rechecked"]


def rechecked(
    rows: Iterable[TaskRow], puzzle: PuzzleRow, where: object = "the database"
) -> list[TaskRow]:
    """`rows` (about `puzzle`) with their check made again; StoreError (naming `where`) when a
    row is about another puzzle or cannot be checked at all."""
    grid = None
    checked = []
    for row in rows:
        if puzzle.puzzle_id != row.puzzle_id or puzzle.puzzle != row.puzzle:
            raise StoreError(
                f"{where} is damaged: task {row.task_id} is about a puzzle the run does not hold"
            )
        try:
            if grid is None:
                grid = puzzle_grid(puzzle)
            voice = check_result(row.backend, grid, row, row.limit)
        except (ValueError, TypeError) as exc:
            raise StoreError(
                f"{where} is damaged: task {row.task_id} cannot be checked: {str(exc)[:100]}"
            ) from None
        checked.append(
            row._replace(
                verdict=str(voice.verdict),
                valid=voice.problem is None,
                problem=voice.problem,
                solutions=voice.solutions if voice.sound else row.solutions,
            )
        )
    return checked


def checked_puzzles(
    store: Store, run_id: int, per_puzzle: int
) -> Iterator[tuple[int, PuzzleRow, list[TaskRow]]]:
    """(index, puzzle, its stored rows checked again) for every puzzle of the run in input
    order; StoreError when a stored task belongs to no puzzle of the run."""
    tasks = store.tasks(run_id)
    pending = next(tasks, None)
    for i, puzzle in enumerate(store.ordered_puzzles(run_id)):
        first, last = i * per_puzzle, (i + 1) * per_puzzle - 1
        rows = []
        while pending is not None and pending.task_id <= last:
            if pending.task_id < first:
                break
            rows.append(pending)
            pending = next(tasks, None)
        if pending is not None and pending.task_id < first:
            break
        yield i, puzzle, rechecked(rows, puzzle, store.path)
    if pending is not None:
        raise StoreError(
            f"{store.path} is damaged: task {pending.task_id} is about a puzzle the run does "
            "not hold"
        )
