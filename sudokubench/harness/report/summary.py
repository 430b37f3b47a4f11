"""The per-backend rows of a report: `BackendSummary` (what one backend did over a set of
puzzles), the (puzzle, backend) pairs it is computed from, and the virtual best solver.

Per backend: `solved`, `unsatisfiable`, `timeout`, `error` count (puzzle, backend) pairs by the
status of their first measured sample; `wrong` counts pairs whose answer is proven wrong or
contradicts the file's expected answer; `disagree` counts puzzles with a disagreement the
backend took a side in. Times are described in `stats`. Every count, time and plot applies the
strict limit (`stats.limited_status`: an answer after `--timeout` is a TIMEOUT); `par_s` is
the PAR-k score (`par`, 2 unless asked otherwise) and `virtual_best` the best backend per
puzzle, summarized like a backend.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.stats import (
    FINISHED,
    Pair,
    Ratio,
    TimeSummary,
    effort_of,
    geometric_ratio,
    limited_status,
    par_score,
    summarize_times,
)
from sudokubench.harness.verify import PuzzleVerdict

__all__ = ["VIRTUAL_BEST", "BackendSummary", "pairs_of", "summaries", "virtual_best_pairs"]


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


def virtual_best_pairs(
    puzzles: Sequence[PuzzleRow], pairs: dict[str, list[Pair]], verdicts: dict[str, PuzzleVerdict]
) -> list[Pair]:
    """Per puzzle with answers, the fastest pair that finished within the limit and was not
    blamed for a wrong answer (as VIRTUAL_BEST), else a TIMEOUT with no time."""
    best: dict[str, Pair] = {}
    seen: set[str] = set()
    for backend, mine in pairs.items():
        for p in mine:
            seen.add(p.puzzle_id)
            verdict = verdicts.get(p.puzzle_id)
            if not p.finished or (verdict is not None and backend in verdict.blamed):
                continue
            held = best.get(p.puzzle_id)
            if held is None or p.time < held.time:
                best[p.puzzle_id] = p
    found = []
    for puzzle in puzzles:
        if puzzle.puzzle_id not in seen:
            continue
        p = best.get(puzzle.puzzle_id)
        if p is None:
            found.append(Pair(puzzle.puzzle_id, VIRTUAL_BEST, Status.TIMEOUT, ()))
        else:
            found.append(Pair(p.puzzle_id, VIRTUAL_BEST, p.status, (p.time,), p.effort))
    return found


def summaries(
    backends: Sequence[str],
    pairs: dict[str, list[Pair]],
    verdicts: dict[str, PuzzleVerdict],
    baseline: str | None,
    versions: dict[str, Any],
    only: set[str] | None = None,
    *,
    timeout: float,
    par: float,
) -> tuple[BackendSummary, ...]:
    """One BackendSummary per backend, over the puzzles in `only` (all when None)."""
    rows = []
    base_pairs = [p for p in pairs.get(baseline or "", []) if only is None or p.puzzle_id in only]
    for backend in backends:
        mine = [p for p in pairs.get(backend, []) if only is None or p.puzzle_id in only]
        by_status = defaultdict(int)
        wrong = disagree = 0
        for p in mine:
            by_status[p.status] += 1
            verdict = verdicts.get(p.puzzle_id)
            if verdict is None:
                continue
            wrong += backend in verdict.blamed
            disagree += any(
                problem.kind == "disagree" and any(backend in names for _, names in problem.sides)
                for problem in verdict.problems
            )
        rows.append(
            BackendSummary(
                backend=backend,
                version=versions.get(backend),
                puzzles=len(mine),
                solved=by_status[Status.SOLVED],
                unsatisfiable=by_status[Status.UNSATISFIABLE],
                timeout=by_status[Status.TIMEOUT],
                error=by_status[Status.ERROR],
                wrong=wrong,
                disagree=disagree,
                times=summarize_times(mine),
                ratio=None if backend == baseline else geometric_ratio(mine, base_pairs),
                par_s=par_score(mine, timeout, par),
            )
        )
    return tuple(rows)
