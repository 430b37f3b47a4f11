"""The parent's bookkeeping of a run's outcomes (`run.py` drives it): each outcome made a row
to store (`to_row`, with its check), the live counts for the progress display (`Progress`), and
the `Tracker`, which plans the run a list of puzzles at a time as the executor takes tasks and
cross-checks a puzzle as soon as its last task is in, feeding the report's `Tally` and
dropping its rows. It holds only the puzzles with tasks in flight (and, on `--resume`, those
stored partly done), so memory does not grow with the run.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from sudokubench.backend import Status
from sudokubench.grid import Grid, Shape
from sudokubench.harness.plan import (
    CompareArgs,
    backend_shapes,
    puzzle_tasks,
    skipped_backends,
    takes_all,
    task_combos,
    tasks_per_puzzle,
)
from sudokubench.harness.pool import HOST, Outcome, Task
from sudokubench.harness.pool.batch import WIDTH, Batch
from sudokubench.harness.recheck import checked_puzzles
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.startup import Startup
from sudokubench.harness.stats import limited_status
from sudokubench.harness.store import Store
from sudokubench.harness.verify import (
    check_result,
    cross_check,
    puzzle_grid,
    valid_solution_lines,
    verdict_of,
)

__all__ = ["Progress", "Tracker", "lane_rows", "to_row"]

#: `tuple.__new__`: a `Task` made from its fields' tuple without the named tuple's `__new__`
#: (a Python function, a microsecond a task).
_new_tuple = tuple.__new__
#: A `Task` from its fields' tuple, mapped in C (`_plan_list`).
_new_task = functools.partial(_new_tuple, Task)
_SOLVED = Status.SOLVED
#: A `TaskRow` from its fields' tuple, mapped in C (`_all_usual`).
_new_row = functools.partial(_new_tuple, TaskRow)
#: A tuple's first item, read in C.
_FIRST = itemgetter(0)
#: A status by its text (a columnar message's).
_STATUSES = {s.value: s for s in Status}
#: The verdict of a usual answer of the lane (SOLVED, one solution) by its `exhaustive`.
_LANE_VERDICTS = {e: str(verdict_of(_SOLVED, 1, e)) for e in (True, False)}
#: The places in a row of `Batch.values` of the fields `add_batch` reads.
_BACKEND, _WALL, _PEAK = (
    TaskRow._fields.index(name) for name in ("backend", "wall_s", "peak_memory_bytes")
)


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
    return _row(outcome, status, message, verdict, problem, solutions)


def _row(
    outcome: Outcome,
    status: Status,
    message: str,
    verdict: str,
    problem: str | None,
    solutions: Sequence[str],
) -> TaskRow:
    """The row of an outcome with its check (`to_row`, `lane_rows`)."""
    task = outcome.task
    stats = outcome.stats
    # (by position, in `TaskRow`'s order, as `tuple.__new__` makes it: the named tuple's own
    # `__new__` is a Python function, a microsecond a row)
    return _new_tuple(
        TaskRow,
        (
            task.task_id,
            task.puzzle_id,
            task.puzzle,
            task.backend,
            task.limit,
            task.timeout,
            task.sample,
            status,
            outcome.count,
            outcome.exhaustive,
            solutions,
            outcome.encode_s,
            outcome.solve_s,
            outcome.wall_s,
            stats if type(stats) is dict else dict(stats),  # (the outcome's own: it is dropped)
            message,
            verdict,
            problem is None,
            problem,
            outcome.host or HOST,
            outcome.peak_memory_bytes,
        ),
    )


def lane_rows(outcomes: Sequence[Outcome], own: Mapping[str, bool]) -> list[TaskRow | None]:
    """The rows of a list of outcomes (each `guard.sanitize`d) whose answers the parent checks
    (a plug-in's or program's: `own` False for its backend) and that are usual: one solution
    of a plain line beside its count of 1 (SOLVED, within the limit and the timeout, the
    puzzle a plain line with no box), all of one size. Their solutions are checked together
    (`verify.valid_solution_lines`, what `check_result` would find of each: sound, the line
    its canonical form) and their rows made as `to_row` makes them; None at every other
    place, and at every place when any of those solutions is not valid: `to_row` then checks
    each one and says which is wrong and why."""
    whole = _all_usual(outcomes, own) if outcomes else None
    if whole is not None:
        return whole
    made: list[TaskRow | None] = [None] * len(outcomes)
    usual: list[int] = []
    size = 0
    for k, outcome in enumerate(outcomes):
        task = outcome.task
        solutions = outcome.solutions
        if (
            outcome.status is _SOLVED
            and outcome.count == 1
            and len(solutions) == 1
            and task.limit >= 1
            and task.box is None
            and len(task.puzzle) == len(solutions[0]) == (size or len(task.puzzle))
            and not own.get(task.backend, False)
            and not outcome.wall_s > task.timeout  # (else TIMEOUT: `stats.limited_status`)
        ):
            size = len(task.puzzle)
            usual.append(k)
    if not usual:
        return made
    try:
        shape = Shape.for_cells(size)
    except ValueError:  # (no shape has that many cells: each says so on its own)
        return made
    picked = [outcomes[k] for k in usual]
    if not valid_solution_lines(
        [o.task.puzzle for o in picked], [o.solutions[0] for o in picked], shape
    ):
        return made
    for k, outcome in zip(usual, picked, strict=True):
        verdict = _LANE_VERDICTS[outcome.exhaustive]
        made[k] = _row(outcome, _SOLVED, outcome.message, verdict, None, outcome.solutions)
    return made


def _all_usual(outcomes: Sequence[Outcome], own: Mapping[str, bool]) -> list[TaskRow] | None:
    """`lane_rows` of the usual list, every outcome of it usual and every solution valid,
    tested and made a column at a time (`zip` of the outcomes and of their tasks, `map` of
    `tuple.__new__` over the rows' columns: no Python step an outcome); None when the list
    is not that, or when any solution is not valid (`lane_rows` then goes outcome by
    outcome)."""
    (
        tasks, statuses, counts, flags, solutions, encodes, solves, walls, stats, messages,
        _checks, _verdicts, _problems, hosts, peaks, _texts,
    ) = zip(*outcomes, strict=True)  # fmt: skip
    ids, puzzle_ids, puzzles, boxes, backends, limits, timeouts, samples = zip(*tasks, strict=True)
    n = len(outcomes)
    if not (
        set(statuses) == {_SOLVED}  # (`guard.sanitize`: each a Status, each count an int)
        and counts.count(1) == n
        and set(map(len, solutions)) == {1}
        and boxes.count(None) == n
        and min(limits) >= 1
        and not any(own.get(name, False) for name in set(backends))
        and max(walls) <= min(timeouts)  # (none a TIMEOUT: `stats.limited_status`)
    ):
        return None
    try:
        shape = Shape.for_cells(len(puzzles[0]))
    except ValueError:
        return None
    lines = list(map(_FIRST, solutions))
    if not valid_solution_lines(puzzles, lines, shape):
        return None
    host = itertools.repeat(HOST) if hosts.count("") == n else [h or HOST for h in hosts]
    solved, sound, no_problem = (itertools.repeat(v) for v in (_SOLVED, True, None))
    verdicts = map(_LANE_VERDICTS.__getitem__, flags)
    columns = (
        ids, puzzle_ids, puzzles, backends, limits, timeouts, samples, solved, counts, flags,
        solutions, encodes, solves, walls, stats, messages, verdicts, sound, no_problem, host,
        peaks,
    )  # fmt: skip
    return list(map(_new_row, zip(*columns, strict=False)))  # (the repeats: endless)


def _agreed_alone(puzzle: PuzzleRow, row: TaskRow) -> bool:
    """Whether `row`, the puzzle's only task, is a measured answer that `cross_check`
    finds agreed with no problem on its quick path (sound, and no answer of the input's
    to meet): then `Tally.add_agreed` takes it without the verdict made."""
    return (
        row.problem is None
        and row.valid
        and row.sample >= 0
        and puzzle.expected_count is None
        and puzzle.expected_solution is None
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


class _Open:
    """A puzzle with tasks in flight: its rows so far and how many tasks it waits for."""

    __slots__ = ("grid", "puzzle", "rows", "waiting")

    def __init__(self, puzzle: PuzzleRow, rows: list[TaskRow], waiting: int) -> None:
        self.puzzle = puzzle
        self.rows = rows
        self.waiting = waiting
        self.grid: Grid | None = None  # parsed once, for an outcome the executor did not check


class Tracker:
    """Plans the run a list of puzzles at a time as the executor takes tasks (`todo`), and
    cross-checks a puzzle as soon as its last task is in, feeding the report's `Tally`: only
    the puzzles with tasks in flight (and the rest of the list being taken) are held, so
    memory does not grow with the run."""

    def __init__(
        self,
        reader: Store,
        run_id: int | None,
        args: CompareArgs,
        tally: Tally,
        progress: Progress,
    ) -> None:
        self.reader = reader
        self.run_id = run_id  # None while a new run is still being stored (`begin`)
        self.args = args
        self.per_puzzle = tasks_per_puzzle(args)
        self.shapes = backend_shapes(args.backends)
        #: (k, backend, sample) of each task of a puzzle, k its place among them.
        self.combos = task_combos(args)
        self.tally = tally
        self.progress = progress
        #: The puzzles with tasks in flight: an `_Open`, or a one-task puzzle's `PuzzleRow`
        #: alone while its task is out (`_plan_list`).
        self.open: dict[int, _Open | PuzzleRow] = {}
        self.resumed = False
        self.done = bytearray(tally.puzzles)  # 1: every task of the puzzle is stored
        self.partial: dict[int, list[TaskRow]] = {}  # stored rows of puzzles partly done
        #: Task ids planned for no task (a backend that skips a puzzle's shape), so far.
        self.skipped = 0
        #: The puzzles in flight with an answer of the input's to meet (never on the short
        #: path of `add_batch`; one-task puzzles only: see `_plan`, `_plan_list`).
        self.expecting: set[int] = set()

    def read_stored(self) -> int:
        """Before a resumed run starts: read its stored rows back in one ordered pass (their
        checks made again, never trusted; a damaged row raises StoreError here, before
        anything runs), cross-check each puzzle whose tasks are all stored, and keep the rows
        of those partly done (the puzzles in flight when the run stopped). How many rows."""
        self.resumed = True
        stored = 0
        for i, puzzle, rows in checked_puzzles(self.reader, self.run_id, self.per_puzzle):
            skipped = skipped_backends(puzzle, self.shapes)
            self.tally.register(i, puzzle, skipped)
            stored += len(rows)
            unused = len(skipped) * (self.args.warmup + self.args.repeat)
            if len(rows) == self.per_puzzle - unused:
                self.skipped += unused
                self.done[i] = 1
                if rows:
                    self._close(i, puzzle, rows)
                else:  # every backend skips it
                    self.tally.add(i, puzzle, [], None)
            elif rows:
                self.partial[i] = rows
        return stored

    def begin(self, run_id: int, puzzles: int) -> None:
        """Take the id and puzzle count of a new run once it is stored (`Startup`): the tally
        and the progress are sized by them (once: a second call changes nothing)."""
        if self.run_id is None:
            self.run_id = self.progress.run_id = run_id
            self.tally.resize(puzzles)
            self.progress.total = puzzles * self.per_puzzle

    def todo(self, startup: Startup | None = None) -> Iterator[Task]:
        """The tasks not stored yet, puzzle by puzzle in task order, made as they are taken
        (a list of puzzles at a time, as the input was read or the database is read back:
        `_plan_list`): with `startup`, first those of the puzzles it hands over while it
        reads the input, then (the run stored: `begin`) those of the rest, read back from
        the database."""
        return itertools.chain.from_iterable(self._todo_lists(startup))

    def _todo_lists(self, startup: Startup | None) -> Iterator[list[Task]]:
        i, last = 0, None
        if startup is not None:
            for rows in startup.first_lists():
                yield self._plan_list(i, rows)
                i += len(rows)
                last = rows[-1]
            self.begin(*startup.finish())
        assert self.run_id is not None
        for rows in self.reader.ordered_puzzle_lists(self.run_id, after=last):
            yield self._plan_list(i, rows)
            i += len(rows)

    def _plan_list(self, i: int, puzzles: Sequence[PuzzleRow]) -> list[Task]:
        """The tasks not stored yet of `puzzles`, the `i`-th puzzle of the run and those after
        it, in task order. The usual list (a new run of one task a puzzle, every backend
        taking every shape) is planned in a few C calls: its puzzles registered at once
        (`Tally.register_many`), each open as its `PuzzleRow` alone (its only task in
        flight, no row yet: an `_Open` is made of it only when one is needed), its tasks made
        by `tuple.__new__` mapped over the zipped columns (a run with a backend limited to
        some shapes, as `lib:` is, too when every backend takes every puzzle of the list:
        `takes_all`); any other puzzle by `_plan`."""
        if (
            self.per_puzzle != 1
            or self.resumed
            or (self.shapes and not takes_all(puzzles, self.shapes))
        ):
            resumed, done = self.resumed, self.done
            tasks: list[Task] = []
            for j, puzzle in enumerate(puzzles, i):
                if not resumed or not done[j]:
                    tasks += self._plan(j, puzzle)
            return tasks
        n = len(puzzles)
        if not n:
            return []
        self.tally.register_many(i, puzzles)
        ids = range(i, i + n)  # (one task a puzzle: its id is the puzzle's index)
        self.open.update(zip(ids, puzzles, strict=True))
        # the puzzles' fields as columns, in one call (a field a puzzle read by `attrgetter`
        # cost twice as much)
        puzzle_ids, _, _, texts, boxes, counts, solutions = zip(*puzzles, strict=True)
        if counts.count(None) != n or solutions.count(None) != n:
            self.expecting.update(
                j
                for j, p in zip(ids, puzzles, strict=True)
                if p.expected_count is not None or p.expected_solution is not None
            )
        ((_, backend, sample),) = self.combos
        args = self.args
        return list(
            map(
                _new_task,
                zip(
                    ids,
                    puzzle_ids,
                    texts,
                    boxes,
                    itertools.repeat(backend),
                    itertools.repeat(args.limit),
                    itertools.repeat(args.timeout),
                    itertools.repeat(sample),
                ),
            )
        )

    def _plan(self, i: int, puzzle: PuzzleRow) -> list[Task]:
        """The puzzle's tasks not stored yet, the puzzle open for their rows."""
        if self.shapes or self.partial:  # (backends that skip shapes, rows stored before)
            return self._plan_any(i, puzzle)
        # The usual puzzle: every backend takes it, none of its rows is stored yet.
        if not self.resumed:
            self.tally.register(i, puzzle)
        first = i * self.per_puzzle
        puzzle_id, text, box = puzzle.puzzle_id, puzzle.puzzle, puzzle.box
        limit, timeout = self.args.limit, self.args.timeout
        self.open[i] = _Open(puzzle, [], self.per_puzzle)
        if self.per_puzzle == 1 and (
            puzzle.expected_count is not None or puzzle.expected_solution is not None
        ):
            self.expecting.add(i)
        return [
            _new_tuple(Task, (first + k, puzzle_id, text, box, backend, limit, timeout, sample))
            for k, backend, sample in self.combos
        ]

    def _plan_any(self, i: int, puzzle: PuzzleRow) -> list[Task]:
        if not self.resumed:
            self.tally.register(i, puzzle, skipped_backends(puzzle, self.shapes))
        tasks = puzzle_tasks(self.args, i, puzzle, self.shapes)
        if len(tasks) < self.per_puzzle:  # backends that skip its shape
            skipped = self.per_puzzle - len(tasks)
            self.skipped += skipped
            self.progress.total = max(0, self.progress.total - skipped)
            if not tasks:  # every backend skips it: nothing to wait for
                self.tally.add(i, puzzle, [], None)
                return []
        rows = self.partial.pop(i, []) if self.partial else []
        self.open[i] = _Open(puzzle, rows, len(tasks) - len(rows))
        if self.per_puzzle == 1 and (
            puzzle.expected_count is not None or puzzle.expected_solution is not None
        ):
            self.expecting.add(i)
        if rows:
            stored = {r.task_id for r in rows}
            tasks = [t for t in tasks if t.task_id not in stored]
        return tasks

    def _entry(self, i: int) -> _Open:
        """The open puzzle `i` as an `_Open` (made of a one-task puzzle's `PuzzleRow`, as
        `_plan_list` leaves it, when first needed)."""
        entry = self.open[i]
        if type(entry) is not _Open:
            entry = self.open[i] = _Open(entry, [], 1)
        return entry

    def grid(self, task: Task) -> Grid:
        """The parsed puzzle of a task in flight."""
        entry = self._entry(task.task_id // self.per_puzzle)
        if entry.grid is None:
            entry.grid = puzzle_grid(entry.puzzle)
        return entry.grid

    def add(self, row: TaskRow) -> None:
        """Take a new row; cross-check its puzzle when it was the last one."""
        progress = self.progress
        progress.done += 1
        progress.statuses[row.status] += 1
        if not row.valid:
            progress.wrong += 1
        i = row.task_id // self.per_puzzle
        entry = self._entry(i)
        entry.rows.append(row)
        entry.waiting -= 1
        if entry.waiting == 0:
            del self.open[i]
            self._close(i, entry.puzzle, entry.rows)

    def add_many(
        self, rows: Sequence[TaskRow], progress: Callable[[Progress], None] | None = None
    ) -> None:
        """`add` each row, in order, and call `progress` after each (when given; without it,
        the rows' statuses are counted in one step, `Counter.update`). A puzzle's only task
        whose answer is sound and has no file's answer to meet (the usual puzzle of a
        one-backend run) is tallied on a short path: `cross_check` would find it agreed,
        with no problem, and the verdict is not made; such rows go to the tally together
        (`Tally.add_agreed_many`), in order with the puzzles closed between them."""
        if self.expecting:  # (its puzzles are closed here, or stay open with a row more)
            self.expecting.difference_update([row.task_id // self.per_puzzle for row in rows])
        counts = self.progress
        statuses = counts.statuses
        if progress is None:
            counts.done += len(rows)
            statuses.update([row.status for row in rows])
        per_puzzle = self.per_puzzle
        entries = self.open
        tally = self.tally
        agreed: list[tuple[int, TaskRow]] = []
        for row in rows:
            if progress is not None:
                counts.done += 1
                statuses[row.status] += 1
            if not row.valid:
                counts.wrong += 1
            i = row.task_id // per_puzzle
            entry = entries[i]
            if type(entry) is not _Open:  # a `PuzzleRow` alone (`_plan_list`): its only task
                puzzle = entry
            elif entry.waiting == 1 and not entry.rows:  # its only task (or its last one)
                puzzle = entry.puzzle
            else:
                puzzle = None
            if puzzle is not None:
                del entries[i]
                if _agreed_alone(puzzle, row):
                    agreed.append((i, row))
                    if progress is not None:
                        progress(counts)
                    continue
                rest = [row]
            else:
                assert type(entry) is _Open
                entry.rows.append(row)
                entry.waiting -= 1
                if entry.waiting:
                    if progress is not None:
                        progress(counts)
                    continue
                del entries[i]
                puzzle = entry.puzzle
                rest = entry.rows
            if agreed:  # (the tally takes the puzzles in the order their last row came)
                tally.add_agreed_many(agreed)
                agreed = []
            self._close(i, puzzle, rest)
            if progress is not None:
                progress(counts)
        if agreed:
            tally.add_agreed_many(agreed)

    def add_batch(self, batch: Batch, progress: Callable[[Progress], None] | None = None) -> None:
        """`add_many` of a worker's columnar message (`pool.batch.Batch`). The usual batch
        of a one-task-a-puzzle run (every answer sound and timed, no puzzle of it with an
        answer of the input's to meet: each puzzle agreed alone, `_agreed_alone`) is counted
        and tallied a batch at a time (`Tally.add_columns`), `progress` called once after
        it; any other makes its rows and goes through `add_many`."""
        ids = batch.ids
        expecting = self.expecting
        if not (
            batch.usual
            and batch.host is not None
            and self.per_puzzle == 1
            and not self.partial
            and (not expecting or expecting.isdisjoint(ids))
        ):
            self.add_many(batch.rows(), progress)
            return
        entries = self.open
        # each its puzzle's only task: closed, taken out by `dict.pop` (a C call a task: the
        # wrappers of `__contains__` and `__delitem__` mapped over the ids cost twice as much)
        before = len(entries)
        closed = list(map(entries.pop, ids, itertools.repeat(None)))
        if len(entries) != before - len(ids):  # (never: every task is in flight, once)
            entries.update(
                (i, entry) for i, entry in zip(ids, closed, strict=True) if entry is not None
            )
            raise KeyError(f"a batch of tasks {ids[0]}..{ids[-1]} not all in flight")
        counts = self.progress
        counts.done += len(ids)
        statuses = batch.statuses
        if statuses.count(statuses[0]) == len(statuses):  # (the usual batch: one status)
            counts.statuses[_STATUSES[statuses[0]]] += len(statuses)
        else:
            counts.statuses.update(map(_STATUSES.__getitem__, statuses))
        values = batch.values
        self.tally.add_columns(
            values[_BACKEND],
            ids,  # (one task a puzzle: the puzzle's index is the task's id)
            batch.statuses,
            values[_WALL::WIDTH],
            batch.cpus,
            batch.waits,
            batch.kinds,
            batch.efforts,
            values[_PEAK::WIDTH],
            batch.host,
            batch.times,
            batch.effort_times,
            batch.timed,
        )
        if progress is not None:
            progress(counts)

    def _close(self, i: int, puzzle: PuzzleRow, rows: list[TaskRow]) -> None:
        verdict = cross_check(puzzle, rows)
        self.tally.add(i, puzzle, rows, verdict)
        if verdict.problems and any(p.kind == "disagree" for p in verdict.problems):
            self.progress.disagreements += 1

    def close_rest(self) -> None:
        """Feed the puzzles still waiting for tasks (none after a whole run) unchecked."""
        for i, entry in sorted(self.open.items()):
            if type(entry) is _Open:
                self.tally.add(i, entry.puzzle, entry.rows, None)
            else:  # (a one-task puzzle's `PuzzleRow`: no row came)
                self.tally.add(i, entry, [], None)
        self.open.clear()
