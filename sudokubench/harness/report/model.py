"""The report model: what a stored run says, per backend and per collection.

`build_report(store, run_id)` reads a run back from the database in one ordered pass, puzzle by
puzzle, cross-checks every puzzle's answers again (`verify.cross_check`) and feeds a `Tally`
(`report/tally.py`), whose compact columns the summaries per backend and per collection, the
virtual best, the plots and the warnings are computed from (`finish_report`); `compare` feeds
the same `Tally` as each puzzle's last task comes in, so both always say the same. Memory does
not grow with the rows: a `RunReport` holds no row. What is per task or per puzzle is read
back from the database when it is used: `RunReport.tasks` (its length is known, iterating it
streams the rows, checked again), `puzzles`, and, built on first use and kept, `verdicts`,
`pairs` and `collection_of`. The renderers (`report/render.py`, `report/tasks.py`,
`report/html.py`, `report/plots.py`) only format it, writing what is per task as they read it.

Failures (`RunReport.failures`, per backend) count every task, warm-ups included, that ended in
ERROR or TIMEOUT, with the distinct error messages and how often each came: a run with an error
is never reported as a clean one (`RunReport.exit_code`, the codes of `verify.exit_code`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sudokubench.harness.plan import (
    CompareArgs,
    skipped_backends,
    stored_shapes,
    tasks_per_puzzle,
)
from sudokubench.harness.recheck import checked_puzzles
from sudokubench.harness.records import PuzzleRow, RunRow, TaskRow
from sudokubench.harness.report.caveats import (
    Failures,
    format_seconds,
    host_warnings,
    run_warnings,
)
from sudokubench.harness.report.summary import VIRTUAL_BEST, BackendSummary, pairs_of
from sudokubench.harness.report.tally import Column, Tally
from sudokubench.harness.stats import Pair
from sudokubench.harness.store import Store
from sudokubench.harness.verify import Problem, PuzzleVerdict, cross_check, exit_code

__all__ = [
    "VIRTUAL_BEST",
    "BackendSummary",
    "Failures",
    "RunReport",
    "build_report",
    "finish_report",
    "format_seconds",
]


@dataclass(frozen=True)
class RunReport:
    """A stored run, cross-checked and summarized (see the module docstring for what is read
    back from the database `db` when used)."""

    run: RunRow
    backends: tuple[str, ...]
    baseline: str | None
    summary: tuple[BackendSummary, ...]
    collections: dict[str, tuple[BackendSummary, ...]]
    warnings: tuple[str, ...]
    planned: int
    db: Path
    tally: Tally = field(repr=False, compare=False)
    best: Column | None = field(default=None, repr=False, compare=False)
    failures: dict[str, Failures] = field(default_factory=dict)
    par: float = 2.0
    virtual_best: BackendSummary | None = None
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    # -- what the tally holds --------------------------------------------------------------------

    @property
    def puzzle_count(self) -> int:
        """The puzzles of the run."""
        return self.tally.puzzles

    @property
    def checked(self) -> int:
        """Puzzles whose answers were cross-checked (every one with a stored task)."""
        return self.tally.checked

    @property
    def problems(self) -> list[tuple[str, Problem]]:
        """Every wrong answer and disagreement, by puzzle in input order."""
        return [(puzzle_id, problem) for puzzle_id, _, problem in self.tally.ordered_problems()]

    @property
    def disagreement_count(self) -> int:
        """Puzzles with a wrong answer or a disagreement."""
        return self.tally.disputed

    @property
    def wrong(self) -> bool:
        """Some answer is wrong, or backends disagree."""
        return self.disagreement_count > 0

    @property
    def ok(self) -> bool:
        """No wrong answer, no disagreement, and no task missing (a run interrupted, still
        running or with rows deleted is never ok)."""
        return not self.wrong and self.missing == 0

    @property
    def errors(self) -> int:
        """Tasks that ended in ERROR (warm-ups included)."""
        return sum(f.errors for f in self.failures.values())

    @property
    def timeouts(self) -> int:
        """Tasks that ended in TIMEOUT (warm-ups included)."""
        return sum(f.timeouts for f in self.failures.values())

    def exit_code(self, *, allow_errors: bool = False) -> int:
        """0 clean (timeouts allowed), 1 wrong answer or disagreement, 3 tasks missing or
        errors (unless `allow_errors`): `verify.exit_code`."""
        return exit_code(
            wrong=self.wrong, errors=self.errors, allow_errors=allow_errors, missing=self.missing
        )

    @property
    def missing(self) -> int:
        """Planned tasks with no stored outcome (a run still going, interrupted, or with rows
        deleted)."""
        return max(self.planned - self.tally.stored, 0)

    def column(self, backend: str) -> Column | None:
        """A backend's pairs as a column (`tally.Column`; VIRTUAL_BEST too), None if none."""
        if backend == VIRTUAL_BEST:
            return self.best
        return self.tally.columns.get(backend)

    def collection_names(self) -> list[str]:
        """The collections, in the order their first puzzle comes."""
        return list(self.tally.collection_names)

    # -- what is read back from the database -----------------------------------------------------

    def stream(self) -> Iterator[tuple[int, PuzzleRow, list[TaskRow]]]:
        """(index, puzzle, its stored rows checked again) of every puzzle in input order, read
        back from the database (`recheck.checked_puzzles`)."""
        args = CompareArgs.from_json(self.run.args)
        with Store(self.db, create=False) as store:
            yield from checked_puzzles(store, self.run.id, tasks_per_puzzle(args))

    @property
    def tasks(self) -> StoredTasks:
        """Every stored task, checked again, in task order (read back when iterated)."""
        return StoredTasks(self)

    @property
    def puzzles(self) -> StoredPuzzles:
        """The puzzles of the run in input order (read back when iterated)."""
        return StoredPuzzles(self)

    @property
    def verdicts(self) -> dict[str, PuzzleVerdict]:
        """The verdict of every puzzle with stored tasks, by puzzle id (built on first use)."""
        if "verdicts" not in self._cache:
            self._cache["verdicts"] = {
                p.puzzle_id: cross_check(p, rows) for _, p, rows in self.stream() if rows
            }
        return self._cache["verdicts"]

    @property
    def pairs(self) -> dict[str, list[Pair]]:
        """Each backend's (puzzle, backend) pairs in input order, VIRTUAL_BEST's too with two
        backends or more (built on first use); a pair counted wrong has no time, so it is
        never finished (`report/columns.py`)."""
        if "pairs" not in self._cache:
            pairs: dict[str, list[Pair]] = {}
            best = []
            columns = self.tally.columns
            for i, p, rows in self.stream():
                for backend, found in pairs_of(rows).items():
                    column = columns.get(backend)
                    if column is not None and column.wrong(i):
                        found = [pair._replace(times=()) for pair in found]
                    pairs.setdefault(backend, []).extend(found)
                if self.best is not None and self.best.has(i):
                    best.append(self.best.pair(i, p.puzzle_id, VIRTUAL_BEST))
            if self.best is not None:
                pairs[VIRTUAL_BEST] = best
            self._cache["pairs"] = pairs
        return self._cache["pairs"]

    @property
    def collection_of(self) -> dict[str, str]:
        """Each puzzle's collection, by puzzle id (built on first use)."""
        if "collection_of" not in self._cache:
            self._cache["collection_of"] = {p.puzzle_id: p.collection for p in self.puzzles}
        return self._cache["collection_of"]

    # -- JSON ------------------------------------------------------------------------------------

    def head_json(self) -> dict[str, Any]:
        """The JSON form but its `results` (what `to_json` writes before them)."""
        disagreements = []
        for puzzle_id, puzzle, problem in self.tally.ordered_problems():
            entry = {"puzzle_id": puzzle_id, "puzzle": puzzle}
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
            "puzzles": self.puzzle_count,
            "tasks": self.tally.stored,
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
        }

    def results_json(self) -> Iterator[dict[str, Any]]:
        """The entries of the JSON form's `results`, one per stored task, read back."""
        for t in self.tasks:
            yield task_json(t)

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (the same as `compare --json`); `render.write_json` writes it
        without holding its `results` in memory."""
        return {**self.head_json(), "results": list(self.results_json())}


class StoredTasks:
    """A report's stored tasks: its length is known, iterating reads them back, checked."""

    def __init__(self, report: RunReport) -> None:
        self.report = report

    def __len__(self) -> int:
        return self.report.tally.stored

    def __iter__(self) -> Iterator[TaskRow]:
        for _, _, rows in self.report.stream():
            yield from rows


