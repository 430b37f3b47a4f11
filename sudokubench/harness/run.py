"""Running a comparison: `compare` stores the run with its puzzles (read as they are written,
in one transaction, on a thread: `startup.py`) while the first puzzles already run, plans the
tasks puzzle by puzzle as the executor (`pool/`) takes them (`plan.py`), stores each outcome as
a row with its check (`store.py`, `verify.py`; held until the run's start is committed),
cross-checks each puzzle as soon as its last task is in, feeds it to the report's `Tally` and
drops its rows (`report/`).

Memory is flat in the number of tasks: the parent holds the puzzles with tasks in flight, the
executor's window of tasks, and the tally's compact columns (a few dozen bytes per puzzle and
backend), never a list of every puzzle, task or row.

`--resume RUN` reloads the run's stored arguments, reads the stored rows back in one ordered
pass (checked again; the puzzles all done are cross-checked then, only the rows of puzzles
partly done are kept), plans the same tasks and runs the rest: the finished run equals an
uninterrupted one, timings aside.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from operator import attrgetter
from pathlib import Path
from typing import Any

from sudokubench.errors import ArgumentError, ClusterLost
from sudokubench.harness import dbfile, noise
from sudokubench.harness.plan import (
    CompareArgs,
    load_puzzle_lists,
    machine_info,
    resolve_args,
    resolve_backends,
)
from sudokubench.harness.pool import Executor, LocalPool, Task
from sudokubench.harness.pool.batch import Batch
from sudokubench.harness.pool.guard import sanitize, sanitize_many, trusted
from sudokubench.harness.records import PuzzleRow, RunStatus, TaskRow
from sudokubench.harness.report.model import RunReport, finish_report
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.startup import PREFIX, Startup
from sudokubench.harness.store import Store, StoreError, TaskWriter
from sudokubench.harness.track import Progress, Tracker, lane_rows, to_row

__all__ = ["Interrupted", "Progress", "UntrustedBackends", "compare", "to_row"]  # (two from track)

#: An outcome's backend, read in C.
_TASK_BACKEND = attrgetter("task.backend")


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
    """Ctrl-C (or, with a `reason`, a lost cluster) stopped a run; what is committed stays,
    `--resume run_id` completes it."""

    def __init__(self, run_id: int, db: Path, reason: str | None = None) -> None:
        super().__init__(f"run {run_id} interrupted" + (f": {reason}" if reason else ""))
        self.run_id = run_id
        self.db = db
        self.reason = reason  # None for Ctrl-C


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
    already_done)` is called once the tasks are planned. Raises `Interrupted` on Ctrl-C
    or a lost cluster (`ClusterLost` when nothing was stored yet),
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
    """Run the cyclic garbage collector 1,000 times less often for a while.

    A run allocates several container objects per task (its outcome, row, stats and
    solutions), and CPython's collector would walk the young ones again and again: when a run
    kept every row, 10-15 us of the parent's time per puzzle on the whole of 17clue (49,158
    puzzles), as much as checking and storing the answer. Cycles are still collected, only
    later; the thresholds come back when the run ends.

    The collector counts the containers made less those freed, and a run's objects are freed
    as they are done with, nearly none in a cycle (a few hundred in a run of 20,000 tasks):
    what makes the count grow is the run's start, its first puzzles read and queued at once
    (`startup.PREFIX`) with the executor's window. At 100 times less often, that start alone
    cost two collections of ~70,000 live objects, 50 ms of the parent's CPU (2.5 us a task on
    20,000 puzzles of 17clue, `compare -b native --jobs 2`); at 1,000 times, none.
    """
    old = gc.get_threshold()
    if old[0]:  # 0 means no automatic collection at all: leave it so
        gc.set_threshold(max(old[0], 1000 * 700), *old[1:])
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
        if resume is not None:
            store = Store(db, create=False)
            try:
                args = _reopen(store, resume, *resume_as)
                if executor is None:
                    executor = own = _local_pool(args)
                store.add_workers(resume, executor.prepare(args.backends))
                run = _Run(args, executor, progress, on_start, par)
                return run.go(store, resume, None)
            finally:
                store.close()
        args = resolve_args(args)  # bad input stops the run before the database is touched
        if executor is None:  # its fork server boots while the puzzles are read
            executor = own = _local_pool(args)
        puzzles = load_puzzle_lists(args)  # (read as they are stored: the first list here)
        workers = executor.prepare(args.backends)
        machine = {**machine_info(args.backends), "workers": workers}
        return _start(db, args, machine, puzzles, _Run(args, executor, progress, on_start, par))
    finally:
        if own is not None:
            own.close()


def _start(
    db: Path,
    args: CompareArgs,
    machine: dict[str, Any],
    puzzles: Iterable[list[PuzzleRow]],
    run: _Run,
) -> RunReport:
    """A new run: stored with its puzzles, read as they are written, in one transaction
    (`Startup`, on a thread, while the first puzzles already run); when the input turns out
    bad (or Ctrl-C) before it is all stored, nothing is stored (the tasks run so far are
    dropped), and a database file made here is removed unless another process holds it or
    it stores a run (`dbfile.discard`: two compares may both have made it)."""
    made = not db.exists()
    store = Store(db, create=True)
    startup = Startup(store, args.to_json(), machine, puzzles)
    stopped = True
    try:
        return run.go(store, None, startup)
    except BaseException:
        stopped = startup.abandon()  # False: blocked on an input that sends nothing
        if stopped and not startup.committed:
            store.close()
            if made:
                dbfile.discard(db)
        raise
    finally:
        if stopped:  # (else its thread still holds the connection: the process ends anyway)
            store.close()


def _reopen(store: Store, run_id: int, jobs: int | None, trust: bool) -> CompareArgs:
    """A stored run's arguments (its backends checked again, `jobs` replaced when given), the
    run marked running; UntrustedBackends when it names code and `trust` is False."""
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
    if not store.puzzle_count(run_id):  # (an older sudokubench stored them apart from the run)
        raise StoreError(
            f"run {run_id} of {store.path} has no stored puzzles (it was stopped while "
            "starting): nothing to resume, start the run again"
        )
    store.set_status(run_id, RunStatus.RUNNING)
    return args


class _Run:
    """One run's execution: its tasks planned puzzle by puzzle as the executor takes them, the
    outcomes stored and tracked, then the report made from the tally fed as each puzzle's last
    task came in."""

    def __init__(
        self,
        args: CompareArgs,
        executor: Executor,
        progress: Callable[[Progress], None] | None,
        on_start: Callable[[int, int, int], None] | None,
        par: float,
    ) -> None:
        self.args = args
        self.executor = executor
        self.progress = progress
        self.on_start = on_start
        self.par = par
        self.tracker: Tracker | None = None

    def go(self, store: Store, run_id: int | None, startup: Startup | None) -> RunReport:
        """Run (resume `run_id`, or start the run `startup` stores) to the end; its report."""
        args = self.args
        start = noise.snapshot()
        puzzles = PREFIX if startup else store.puzzle_count(run_id)  # (sized again at `begin`)
        tally = Tally(args.backends, puzzles)
        reader = Store(store.path, create=False)  # planning reads apart from the writes
        tracker = self.tracker = Tracker(reader, run_id, args, tally, Progress(run_id or 0, 0))
        rows = _Rows(store, startup, run_id, self._begin)
        try:
            if startup is None:
                assert run_id is not None
                self._begin(run_id, puzzles, tracker.read_stored())
            _execute(rows, tracker.todo(startup), tracker, self.executor, self.progress)
            rows.close()
        except (KeyboardInterrupt, ClusterLost) as exc:
            if not rows.close():  # (what finished is committed)
                raise  # stopped while starting: nothing is stored
            store.set_status(tracker.run_id, RunStatus.INTERRUPTED)
            reason = str(exc) if isinstance(exc, ClusterLost) else None
            raise Interrupted(tracker.run_id, store.path, reason) from None
        except BaseException as exc:
            self._stopped(store, rows, exc)
            raise
        finally:
            reader.close()
        try:
            rows.close()
            run_id = tracker.run_id
            assert run_id is not None
            tracker.close_rest()
            _record_noise(store, run_id, start, noise.snapshot())
            report = finish_report(store, store.run(run_id), tally, par=self.par)
            store.set_status(run_id, RunStatus.COMPLETE, disagreements=report.disagreement_count)
            return replace(report, run=store.run(run_id))
        except Exception as exc:
            self._stopped(store, rows, exc)
            raise

    def _stopped(self, store: Store, rows: _Rows, exc: BaseException) -> None:
        """After a failure (a full disk, a locked or damaged database, a bug): what finished
        committed, and a run that was stored marked interrupted, never left `running` nor
        `complete`; the exception gets a note saying so (the CLI shows it on its line)."""
        with contextlib.suppress(Exception):
            rows.close()
        run_id = self.tracker.run_id if self.tracker is not None else None
        if run_id is None or rows.writer is None:  # the run's start was never committed
            return
        marked = False
        with contextlib.suppress(Exception):  # (a full disk may refuse this write too)
            store.set_status(run_id, RunStatus.INTERRUPTED)
            marked = True
        exc.add_note(
            f"run {run_id} {'is marked interrupted' if marked else 'stopped'}; resume with: "
            f"sudokubench compare --resume {run_id} --db {store.path}"
        )

    def _begin(self, run_id: int, puzzles: int, stored: int = 0) -> None:
        """The run's id and size known (a new run stored with its puzzles): the tracker sized,
        `on_start` told."""
        tracker = self.tracker
        assert tracker is not None
        tracker.begin(run_id, puzzles)  # (a resumed run's tracker has its id already)
        total = puzzles * tracker.per_puzzle - tracker.skipped  # (more skipped as planned)
        tracker.progress.total = total - stored
        if self.on_start:
            self.on_start(run_id, total, stored)


class _Rows:
    """The task rows to store: held while a new run is still being stored (none may be
    written before its start commits), then through a batching `TaskWriter`."""

    def __init__(
        self,
        store: Store,
        startup: Startup | None,
        run_id: int | None,
        begin: Callable[[int, int], None],
    ) -> None:
        self.store = store
        self.startup = startup
        self.run_id = run_id  # a resumed run's; a new run's comes from `startup`
        self.begin = begin  # called with the new run's id and puzzle count once it is stored
        self.held: list[TaskRow] = []
        self.held_texts: list[tuple[str, str] | None] = []  # (`TaskWriter.add_many`'s texts)
        self.held_values: list[Any] = []  # (`TaskWriter.add_values`'s flat rows)
        self.writer: TaskWriter | None = None

    def add_many(
        self, rows: list[TaskRow], texts: list[tuple[str, str] | None] | None = None
    ) -> None:
        """Store rows (now or once the run's start is committed); `texts`: each row's
        solutions and stats as JSON, or None where they are made here."""
        writer = self.writer
        if writer is None:
            writer = self._open()
            if writer is None:
                self.held.extend(rows)
                self.held_texts.extend([None] * len(rows) if texts is None else texts)
                return
        writer.add_many(rows, texts)

    def add_values(self, values: list[Any]) -> None:
        """Store rows given flat (`TaskWriter.add_values`), now or once the run's start is
        committed."""
        writer = self.writer
        if writer is None:
            writer = self._open()
            if writer is None:
                self.held_values.extend(values)
                return
        writer.add_values(values)

    def _open(self) -> TaskWriter | None:
        """The writer, once the run is stored; raises what stopped a start that failed."""
        startup = self.startup
        if startup is not None and not startup.committed:
            if startup.failure is not None:
                startup.finish()  # raises it
            return None
        run_id = self.run_id
        if startup is not None:
            run_id, puzzles = startup.finish()
            self.begin(run_id, puzzles)
        assert run_id is not None
        writer = self.writer = self.store.writer(run_id)
        writer.add_many(self.held, self.held_texts)
        writer.add_values(self.held_values)
        self.held.clear()
        self.held_texts.clear()
        self.held_values.clear()
        return writer

    def close(self) -> bool:
        """Commit every row in; False when the run's start was never committed."""
        if self.writer is None and self._open() is None:
            return False
        assert self.writer is not None
        self.writer.close()
        return True


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
    return LocalPool(
        jobs=args.jobs,
        preload=args.backends,
        warm_up=args.warm_up,
        memory_limit=args.memory_limit,
    )


def _execute(
    rows: _Rows,
    todo: Iterator[Task],
    tracker: Tracker,
    executor: Executor,
    progress: Callable[[Progress], None] | None,
) -> None:
    # A plug-in's or program's answer is checked here, where its code never ran: in its
    # worker it could have replaced the check. Sudokubench's own backends keep the worker's.
    own = {name: trusted(name) for name in tracker.args.backends}
    only_own = all(own.values())
    # Outcomes a list at a time (`Executor.run_batches`: a worker's message, a dask batch):
    # the rows of a list are stored and tallied in one step each. With only sudokubench's
    # own backends, a local worker's message comes as it was sent, the rows' columns
    # (`LocalPool.run_columns`, `pool/batch.py`): stored and tallied a batch at a time.
    columns = getattr(executor, "run_columns", None) if only_own else None
    for outcomes in columns(todo) if columns is not None else executor.run_batches(todo):
        if type(outcomes) is Batch:
            rows.add_values(outcomes.values)
            tracker.add_batch(outcomes, progress if rows.writer is not None else None)
            continue
        if only_own:  # (every outcome's check is the worker's, unless the executor's own)
            made = []
            add = made.append
            try:
                for outcome in outcomes:
                    add(to_row(outcome, None if outcome.checked else tracker.grid(outcome.task)))
            except BaseException:  # the list's rows made before the fault are kept, then it
                rows.add_many(made, [o.texts if o.checked else None for o in outcomes[: len(made)]])
                raise
            # the texts a worker made of a checked outcome's solutions and stats, stored as
            # they are (`wire.to_wire`): the row holds the same solutions and stats
            rows.add_many(made, [o.texts if o.checked else None for o in outcomes])
            tracker.add_many(made, progress if rows.writer is not None else None)
            continue
        made, texts = [], []
        try:
            # plain, bounded, finite values (the worker made them so, unless the plug-in
            # reached that code too), and the check made here: the usual answers' together
            # (`lane_rows`), any other on its own
            if any(own.get(name, False) for name in set(map(_TASK_BACKEND, outcomes))):
                outcomes = [o if own.get(o.task.backend, False) else sanitize(o) for o in outcomes]
            else:  # (a plug-in's lane's list: its outcomes tested a field at a time)
                outcomes = sanitize_many(outcomes)
            checked = lane_rows(outcomes, own)
            for outcome, row in zip(outcomes, checked, strict=True):
                if row is not None:
                    made.append(row)
                    texts.append(None)
                    continue
                grid = None
                if not own.get(outcome.task.backend, False):
                    outcome = outcome._replace(checked=False, texts=None)
                if not outcome.checked:
                    grid = tracker.grid(outcome.task)
                made.append(to_row(outcome, grid))
                texts.append(outcome.texts if outcome.checked else None)
        except BaseException:  # (as above: the rows made before the fault are kept)
            rows.add_many(made, texts)
            raise
        rows.add_many(made, texts)
        # (the progress callback once the run is stored, `on_start` called)
        tracker.add_many(made, progress if rows.writer is not None else None)
    # (an abandoned generator stops the pool's workers in flight as soon as it is closed)
