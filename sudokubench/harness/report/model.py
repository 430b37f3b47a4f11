"""The report model: what a stored run says, per backend and per collection.

`build_report(store, run_id)` reads a run back from the database, cross-checks every puzzle's
answers again (`verify.cross_check`), and summarizes per backend and per collection
(`stats`); `compare` calls it with the rows it stored, so both always say the same. The
renderers (`report/render.py`, `report/plots.py`) only format it.

Per backend: `solved`, `unsatisfiable`, `timeout`, `error` count (puzzle, backend) pairs by the
status of their first measured sample; `wrong` counts pairs whose answer is proven wrong or
contradicts the file's expected answer; `disagree` counts puzzles with a disagreement the
backend took a side in. Times are described in `stats`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.plan import CompareArgs
from sudokubench.harness.recheck import rechecked
from sudokubench.harness.records import PuzzleRow, RunRow, RunStatus, TaskRow
from sudokubench.harness.stats import (
    FINISHED,
    Pair,
    Ratio,
    TimeSummary,
    effort_of,
    geometric_ratio,
    jobs_warning,
    summarize_times,
    warnings_for,
)
from sudokubench.harness.store import Store
from sudokubench.harness.verify import Problem, PuzzleVerdict, cross_check

__all__ = [
    "BackendSummary",
    "RunReport",
    "build_report",
    "format_seconds",
]


def format_seconds(value: float | None) -> str:
    """A duration for people: `850 µs`, `12.3 ms`, `1.20 s`; `-` for none."""
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


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
        ratio = self.ratio
        data["ratio"] = ratio.value if ratio else None
        data["ratio_low"] = ratio.low if ratio else None
        data["ratio_high"] = ratio.high if ratio else None
        data["ratio_puzzles"] = ratio.puzzles if ratio else 0
        return data


@dataclass(frozen=True)
class RunReport:
    """A stored run, cross-checked and summarized."""

    run: RunRow
    puzzles: tuple[PuzzleRow, ...]
    tasks: tuple[TaskRow, ...]
    backends: tuple[str, ...]
    baseline: str | None
    verdicts: dict[str, PuzzleVerdict]
    pairs: dict[str, list[Pair]]
    summary: tuple[BackendSummary, ...]
    collections: dict[str, tuple[BackendSummary, ...]]
    warnings: tuple[str, ...]
    planned: int
    collection_of: dict[str, str] = field(default_factory=dict)

    @property
    def problems(self) -> list[tuple[str, Problem]]:
        """Every wrong answer and disagreement, by puzzle in input order."""
        return [
            (p.puzzle_id, problem)
            for p in self.puzzles
            if p.puzzle_id in self.verdicts
            for problem in self.verdicts[p.puzzle_id].problems
        ]

    @property
    def disagreement_count(self) -> int:
        """Puzzles with a wrong answer or a disagreement."""
        return sum(1 for v in self.verdicts.values() if not v.agreed)

    @property
    def ok(self) -> bool:
        """No wrong answer and no disagreement."""
        return self.disagreement_count == 0

    @property
    def missing(self) -> int:
        """Planned tasks with no stored outcome (a run still going or interrupted)."""
        return self.planned - len(self.tasks)

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (the same as `compare --json`)."""
        puzzle_of = {p.puzzle_id: p for p in self.puzzles}
        disagreements = []
        for puzzle_id, problem in self.problems:
            entry = {"puzzle_id": puzzle_id, "puzzle": puzzle_of[puzzle_id].puzzle}
            entry.update(problem.to_json())
            disagreements.append(entry)
        return {
            "run_id": self.run.id,
            "status": self.run.status,
            "ok": self.ok,
            "started": self.run.started,
            "ended": self.run.ended,
            "args": self.run.args,
            "machine": self.run.machine,
            "baseline": self.baseline,
            "puzzles": len(self.puzzles),
            "tasks": len(self.tasks),
            "missing": self.missing,
            "summary": {s.backend: s.to_json() for s in self.summary},
            "collections": {
                name: {s.backend: s.to_json() for s in rows}
                for name, rows in self.collections.items()
            },
            "disagreements": disagreements,
            "warnings": list(self.warnings),
            "results": [
                {
                    "puzzle_id": t.puzzle_id,
                    "backend": t.backend,
                    "sample": t.sample,
                    "status": t.status,
                    "count": t.count,
                    "exhaustive": t.exhaustive,
                    "verdict": t.verdict,
                    "solutions": list(t.solutions),
                    "time_s": t.wall_s,
                    "encode_s": t.encode_s,
                    "solve_s": t.solve_s,
                    "stats": t.stats,
                    "valid": t.valid,
                    "problem": t.problem,
                    "message": t.message,
                }
                for t in self.tasks
            ],
        }