class StoredPuzzles:
    """A report's puzzles: their number is known, iterating reads them back in input order."""

    def __init__(self, report: RunReport) -> None:
        self.report = report

    def __len__(self) -> int:
        return self.report.tally.puzzles

    def __iter__(self) -> Iterator[PuzzleRow]:
        with Store(self.report.db, create=False) as store:
            yield from store.ordered_puzzles(self.report.run.id)


def _failures_json(failures: Mapping[str, Failures]) -> dict[str, Any]:
    """The `failures` of the JSON form: per backend with errors or timeouts."""
    return {
        backend: {
            "errors": f.errors,
            "timeouts": f.timeouts,
            "messages": [{"message": m, "count": n} for m, n in f.messages],
            "unlisted": f.unlisted,
        }
        for backend, f in failures.items()
        if f.errors or f.timeouts
    }


def task_json(t: TaskRow) -> dict[str, Any]:
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


def build_report(store: Store, run_id: int | None = None, *, par: float = 2.0) -> RunReport:
    """Read a run (the latest when `run_id` is None) in one ordered pass, its stored checks
    made again (never trusted), and cross-check and summarize it. `par` is the k of PAR-k."""
    run = store.run(run_id)
    args = CompareArgs.from_json(run.args)
    tally = Tally(args.backends, store.puzzle_count(run.id))
    shapes = stored_shapes(run.machine)
    for i, puzzle, rows in checked_puzzles(store, run.id, tasks_per_puzzle(args)):
        tally.register(i, puzzle, skipped_backends(puzzle, shapes))
        tally.add(i, puzzle, rows, cross_check(puzzle, rows) if rows else None)
    return finish_report(store, run, tally, par=par)


