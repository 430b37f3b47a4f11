"""The report model: what a stored run says, per backend and per collection.

`build_report(store, run_id)` reads a run back from the database, cross-checks every puzzle's
answers again (`verify.cross_check`), and summarizes per backend and per collection
(`stats`; the per-backend rows are `report/summary.py`'s); `compare` calls it with the rows
it stored, so both always say the same. The renderers (`report/render.py`, `report/tasks.py`,
`report/html.py`, `report/plots.py`) only format it.

Failures (`RunReport.failures`, per backend) count every task, warm-ups included, that ended in
ERROR or TIMEOUT, with the distinct error messages and how often each came: a run with an error
is never reported as a clean one (`RunReport.exit_code`, the codes of `verify.exit_code`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sudokubench.harness.plan import CompareArgs
from sudokubench.harness.recheck import rechecked
from sudokubench.harness.records import PuzzleRow, RunRow, TaskRow
from sudokubench.harness.report.caveats import (
    Failures,
    failures_of,
    format_seconds,
    host_warnings,
    run_warnings,
)
from sudokubench.harness.report.summary import (
    VIRTUAL_BEST,
    BackendSummary,
    pairs_of,
    summaries,
    virtual_best_pairs,
)
from sudokubench.harness.stats import Pair
from sudokubench.harness.store import Store
from sudokubench.harness.verify import Problem, PuzzleVerdict, cross_check, exit_code

__all__ = [
    "VIRTUAL_BEST",
    "BackendSummary",
    "Failures",
    "RunReport",
    "build_report",
    "format_seconds",
]


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
    failures: dict[str, Failures] = field(default_factory=dict)
    par: float = 2.0
    virtual_best: BackendSummary | None = None

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
    def errors(self) -> int:
        """Tasks that ended in ERROR (warm-ups included)."""
        return sum(f.errors for f in self.failures.values())

    @property
    def timeouts(self) -> int:
        """Tasks that ended in TIMEOUT (warm-ups included)."""
        return sum(f.timeouts for f in self.failures.values())

    def exit_code(self, *, allow_errors: bool = False) -> int:
        """0 clean (timeouts allowed), 1 wrong answer or disagreement, 3 errors (unless
        `allow_errors`): `verify.exit_code`."""
        return exit_code(wrong=not self.ok, errors=self.errors, allow_errors=allow_errors)

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
            "par": self.par,
            "puzzles": len(self.puzzles),
            "tasks": len(self.tasks),
            "missing": self.missing,
            "summary": {s.backend: s.to_json() for s in self.summary},
            "virtual_best": self.virtual_best.to_json() if self.virtual_best else None,
            "collections": {
                name: {s.backend: s.to_json() for s in rows}
                for name, rows in self.collections.items()
            },
            "disagreements": disagreements,
            "errors": self.errors,
            "timeouts": self.timeouts,
            "failures": _failures_json(self.failures),
            "warnings": list(self.warnings),
            "results": [_task_json(t) for t in self.tasks],
        }


def _failures_json(failures: dict[str, Failures]) -> dict[str, Any]:
    """The `failures` of the JSON form: per backend with errors or timeouts."""
    return {
        backend: {
            "errors": f.errors,
            "timeouts": f.timeouts,
            "messages": [{"message": m, "count": n} for m, n in f.messages],
        }
        for backend, f in failures.items()
        if f.errors or f.timeouts
    }


def _task_json(t: TaskRow) -> dict[str, Any]:
    """One entry of the `results` of the JSON form."""
    return {
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


def _collection_summaries(
    puzzles: Sequence[PuzzleRow],
    backends: Sequence[str],
    pairs: dict[str, list[Pair]],
    verdicts: dict[str, PuzzleVerdict],
    baseline: str | None,
    versions: dict[str, Any],
    *,
    timeout: float,
    par: float,
) -> dict[str, tuple[BackendSummary, ...]]:
    """The backends summarized per collection, when the run has more than one."""
    names = list(dict.fromkeys(p.collection for p in puzzles))
    if len(names) < 2:
        return {}
    return {
        name: summaries(
            backends,
            pairs,
            verdicts,
            baseline,
            versions,
            {p.puzzle_id for p in puzzles if p.collection == name},
            timeout=timeout,
            par=par,
        )
        for name in names
    }


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


def build_report(
    store: Store,
    run_id: int | None = None,
    *,
    tasks: Sequence[TaskRow] | None = None,
    verdicts: dict[str, PuzzleVerdict] | None = None,
    puzzles: Sequence[PuzzleRow] | None = None,
    par: float = 2.0,
) -> RunReport:
    """Read a run (the latest when `run_id` is None) and cross-check and summarize it.

    `compare` passes the rows it just stored (in task order), their verdicts and the run's
    puzzles, so they are not read back and checked again. `par` is the k of the PAR-k score.
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
    pairs = pairs_of(tasks)
    versions = run.machine.get("backends", {})
    timeout = float(args.timeout or 0.0)
    summary = summaries(
        backends, pairs, verdicts, args.baseline, versions, timeout=timeout, par=par
    )
    virtual_best = None
    if len(backends) > 1:
        pairs[VIRTUAL_BEST] = virtual_best_pairs(puzzles, pairs, verdicts)
        (virtual_best,) = summaries(
            (VIRTUAL_BEST,), pairs, verdicts, args.baseline, {}, timeout=timeout, par=par
        )
    collection_of = {p.puzzle_id: p.collection for p in puzzles}
    collections = _collection_summaries(
        puzzles, backends, pairs, verdicts, args.baseline, versions, timeout=timeout, par=par
    )
    planned = len(puzzles) * len(backends) * (args.repeat + args.warmup)
    warnings = run_warnings(store, run, args, pairs, summary, planned, len(tasks))
    warnings += host_warnings(tasks)
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
        failures=failures_of(backends, tasks),
        par=par,
        virtual_best=virtual_best,
    )
