"""The harness: run every (puzzle, backend) pair, check and cross-check the answers, time them,
store everything, and report.

Python API (stable):

```python
from sudokubench.harness import CompareArgs, compare
report = compare(CompareArgs(files=("top95.txt",), backends=("fast", "cpsat")), db="r.sqlite")
report.ok                 # no wrong answer and no disagreement
report.to_json()          # the same keys as `sudokubench compare --json`
```

How a run goes:

1. **Plan.** The puzzles are read with `formats.read_puzzles` (expected answers from annotated
   lines or a `.solutions.txt` file come with them); a `# collection: NAME` comment line in an
   input file puts the puzzles below it in that collection, otherwise the file's stem is the
   collection. Tasks are numbered in a fixed order (puzzle, then backend, then warm-ups and
   samples), so a task id is stable across `--resume`.
2. **Execute.** The tasks go to an `Executor` (`runner.LocalPool`: persistent worker processes,
   hard timeouts by killing the worker). Outcomes arrive in completion order.
3. **Check.** Each answer is checked on its own (`verify.check_answer`: `is_solution` on every
   solution, the counts) in the worker right after its timed call, so the checking runs side by
   side on `--jobs` cores; an outcome that comes unchecked (an executor of another kind) is
   checked here. Rows are stored with their verdicts through a batching writer (`store`).
   When every task of a puzzle is in, its answers (in task order) and the file's expected
   answer are cross-checked (`cross_check`), which also feeds the live disagreement count.
4. **Report.** The final report is built by `report.build_report`, the function `sudokubench
   report` uses, from the same rows that were stored and the same `cross_check`, so both
   always say the same (a test checks it).

`--resume RUN` reloads the run's stored arguments, plans the same tasks, skips the task ids
already stored and runs the rest: the finished run equals an uninterrupted one, timings aside.
"""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import Grid, Shape
from sudokubench.harness.store import PuzzleRow, Store, StoreError, TaskRow
from sudokubench.harness.verify import (
    PuzzleVerdict,
    Voice,
    agree,
    check_answer,
    expected_voice,
    verdict_of,
)
from sudokubench.solvers import (
    DEFAULT_BACKEND,
    UnknownBackendError,
    backend_names,
    canonical_name,
    get_backend,
)

if TYPE_CHECKING:
    from sudokubench.harness.report import RunReport
    from sudokubench.harness.runner import Executor, Outcome, Task

__all__ = [
    "SHOWCASE",
    "CompareArgs",
    "Interrupted",
    "Progress",
    "StoreError",
    "available_backends",
    "compare",
    "plan",
]

#: The built-in collection `compare` runs when no file is given.
SHOWCASE = "showcase"
#: The showcase's short defaults: enough to show every verdict in about a minute.
SHOWCASE_TIMEOUT = 2.0

_SECTION = re.compile(r"#\s*collection:\s*(\S+)", re.IGNORECASE)


@dataclass(frozen=True)
class CompareArgs:
    """Everything that defines a run; stored as JSON so `--resume` can plan it again.

    `files` empty means the built-in showcase. `timeout` None means 10 s, or the showcase's
    short `SHOWCASE_TIMEOUT`. `baseline` None means `fast` (the default backend) when it
    runs, else the first backend.
    """

    files: tuple[str, ...] = ()
    backends: tuple[str, ...] = ("all",)
    limit: int = 2
    timeout: float | None = None
    jobs: int = 1
    repeat: int = 1
    warmup: int = 0
    box: str | None = None
    baseline: str | None = None

    def __post_init__(self) -> None:
        if self.timeout is None:
            object.__setattr__(self, "timeout", 10.0 if self.files else SHOWCASE_TIMEOUT)
        if self.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {self.limit}")
        if self.timeout <= 0:  # type: ignore[operator]
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {self.jobs}")
        if self.repeat < 1:
            raise ValueError(f"--repeat must be at least 1, got {self.repeat}")
        if self.warmup < 0:
            raise ValueError(f"--warmup must be 0 or more, got {self.warmup}")

    def to_json(self) -> dict[str, Any]:
        """Plain data for the runs table."""
        data = asdict(self)
        data["files"] = list(self.files)
        data["backends"] = list(self.backends)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompareArgs:
        """Read stored arguments back."""
        data = dict(data)
        data["files"] = tuple(data.get("files", ()))
        data["backends"] = tuple(data.get("backends", ()))
        return cls(**data)