def finish_report(store: Store, run: RunRow, tally: Tally, *, par: float = 2.0) -> RunReport:
    """The report of a run whose puzzles have all been fed to `tally`."""
    args = CompareArgs.from_json(run.args)
    backends = tuple(args.backends)
    versions = run.machine.get("backends", {})
    timeout = float(args.timeout or 0.0)
    summary, collections = tally.summaries(
        backends, tally.columns, args.baseline, versions, timeout=timeout, par=par
    )
    best = virtual_best = None
    if len(backends) > 1:
        best = tally.virtual_best()
        columns = {**tally.columns, VIRTUAL_BEST: best}
        (virtual_best,), _ = tally.summaries(
            (VIRTUAL_BEST,), columns, args.baseline, {}, timeout=timeout, par=par,
            per_collection=False,
        )  # fmt: skip
    planned = (tally.puzzles * len(backends) - tally.skipped.total()) * (args.repeat + args.warmup)
    warnings = run_warnings(store, run, args, tally.noisy(backends), summary, planned, tally.stored)
    warnings += tuple(
        f"{b}: {n} puzzles of a size it does not take were skipped (never sent to it)"
        for b, n in tally.skipped.items()
    )
    warnings += host_warnings(tally.host_sets())
    return RunReport(
        run=run,
        backends=backends,
        baseline=args.baseline,
        summary=summary,
        collections=collections,
        warnings=warnings,
        planned=planned,
        db=store.path.absolute(),
        tally=tally,
        best=best,
        failures={b: Failures(*f) for b, f in tally.failures().items()},
        par=par,
        virtual_best=virtual_best,
    )
