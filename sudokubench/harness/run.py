"""Running a comparison: `compare` plans the tasks (`plan.py`), streams them through an
executor (`pool/`), stores each outcome as a row with its check (`store.py`, `verify.py`),
cross-checks each puzzle as soon as its last task is in, and builds the report (`report/`).

`--resume RUN` reloads the run's stored arguments, plans the same tasks, skips the task ids
already stored and runs the rest: the finished run equals an uninterrupted one, timings aside.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sudokubench.backend import Status
from sudokubench.errors import ArgumentError
from sudokubench.grid import Grid
from sudokubench.harness import noise
from sudokubench.harness.plan import (
    CompareArgs,
    load_puzzles,
    machine_info,
    plan,
    resolve_args,
    resolve_backends,
)
from sudokubench.harness.pool import HOST, Executor, LocalPool, Outcome, Task
from sudokubench.harness.pool.guard import sanitize, trusted
from sudokubench.harness.recheck import rechecked
from sudokubench.harness.records import PuzzleRow, RunStatus, TaskRow
from sudokubench.harness.report.model import RunReport, build_report
from sudokubench.harness.stats import limited_status
from sudokubench.harness.store import Store, StoreError
from sudokubench.harness.verify import PuzzleVerdict, check_result, cross_check, puzzle_grid

__all__ = ["Interrupted", "Progress", "UntrustedBackends", "compare", "to_row"]


def to_row(outcome: Outcome, puzzle: Grid | None) -> TaskRow:
    """A worker's outcome as a row to store, with the check of the answer on its own
    (`is_solution`, counts): the one the worker made, else made here on `puzzle` (needed
    only then). An answer that came after the limit is stored as TIMEOUT with its raw time
    and its answer (`stats.limited_status`)."""
    task = outcome.task
    status = limited_status(outcome.status, outcome.wall_s, task.timeout)
    message = outcome.message
    if status != outcome.status:
        message = f"answered after {outcome.wall_s:.3g} s, over the {task.timeout:g} s limit"
    if outcome.checked:
        verdict, problem, solutions = outcome.verdict, outcome.problem, outcome.solutions
    else:
        if puzzle is None:
            raise ValueError(f"task {task.task_id}: an unchecked outcome needs its puzzle")
        voice = check_result(task.backend, puzzle, outcome, task.limit)
        verdict, problem = str(voice.verdict), voice.problem
        solutions = voice.solutions if voice.sound else tuple(outcome.solutions)
    return TaskRow(
        task_id=task.task_id,
        puzzle_id=task.puzzle_id,
        puzzle=task.puzzle,
        backend=task.backend,
        limit=task.limit,
        timeout=task.timeout,
        sample=task.sample,
        status=status,
        count=outcome.count,
        exhaustive=outcome.exhaustive,
        solutions=solutions,
        encode_s=outcome.encode_s,
        solve_s=outcome.solve_s,
        wall_s=outcome.wall_s,
        stats=dict(outcome.stats),
        message=message,
        verdict=verdict,
        valid=problem is None,
        problem=problem,
        host=outcome.host or HOST,
    )


@dataclass
class Progress:
    """Live counts of a run, passed to the progress callback after every outcome."""

    run_id: int
    total: int
    done: int = 0
    started: float = field(default_factory=time.perf_counter)
    statuses: Counter[Status] = field(default_factory=Counter)
    wrong: int = 0
    disagreements: int = 0

    @property
    def timeouts(self) -> int:
        """Tasks that timed out so far."""
        return self.statuses[Status.TIMEOUT]

    @property
    def errors(self) -> int:
        """Tasks that failed so far."""
        return self.statuses[Status.ERROR]

    def eta_s(self) -> float | None:
        """Seconds left at the rate so far, None before the first outcome."""
        if not self.done:
            return None
        rate = (time.perf_counter() - self.started) / self.done
        return rate * (self.total - self.done)


class _Tracker:
    """Keeps every row; cross-checks a puzzle as soon as its last task is in."""

    def __init__(
        self, puzzles: Sequence[PuzzleRow], tasks: Sequence[Task], progress: Progress
    ) -> None:
        self.progress = progress
        self.pending = Counter(t.puzzle_id for t in tasks)
        self.puzzles = {p.puzzle_id: p for p in puzzles}
        self.by_puzzle: dict[str, list[TaskRow]] = {}
        self.rows: list[TaskRow] = []
        self.verdicts: dict[str, PuzzleVerdict] = {}

    def add(self, row: TaskRow, *, counted: bool = True) -> None:
        if counted:
            self.progress.done += 1
            self.progress.statuses[row.status] += 1
            self.progress.wrong += not row.valid
        self.rows.append(row)
        rows = self.by_puzzle.setdefault(row.puzzle_id, [])
        rows.append(row)
        self.pending[row.puzzle_id] -= 1
        if self.pending[row.puzzle_id] == 0:
            verdict = cross_check(self.puzzles[row.puzzle_id], rows)
            self.verdicts[row.puzzle_id] = verdict
            if any(p.kind == "disagree" for p in verdict.problems):
                self.progress.disagreements += 1
            del self.by_puzzle[row.puzzle_id]


class UntrustedBackends(ArgumentError):
    """A stored run to resume names plug-ins or programs, which run only with consent."""

    def __init__(self, run_id: int, db: Path, names: Sequence[str]) -> None:
        shown = ", ".join(repr(n[:200]) for n in names)
        super().__init__(
            f"run {run_id} of {db} runs code named in the database: {shown}; check it, then "
            "resume with --trust-backends to run it"
        )
        self.names = tuple(names)


class Interrupted(Exception):
    """Ctrl-C stopped a run; what is committed stays, `--resume run_id` completes it."""

    def __init__(self, run_id: int, db: Path) -> None:
        super().__init__(f"run {run_id} interrupted")
        self.run_id = run_id
        self.db = db


def compare(
    args: CompareArgs,
    *,
    db: str | Path = "sudokubench.sqlite",
    resume: int | None = None,
    executor: Executor | None = None,
    progress: Callable[[Progress], None] | None = None,
    on_start: Callable[[int, int, int], None] | None = None,
    par: float = 2.0,
    jobs: int | None = None,
    trust_backends: bool = False,
) -> RunReport:
    """Run (or with `resume`, complete) a comparison; the report built from the database
    (with PAR-`par` scores).

    With `resume`, `jobs` (when given) replaces the stored number of workers, and a stored
    plug-in or `exec:` backend (code a database names, which anyone may have written) runs
    only with `trust_backends`: else `UntrustedBackends` names them.

    `executor` defaults to `LocalPool(jobs=args.jobs, preload=args.backends)`, made first so
    that its fork server starts while the input is read, and closed at the end; an executor
    the caller passes in stays open (the caller closes it). `on_start(run_id, total,
    already_done)` is called once the tasks are planned. Raises `Interrupted` on Ctrl-C,
    an `InputError` (`UnknownBackendError`, `StoreError`, ...) or `OSError` for bad input.
    """
    with _rare_collections():
        return _compare(
            args,
            db=db,
            resume=resume,
            executor=executor,
            progress=progress,
            on_start=on_start,
            par=par,
            resume_as=(jobs, trust_backends),
        )


@contextlib.contextmanager
def _rare_collections() -> Iterator[None]:
    """Run the cyclic garbage collector 100 times less often for a while.

    A run keeps every result in memory for its report, and CPython's collector would walk those
    rows again and again as they pile up: 10-15 us of the parent's time per puzzle on the whole
    of 17clue (49,158 puzzles), as much as checking and storing the answer. Cycles are still
    collected, only later; the thresholds come back when the run ends.
    """
    old = gc.get_threshold()
    if old[0]:  # 0 means no automatic collection at all: leave it so
        gc.set_threshold(max(old[0], 100 * 700), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _compare(
    args: CompareArgs,
    *,
    db: str | Path,
    resume: int | None,
    executor: Executor | None,
    progress: Callable[[Progress], None] | None,
    on_start: Callable[[int, int, int], None] | None,
    par: float,
    resume_as: tuple[int | None, bool] = (None, False),
) -> RunReport:
    db = Path(db)
    own: Executor | None = None  # the pool made here, closed here on every path
    try:
        if resume is None:  # bad input stops the run before the database is touched
            args = resolve_args(args)
            if executor is None:  # its fork server boots while the puzzles are read
                executor = own = _local_pool(args)
            puzzles = load_puzzles(args)
            workers = executor.prepare(args.backends)
            store = Store(db, create=True)
        else:
            store = Store(db, create=False)
        try:
            if resume is not None:
                args, puzzles = _reopen(store, resume, *resume_as)
                run_id = resume
                if executor is None:
                    executor = own = _local_pool(args)
                store.add_workers(run_id, executor.prepare(args.backends))
            else:
                machine = {**machine_info(args.backends), "workers": workers}
                run_id = store.new_run(args.to_json(), machine, puzzles)
            return _run(store, run_id, args, puzzles, executor, progress, on_start, par)
        finally:
            store.close()
    finally:
        if own is not None:
            own.close()


def _reopen(
    store: Store, run_id: int, jobs: int | None, trust: bool
) -> tuple[CompareArgs, list[PuzzleRow]]:
    """A stored run's arguments (its backends checked again, `jobs` replaced when given) and
    puzzles, marked running; UntrustedBackends when it names code and `trust` is False."""
    run = store.run(run_id)
    stored = dict(run.args)
    names = stored.get("backends")  # consent first: before anything else is read from it
    foreign = [n for n in names if not trusted(str(n))] if isinstance(names, list) else []
    if foreign and not trust:
        raise UntrustedBackends(run_id, store.path, [str(n) for n in foreign])
    if jobs is not None:  # (before the stored arguments are checked: it may repair them)
        stored["jobs"] = jobs
    args = CompareArgs.from_json(stored)
    if jobs is not None:  # the report says how the run was made
        store.set_args(run_id, args.to_json())
    resolve_backends(args.backends)
    puzzles = store.puzzles(run_id)
    if not puzzles:  # (written by an older sudokubench that stored them apart from the run)
        raise StoreError(
            f"run {run_id} of {store.path} has no stored puzzles (it was stopped while "
            "starting): nothing to resume, start the run again"
        )
    store.set_status(run_id, RunStatus.RUNNING)
    return args, puzzles


def _run(
    store: Store,
    run_id: int,
    args: CompareArgs,
    puzzles: list[PuzzleRow],
    executor: Executor,
    progress: Callable[[Progress], None] | None,
    on_start: Callable[[int, int, int], None] | None,
    par: float,
) -> RunReport:
    """Run the tasks not stored yet, then build the report from the rows in memory."""
    start = noise.snapshot()
    try:
        tasks = plan(args, puzzles)
        done = store.done_task_ids(run_id)
        todo = [t for t in tasks if t.task_id not in done]
        tracker = _Tracker(puzzles, tasks, Progress(run_id, total=len(todo)))
        for row in rechecked(store.tasks(run_id), puzzles, store.path):  # never trusted
            tracker.add(row, counted=False)
        if on_start:
            on_start(run_id, len(tasks), len(done))
        _execute(store, run_id, todo, tracker, executor, progress)
    except KeyboardInterrupt:
        store.set_status(run_id, RunStatus.INTERRUPTED)
        raise Interrupted(run_id, store.path) from None
    _record_noise(store, run_id, start, noise.snapshot())
    # The rows in memory are the rows stored: no need to read them back.
    rows = sorted(tracker.rows, key=lambda t: t.task_id)
    report = build_report(
        store, run_id, tasks=rows, verdicts=tracker.verdicts, puzzles=puzzles, par=par
    )
    store.set_status(run_id, RunStatus.COMPLETE, disagreements=report.disagreement_count)
    return replace(report, run=store.run(run_id))


def _record_noise(store: Store, run_id: int, start: dict[str, Any], end: dict[str, Any]) -> None:
    """Add the machine's load and CPU frequency at the start and end of this session, and the
    parent's CPU time against the wall time, to the run's machine description."""
    machine = dict(store.run(run_id).machine)
    machine["noise"] = {
        "load_start": start["load"],
        "load_end": end["load"],
        "cpu_mhz_start": start["cpu_mhz"],
        "cpu_mhz_end": end["cpu_mhz"],
        "wall_s": round(end["clock_s"] - start["clock_s"], 3),
        "parent_cpu_s": round(end["cpu_s"] - start["cpu_s"], 3),
    }
    store.set_machine(run_id, machine)


def _local_pool(args: CompareArgs) -> Executor:
    """The default executor: `args.jobs` local workers, the backends' modules preloaded, each
    worker's first call of each backend a warm-up unless `args.warm_up` is off."""
    return LocalPool(jobs=args.jobs, preload=args.backends, warm_up=args.warm_up)