def available_backends() -> list[str]:
    """Every registered backend (and variant) whose library is installed here."""
    return [name for name in backend_names() if get_backend(name).available()]


def resolve_backends(names: Iterable[str]) -> tuple[str, ...]:
    """Expand `all`, check that every name resolves and is available (UnknownBackendError if
    not); names in canonical form (`cpsat` -> `cpsat:integer`), each once."""
    resolved: list[str] = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name == "all":
            resolved.extend(available_backends())
            continue
        backend = get_backend(name)
        if not backend.available():
            why = getattr(backend, "unavailable_reason", lambda: "")() or "not available here"
            raise UnknownBackendError(f"backend {name!r} is not available: {why}")
        resolved.append(canonical_name(name))
    unique = tuple(dict.fromkeys(resolved))
    if not unique:
        raise UnknownBackendError("no backend to run (--backends is empty)")
    return unique


def _sections(path: Path) -> dict[int, str]:
    """Line number -> collection name from `# collection: NAME` comment lines."""
    if path.suffix == ".gz":
        return {}
    found: dict[int, str] = {}
    current = None
    try:
        with open(path, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, 1):
                match = _SECTION.match(line.strip())
                if match:
                    current = match.group(1)
                elif current:
                    found[line_no] = current
    except UnicodeDecodeError:  # compressed whatever its name: no comments to read
        return {}
    return found


def input_paths(args: CompareArgs) -> list[Path]:
    """The input files: the given ones, or the built-in showcase."""
    if not args.files:
        return [collection_path(SHOWCASE)]
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    return paths


def load_puzzles(args: CompareArgs) -> list[PuzzleRow]:
    """Read every input puzzle with its collection and expected answer."""
    shape = Shape.parse(args.box) if args.box else None
    rows: list[PuzzleRow] = []
    seen: set[str] = set()
    for path in input_paths(args):
        sections = _sections(path)
        stem = path.name.removesuffix(".gz").removesuffix(".txt").removesuffix(".csv")
        for record in read_puzzles(path, shape):
            if record.id in seen:
                raise ValueError(f"two inputs give the puzzle id {record.id}: rename one file")
            seen.add(record.id)
            collection = stem
            if sections:  # "name:line": the line number says which section
                where = record.id.rsplit(":", 1)[-1]
                collection = sections.get(int(where) if where.isdigit() else 0, stem)
            solution = record.expected_solution
            rows.append(
                PuzzleRow(
                    record.id,
                    len(rows),
                    collection,
                    str(record.puzzle),
                    args.box,
                    record.expected_count,
                    None if solution is None else str(solution),
                )
            )
    if not rows:
        raise ValueError("the input holds no puzzles")
    return rows


def plan(args: CompareArgs, puzzles: Sequence[PuzzleRow]) -> list[Task]:
    """Every task of the run, numbered in a fixed order: puzzle, backend, warm-ups, samples."""
    from sudokubench.harness.runner import Task

    samples = [*range(-args.warmup, 0), *range(args.repeat)]
    tasks = []
    for p in puzzles:
        for backend in args.backends:
            for sample in samples:
                tasks.append(
                    Task(
                        task_id=len(tasks),
                        puzzle_id=p.puzzle_id,
                        puzzle=p.puzzle,
                        box=p.box,
                        backend=backend,
                        limit=args.limit,
                        timeout=args.timeout,
                        sample=sample,
                    )
                )
    return tasks