def _pairs(tasks: Sequence[TaskRow]) -> dict[str, list[Pair]]:
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
        times = tuple(t.wall_s for t in rows if t.status in FINISHED)
        efforts = [e for t in rows if (e := effort_of(t.stats))]
        effort = (
            (efforts[0][0], sorted(e[1] for e in efforts)[len(efforts) // 2]) if efforts else None
        )
        pairs[backend].append(Pair(puzzle_id, backend, rows[0].status, times, effort))
    return pairs


def _summaries(
    backends: Sequence[str],
    pairs: dict[str, list[Pair]],
    verdicts: dict[str, PuzzleVerdict],
    baseline: str | None,
    versions: dict[str, Any],
    only: set[str] | None = None,
) -> tuple[BackendSummary, ...]:
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
            )
        )
    return tuple(rows)


def _cross_check_all(
    puzzles: Sequence[PuzzleRow], tasks: Sequence[TaskRow]
) -> dict[str, PuzzleVerdict]:
    """The verdict of every puzzle that has stored tasks."""
    by_puzzle: dict[str, list[TaskRow]] = defaultdict(list)
    for t in tasks:
        by_puzzle[t.puzzle_id].append(t)
    return {
        p.puzzle_id: cross_check(p, by_puzzle[p.puzzle_id])
        for p in puzzles
        if p.puzzle_id in by_puzzle
    }


def _warnings(
    store: Store,
    run: RunRow,
    args: CompareArgs,
    summary: Sequence[BackendSummary],
    planned: int,
    stored: int,
) -> tuple[str, ...]:
    """What to do about the run's numbers, and about tasks it is missing."""
    warnings = []
    if jobs := jobs_warning(args.jobs):
        warnings.append(jobs)
    for s in summary:
        warnings.extend(warnings_for(s.backend, s.times, timeouts=s.timeout))
    if planned > stored:
        missing = f"{planned - stored} of {planned} tasks"
        if run.status == RunStatus.RUNNING:
            warnings.append(
                f"run {run.id} is still running (or its compare was killed): {missing} are not "
                f"stored yet; if no compare runs it, complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
        else:
            warnings.append(
                f"run {run.id} is {run.status} with {missing} missing: complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
    return tuple(warnings)


def build_report(
    store: Store,
    run_id: int | None = None,
    *,
    tasks: Sequence[TaskRow] | None = None,
    verdicts: dict[str, PuzzleVerdict] | None = None,
    puzzles: Sequence[PuzzleRow] | None = None,
) -> RunReport:
    """Read a run (the latest when `run_id` is None) and cross-check and summarize it.

    `compare` passes the rows it just stored (in task order), their verdicts and the run's
    puzzles, so they are not read back and checked again.
    """
    run = store.run(run_id)
    args = CompareArgs.from_json(run.args)
    puzzles = tuple(store.puzzles(run.id)) if puzzles is None else tuple(puzzles)
    if tasks is None:  # read back: their stored checks are made again, never trusted
        tasks = tuple(rechecked(store.tasks(run.id), puzzles, store.path))
    tasks = tuple(tasks)
    if verdicts is None:
        verdicts = _cross_check_all(puzzles, tasks)
    backends = tuple(args.backends)
    pairs = _pairs(tasks)
    versions = run.machine.get("backends", {})
    summary = _summaries(backends, pairs, verdicts, args.baseline, versions)
    collection_of = {p.puzzle_id: p.collection for p in puzzles}
    names = list(dict.fromkeys(p.collection for p in puzzles))
    collections = {}
    if len(names) > 1:
        for name in names:
            members = {pid for pid, c in collection_of.items() if c == name}
            collections[name] = _summaries(
                backends, pairs, verdicts, args.baseline, versions, members
            )
    planned = len(puzzles) * len(backends) * (args.repeat + args.warmup)
    warnings = _warnings(store, run, args, summary, planned, len(tasks))
    return RunReport(
        run=run,
        puzzles=puzzles,
        tasks=tasks,
        backends=backends,
        baseline=args.baseline,
        verdicts=verdicts,
        pairs=dict(pairs),
        summary=summary,
        collections=collections,
        warnings=warnings,
        planned=planned,
        collection_of=collection_of,
    )
