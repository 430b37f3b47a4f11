"""The report model: what a stored run says, per backend and per collection.

`build_report(store, run_id)` reads a run back from the database, cross-checks every puzzle's
answers again (`verify.cross_check`), and summarizes per backend and per collection
(`stats`); `compare` calls it with the rows it stored, so both always say the same. The
renderers (`report/render.py`, `report/plots.py`) only format it.

Per backend: `solved`, `unsatisfiable`, `timeout`, `error` count (puzzle, backend) pairs by the
status of their first measured sample; `wrong` counts pairs whose answer is proven wrong or
contradicts the file's expected answer; `disagree` counts puzzles with a disagreement the
backend took a side in. Times are described in `stats`. Every count, time and plot applies the
strict limit (`stats.limited_status`: an answer after `--timeout` is a TIMEOUT); `par_s` is
the PAR-k score (`par`, 2 unless asked otherwise) and `virtual_best` the best backend per
puzzle, summarized like a backend.

Failures (`RunReport.failures`, per backend) count every task, warm-ups included, that ended in
ERROR or TIMEOUT, with the distinct error messages and how often each came: a run with an error
is never reported as a clean one (`RunReport.exit_code`, the codes of `verify.exit_code`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sudokubench.backend import Status
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
            "failures": {
                backend: {
                    "errors": f.errors,
                    "timeouts": f.timeouts,
                    "messages": [{"message": m, "count": n} for m, n in f.messages],
                }
                for backend, f in self.failures.items()
                if f.errors or f.timeouts
            },
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
        statuses = [limited_status(t.status, t.wall_s, t.timeout) for t in rows]
        times = tuple(t.wall_s for t, s in zip(rows, statuses, strict=True) if s in FINISHED)
        efforts = [e for t in rows if (e := effort_of(t.stats))]
        effort = (
            (efforts[0][0], sorted(e[1] for e in efforts)[len(efforts) // 2]) if efforts else None
        )
        pairs[backend].append(Pair(puzzle_id, backend, statuses[0], times, effort))
    return pairs


def _virtual_best(
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


def _summaries(
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
    pairs = _pairs(tasks)
    versions = run.machine.get("backends", {})
    timeout = float(args.timeout or 0.0)
    summary = _summaries(
        backends, pairs, verdicts, args.baseline, versions, timeout=timeout, par=par
    )
    virtual_best = None
    if len(backends) > 1:
        pairs[VIRTUAL_BEST] = _virtual_best(puzzles, pairs, verdicts)
        (virtual_best,) = _summaries(
            (VIRTUAL_BEST,), pairs, verdicts, args.baseline, {}, timeout=timeout, par=par
        )
    collection_of = {p.puzzle_id: p.collection for p in puzzles}
    names = list(dict.fromkeys(p.collection for p in puzzles))
    collections = {}
    if len(names) > 1:
        for name in names:
            members = {pid for pid, c in collection_of.items() if c == name}
            collections[name] = _summaries(
                backends,
                pairs,
                verdicts,
                args.baseline,
                versions,
                members,
                timeout=timeout,
                par=par,
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
