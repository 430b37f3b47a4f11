"""Validated reading of the results database: every value read back is checked against what
the schema promises (types, ranges, known statuses, JSON of the right shape) and turned into its
record (`RunRow`, `TaskRow`, `PuzzleRow`); a value that is not raises `Damaged`, which `store.py`
words as one StoreError naming the file. The values come in the records' field order, which is
the column order `store.py` selects them in."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Sequence
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.records import PuzzleRow, RunRow, RunStatus, TaskRow

#: The fields of a RunRow, in the order of the `runs` columns `store.py` selects.
RUN_FIELDS = tuple(f.name for f in dataclasses.fields(RunRow))
_STATUSES = {s.value: s for s in Status}


class Damaged(ValueError):
    """A stored value that is not what the schema promises."""


def _want(ok: bool, what: str) -> None:
    if not ok:
        raise Damaged(what)


def _json(text: object, kind: type, what: str) -> Any:
    _want(isinstance(text, str), f"{what} is not text")
    try:
        value = _DECODER.decode(text)  # type: ignore[arg-type]
    except (ValueError, RecursionError):
        raise Damaged(f"{what} is not JSON") from None
    _want(isinstance(value, kind), f"{what} is not a JSON {kind.__name__}")
    return value


def _no_constant(name: str) -> Any:
    raise Damaged(f"JSON with {name}")


#: One decoder for every value read (`json.loads` with an option makes one per call).
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def _solutions(text: object, task_id: object) -> tuple[str, ...]:
    """A stored list of solution lines; the common form (lines of letters and digits, as
    `store_write.solutions_json` writes them) read without the JSON parser."""
    if isinstance(text, str) and text.startswith('["') and text.endswith('"]'):
        lines = text[2:-2].split('", "')
        if all(line.isalnum() and line.isascii() for line in lines):
            return tuple(lines)
    what = f"task {task_id}"  # (only here: the common form above needs no message)
    solutions = _json(text, list, f"{what}: solutions")
    _want(all(isinstance(x, str) for x in solutions), f"{what}: a solution is not text")
    return tuple(solutions)


def _is_int(value: object) -> bool:
    return type(value) is int


def _is_time(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value >= 0  # type: ignore[arg-type]


def run_from_sql(values: Sequence[Any]) -> RunRow:
    row = dict(zip(RUN_FIELDS, values, strict=True))
    _want(_is_int(row["id"]), "runs.id is not an integer")
    what = f"run {row['id']}"
    _want(isinstance(row["started"], str), f"{what}: started is not text")
    _want(row["ended"] is None or isinstance(row["ended"], str), f"{what}: ended is not text")
    try:
        row["status"] = RunStatus(row["status"])
    except ValueError:
        raise Damaged(f"{what}: status {str(row['status'])[:20]!r} is unknown") from None
    row["args"] = _json(row["args"], dict, f"{what}: args")
    row["machine"] = _json(row["machine"], dict, f"{what}: machine")
    d = row["disagreements"]
    _want(d is None or (_is_int(d) and d >= 0), f"{what}: disagreements is not a count")
    return RunRow(**row)


def task_from_sql(values: Sequence[Any]) -> TaskRow:
    """A TaskRow from the values of `SELECT _TASK_COLUMNS`, every value's type checked
    (`Damaged` when one is not what the schema promises)."""
    row = TaskRow._make(values)
    if not _task_ok(row):  # (the messages are made only for a damaged row: reads are hot)
        _check_task(row)
    solutions = _solutions(row.solutions, row.task_id)
    try:
        stats = _DECODER.decode(row.stats)
        ok = type(stats) is dict and all(
            type(v) in (int, float) and math.isfinite(v) for v in stats.values()
        )
    except (TypeError, ValueError, RecursionError):
        ok = False
    if not ok:
        what = f"task {row.task_id}"
        stats = _json(row.stats, dict, f"{what}: stats")
        _want(
            all(type(v) in (int, float) and math.isfinite(v) for v in stats.values()),
            f"{what}: a stat is not a number",
        )
    return row._replace(
        status=_STATUSES[row.status],
        exhaustive=bool(row.exhaustive),
        solutions=solutions,
        stats=stats,
        valid=bool(row.valid),
    )


def _task_ok(t: TaskRow) -> bool:
    """Whether a row passes `_check_task` (decided without making a message)."""
    return (
        type(t.task_id) is int
        and type(t.puzzle_id) is str
        and type(t.puzzle) is str
        and type(t.backend) is str
        and type(t.message) is str
        and type(t.verdict) is str
        and (t.problem is None or type(t.problem) is str)
        and type(t.limit) is int
        and type(t.sample) is int
        and type(t.count) is int
        and t.limit >= 1
        and t.count >= 0
        and _is_time(t.timeout)
        and _is_time(t.encode_s)
        and _is_time(t.solve_s)
        and _is_time(t.wall_s)
        and t.exhaustive in (0, 1)
        and t.valid in (0, 1)
        and t.status in _STATUSES
        and (t.peak_memory_bytes is None or _is_size(t.peak_memory_bytes))
    )


def _is_size(value: Any) -> bool:
    return type(value) is int and value >= 0


def _check_task(row: TaskRow) -> None:
    """Raise `Damaged` saying what is wrong with a row's scalar values."""
    what = f"task {row.task_id}"
    _want(_is_int(row.task_id), "tasks.task_id is not an integer")
    for name in ("puzzle_id", "puzzle", "backend", "message", "verdict"):
        _want(isinstance(getattr(row, name), str), f"{what}: {name} is not text")
    _want(row.problem is None or isinstance(row.problem, str), f"{what}: problem is not text")
    for name in ("limit", "sample", "count"):
        _want(_is_int(getattr(row, name)), f"{what}: {name} is not an integer")
    _want(row.limit >= 1 and row.count >= 0, f"{what}: limit or count out of range")
    for name in ("timeout", "encode_s", "solve_s", "wall_s"):
        _want(_is_time(getattr(row, name)), f"{what}: {name} is not a time")
    _want(row.exhaustive in (0, 1) and row.valid in (0, 1), f"{what}: a flag is not 0 or 1")
    _want(row.status in _STATUSES, f"{what}: status {str(row.status)[:20]!r} is unknown")
    m = row.peak_memory_bytes
    _want(m is None or (_is_int(m) and m >= 0), f"{what}: peak_memory_bytes is not a size")