def machine_info(backends: Iterable[str]) -> dict[str, Any]:
    """Where the run happens: platform, CPUs, Python, the version of every backend's package."""
    from sudokubench import __version__

    versions: dict[str, str | None] = {}
    for name in backends:
        try:
            versions[name] = get_backend(name).version()
        except Exception as exc:  # a plug-in's version() must not stop the run
            versions[name] = f"unknown ({type(exc).__name__})"
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "sudokubench": __version__,
        "backends": versions,
    }


def check_outcome(outcome: Outcome, puzzle: Grid | None) -> TaskRow:
    """A worker's outcome as a row to store, with the check of the answer on its own
    (`is_solution`, counts): the one the worker made, else made here on `puzzle` (needed
    only then)."""
    task = outcome.task
    if outcome.checked:
        verdict, problem, solutions = outcome.verdict, outcome.problem, outcome.solutions
    else:
        if puzzle is None:
            raise ValueError(f"task {task.task_id}: an unchecked outcome needs its puzzle")
        voice = check_answer(
            task.backend,
            puzzle,
            status=outcome.status,
            count=outcome.count,
            exhaustive=outcome.exhaustive,
            solutions=outcome.solutions,
            limit=task.limit,
        )
        verdict, problem = str(voice.verdict), voice.problem
        solutions = voice.solutions if voice.sound else tuple(outcome.solutions)
    return TaskRow(
        task.task_id,
        task.puzzle_id,
        task.puzzle,
        task.backend,
        task.limit,
        task.timeout,
        task.sample,
        outcome.status,
        outcome.count,
        outcome.exhaustive,
        solutions,
        outcome.encode_s,
        outcome.solve_s,
        outcome.wall_s,
        dict(outcome.stats),
        outcome.message,
        verdict,
        problem is None,
        problem,
    )


def voice_of(row: TaskRow) -> Voice:
    """A stored task's answer as a voice in the vote."""
    return Voice(
        row.backend,
        verdict_of(row.status, row.count, row.exhaustive),
        row.solutions if row.valid else (),
        row.problem,
    )


def puzzle_grid(row: PuzzleRow) -> Grid:
    """The Grid of a stored puzzle."""
    return Grid.parse(row.puzzle, Shape.parse(row.box) if row.box else None)


def file_voice(row: PuzzleRow) -> Voice | None:
    """The input file's answer for a stored puzzle as a voice, None when it states none."""
    if row.expected_count is None and row.expected_solution is None:
        return None
    return expected_voice(puzzle_grid(row), row.expected_count, row.expected_solution)


@dataclass
class Progress:
    """Live counts of a run, passed to the progress callback after every outcome."""

    run_id: int
    total: int
    done: int = 0
    started: float = field(default_factory=time.perf_counter)
    statuses: Counter[str] = field(default_factory=Counter)
    wrong: int = 0
    disagreements: int = 0

    @property
    def timeouts(self) -> int:
        """Tasks that timed out so far."""
        return self.statuses["timeout"]

    @property
    def errors(self) -> int:
        """Tasks that failed so far."""
        return self.statuses["error"]

    def eta_s(self) -> float | None:
        """Seconds left at the rate so far, None before the first outcome."""
        if not self.done:
            return None
        rate = (time.perf_counter() - self.started) / self.done
        return rate * (self.total - self.done)


