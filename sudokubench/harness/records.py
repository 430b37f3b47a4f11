"""The records of a stored run: a run (`RunRow`, `RunStatus`), its puzzles (`PuzzleRow`) and its
finished tasks (`TaskRow`). `store.py` maps them to the tables' columns, by field name."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, NamedTuple

from sudokubench.backend import Status

__all__ = ["PuzzleRow", "RunRow", "RunStatus", "TaskRow"]


class RunStatus(enum.StrEnum):
    """Where a run stands."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class RunRow:
    """One run as stored."""

    id: int
    started: str
    ended: str | None
    status: RunStatus
    args: dict[str, Any]
    machine: dict[str, Any]
    disagreements: int | None


class PuzzleRow(NamedTuple):
    """One puzzle of a run: where it came from and what the input says its answer is (a named
    tuple in the order of the table's columns, after the run id)."""

    puzzle_id: str
    position: int
    collection: str
    puzzle: str
    box: str | None = None
    expected_count: int | None = None
    expected_solution: str | None = None


class TaskRow(NamedTuple):
    """One finished task: the worker's outcome and the harness's check of it (a named tuple in
    the order of the table's columns: a run makes one per task)."""

    task_id: int
    puzzle_id: str
    puzzle: str
    backend: str
    limit: int
    timeout: float
    sample: int
    status: Status
    count: int
    exhaustive: bool
    solutions: tuple[str, ...]
    encode_s: float
    solve_s: float
    wall_s: float
    stats: dict[str, int | float]
    message: str
    verdict: str
    valid: bool
    problem: str | None
    host: str = ""  # the machine that ran it ("" in runs stored before hosts were recorded)
    #: The worker's peak resident set during the call, bytes; None where not measured (a
    #: task killed or lost with its worker, another platform, a run stored before it was).
    peak_memory_bytes: int | None = None