def _execute(
    store: Store,
    run_id: int,
    todo: Sequence[Task],
    tracker: _Tracker,
    executor: Executor,
    progress: Callable[[Progress], None] | None,
) -> None:
    grids: dict[str, Grid] = {}  # parsed only for outcomes the executor did not check
    # A plug-in's or program's answer is checked here, where its code never ran: in its
    # worker it could have replaced the check. Sudokubench's own backends keep the worker's.
    own = {name: trusted(name) for name in {t.backend for t in todo}}
    outcomes = executor.run(todo)
    with store.writer(run_id) as writer:  # on Ctrl-C too: commit what finished
        for outcome in outcomes:
            grid = None
            if not own.get(outcome.task.backend, False):
                # plain, bounded, finite values (the worker made them so, unless the plug-in
                # reached that code too), and the check made here
                outcome = sanitize(outcome)._replace(checked=False)
            if not outcome.checked:
                puzzle_id = outcome.task.puzzle_id
                if puzzle_id not in grids:
                    grids[puzzle_id] = puzzle_grid(tracker.puzzles[puzzle_id])
                grid = grids[puzzle_id]
            row = to_row(outcome, grid)
            writer.add(row)
            tracker.add(row)
            if progress:
                progress(tracker.progress)
    # (an abandoned generator stops the pool's workers in flight as soon as it is closed)