def cross_check(puzzle: PuzzleRow, rows: Iterable[TaskRow]) -> PuzzleVerdict:
    """Every stored answer about one puzzle, in task order, and the file's, cross-checked."""
    voices = [voice_of(t) for t in sorted(rows, key=lambda t: t.task_id)]
    if voice := file_voice(puzzle):
        voices.append(voice)
    return agree(puzzle.puzzle_id, voices)


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
) -> RunReport:
    """Run (or with `resume`, complete) a comparison; the report built from the database.

    `executor` defaults to `runner.LocalPool(jobs=args.jobs, preload=args.backends)`, made
    first so that its fork server starts while the input is read. `on_start(run_id, total,
    already_done)` is called once the tasks are planned. Raises `Interrupted` on Ctrl-C,
    `UnknownBackendError`, `StoreError` or `OSError`/`ValueError` for bad input.
    """
    with _rare_collections():
        return _compare(
            args, db=db, resume=resume, executor=executor, progress=progress, on_start=on_start
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
) -> RunReport:
    from sudokubench.harness.report import build_report

    db = Path(db)
    own: Executor | None = None  # the pool made here, closed here on every path
    if resume is None:  # bad input stops the run before the database is touched
        args = _with_backends(args)
        if executor is None:  # its fork server boots while the puzzles are read
            executor = own = _local_pool(args)
        try:
            puzzles = load_puzzles(args)
            store = Store(db, create=True)
        except BaseException:
            executor.close()
            raise
    else:
        store = Store(db, create=False)
    try:
        if resume is not None:
            run = store.run(resume)
            args = CompareArgs.from_json(run.args)
            resolve_backends(args.backends)
            puzzles = store.puzzles(resume)
            run_id = resume
            store.set_status(run_id, "running")
        else:
            run_id = store.new_run(args.to_json(), machine_info(args.backends))
            store.add_puzzles(run_id, puzzles)
        try:
            tasks = plan(args, puzzles)
            done = store.done_task_ids(run_id)
            todo = [t for t in tasks if t.task_id not in done]
            state = Progress(run_id, total=len(todo))
            tracker = _Tracker(puzzles, tasks, state)
            for row in store.tasks(run_id):
                tracker.add(row, counted=False)
            if on_start:
                on_start(run_id, len(tasks), len(done))
            _execute(store, run_id, todo, tracker, args, executor, progress)
        except KeyboardInterrupt:
            store.set_status(run_id, "interrupted")
            raise Interrupted(run_id, store.path) from None
        # The rows in memory are the rows stored: no need to read them back.
        rows = sorted(tracker.rows, key=lambda t: t.task_id)
        report = build_report(store, run_id, tasks=rows, verdicts=tracker.verdicts, puzzles=puzzles)
        store.set_status(run_id, "complete", disagreements=report.disagreement_count)
        return replace(report, run=store.run(run_id))
    finally:
        store.close()
        if own is not None:  # closed already unless something failed before the run
            own.close()


def _local_pool(args: CompareArgs) -> Executor:
    """The default executor: `args.jobs` local workers, the backends' modules preloaded."""
    from sudokubench.harness.runner import LocalPool

    return LocalPool(jobs=args.jobs, preload=args.backends)


def _with_backends(args: CompareArgs) -> CompareArgs:
    backends = resolve_backends(args.backends)
    baseline = None if args.baseline is None else canonical_name(args.baseline)
    if baseline is not None and baseline not in backends:
        raise UnknownBackendError(f"--baseline {baseline!r} is not one of --backends")
    if baseline is None:
        baseline = DEFAULT_BACKEND if DEFAULT_BACKEND in backends else backends[0]
    files = tuple(str(Path(f).resolve()) for f in args.files)  # so --resume works from anywhere
    return replace(args, files=files, backends=backends, baseline=baseline)


def _execute(
    store: Store,
    run_id: int,
    todo: Sequence[Task],
    tracker: _Tracker,
    args: CompareArgs,
    executor: Executor | None,
    progress: Callable[[Progress], None] | None,
) -> None:
    grids: dict[str, Grid] = {}  # parsed only for outcomes the executor did not check
    writer = store.writer(run_id)
    if executor is None:
        executor = _local_pool(args)
    try:
        for outcome in executor.run(todo):
            grid = None
            if not outcome.checked:
                puzzle_id = outcome.task.puzzle_id
                if puzzle_id not in grids:
                    grids[puzzle_id] = puzzle_grid(tracker.puzzles[puzzle_id])
                grid = grids[puzzle_id]
            row = check_outcome(outcome, grid)
            writer.add(row)
            tracker.add(row)
            if progress:
                progress(tracker.progress)
    finally:  # on Ctrl-C too: stop the workers, commit what finished
        executor.close()
        writer.close()