#: A `PuzzleRow` from its fields' tuple, mapped in C (`puzzles_from_sql`).
_new_puzzle = functools.partial(tuple.__new__, PuzzleRow)
_NONE = type(None)


def puzzles_from_sql(found: Sequence[Sequence[Any]]) -> list[PuzzleRow]:
    """`puzzle_from_sql` of each of `found`: a column's types looked at a list at a time
    (each a few C calls), the rows made in C; a list with any row `puzzle_from_sql` would
    not take as it is goes row by row, which raises its StoreError."""
    if not found:
        return []
    try:
        ids, positions, collections, texts, boxes, counts, solutions = zip(*found, strict=True)
    except ValueError:  # (not seven columns: the row by row way says so)
        return [puzzle_from_sql(row) for row in found]
    kinds = set(map(type, counts))
    if (
        set(map(type, ids)) == {str}
        and set(map(type, collections)) == {str}
        and set(map(type, texts)) == {str}
        and set(map(type, positions)) == {int}
        and set(map(type, boxes)) <= {_NONE, str}
        and set(map(type, solutions)) <= {_NONE, str}
        and kinds <= {_NONE, int}
        and (int not in kinds or min(n for n in counts if n is not None) >= 0)
    ):
        return list(map(_new_puzzle, found))
    return [puzzle_from_sql(row) for row in found]


def puzzle_from_sql(values: Sequence[Any]) -> PuzzleRow:
    row = PuzzleRow._make(values)
    n, solution = row.expected_count, row.expected_solution
    if (
        type(row.puzzle_id) is str
        and type(row.collection) is str
        and type(row.puzzle) is str
        and type(row.position) is int
        and (row.box is None or type(row.box) is str)
        and (n is None or (type(n) is int and n >= 0))
        and (solution is None or type(solution) is str)
    ):
        return row  # (the messages below are made only for a damaged row: reads are hot)
    what = f"puzzle {str(row.puzzle_id)[:40]!r}"
    for name in ("puzzle_id", "collection", "puzzle"):
        _want(isinstance(getattr(row, name), str), f"{what}: {name} is not text")
    _want(_is_int(row.position), f"{what}: position is not an integer")
    _want(row.box is None or isinstance(row.box, str), f"{what}: box is not text")
    _want(n is None or (_is_int(n) and n >= 0), f"{what}: expected_count is not a count")
    _want(solution is None or isinstance(solution, str), f"{what}: expected_solution not text")
    return row
