"""The per-backend rows of a report: `BackendSummary` (what one backend did over a set of
puzzles), the (puzzle, backend) pairs it is computed from (`pairs_of`), and the name of the
virtual best solver; `report/tally.py` computes the rows from the pairs kept in columns.

Per backend: `solved`, `unsatisfiable`, `timeout`, `error` count (puzzle, backend) pairs by the
status of their first measured sample; `wrong` counts pairs whose answer is proven wrong or
contradicts the file's expected answer (or took a side in a disagreement no one could be
blamed for); `disagree` counts puzzles with a disagreement the backend took a side in. A wrong
pair is never solved or unsatisfiable, never timed, and scores the PAR penalty
(`report/columns.py`). Times are described in `stats`. Every count, time and plot applies the
strict limit (`stats.limited_status`: an answer after `--timeout` is a TIMEOUT); `par_s` is
the PAR-k score (`par`, 2 unless asked otherwise) and `virtual_best` the best backend per
puzzle, summarized like a backend.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sudokubench.harness.records import TaskRow
from sudokubench.harness.stats import (
    FINISHED,
    Pair,
    Ratio,
    TimeSummary,
    effort_of,
    limited_status,
)

__all__ = ["VIRTUAL_BEST", "BackendSummary", "pairs_of"]


#: The name of the virtual best solver's row and curve.
VIRTUAL_BEST = "virtual best"


@dataclass(frozen=True)
class BackendSummary:
    """What one backend did over a set of puzzles."""

    backend: str
    version: str | None
    puzzles: int
    solved: int
    unsatisfiable: int
    timeout: int
    error: int
    wrong: int
    disagree: int
    times: TimeSummary
    ratio: Ratio | None = None
    par_s: float | None = None
    #: The most any of its tasks' workers resided in during the call, bytes (None: not
    #: measured, or a summary of one collection of a run with several).
    peak_memory_bytes: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Flat plain data (the `summary` entries of `compare --json`)."""
        data: dict[str, Any] = {
            "backend": self.backend,
            "version": self.version,
            "puzzles": self.puzzles,
            "solved": self.solved,
            "unsatisfiable": self.unsatisfiable,
            "timeout": self.timeout,
            "error": self.error,
            "wrong": self.wrong,
            "disagree": self.disagree,
        }
        data.update(self.times.to_json())
        data["par_s"] = self.par_s
        ratio = self.ratio
        data["ratio"] = ratio.value if ratio else None
        data["ratio_low"] = ratio.low if ratio else None
        data["ratio_high"] = ratio.high if ratio else None
        data["ratio_puzzles"] = ratio.puzzles if ratio else 0
        data["peak_memory_bytes"] = self.peak_memory_bytes
        return data


def pairs_of(tasks: Sequence[TaskRow]) -> dict[str, list[Pair]]:
    """Measured samples grouped into (puzzle, backend) pairs, per backend."""
    grouped: dict[tuple[str, str], list[TaskRow]] = {}
    for t in tasks:
        if t.sample >= 0:
            key = (t.backend, t.puzzle_id)
            if (group := grouped.get(key)) is None:
                grouped[key] = [t]
            else:
                group.append(t)
    pairs: dict[str, list[Pair]] = defaultdict(list)
    for (backend, puzzle_id), rows in grouped.items():
        if len(rows) > 1:
            rows.sort(key=lambda t: t.sample)
        statuses = [limited_status(t.status, t.wall_s, t.timeout) for t in rows]
        times = tuple(t.wall_s for t, s in zip(rows, statuses, strict=True) if s in FINISHED)
        efforts = [e for t in rows if (e := effort_of(t.stats))]
        effort = (
            (efforts[0][0], sorted(e[1] for e in efforts)[len(efforts) // 2]) if efforts else None
        )
        pairs[backend].append(Pair(puzzle_id, backend, statuses[0], times, effort))
    return pairs
