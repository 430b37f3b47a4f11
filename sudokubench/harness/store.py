"""Results storage: one SQLite file (stdlib `sqlite3`), the embedded default.

Tables:

- `schema_version(version)`: checked on open; a file written by another schema version is
  refused with a message that says what to do.
- `runs`: one row per `compare` run: `id`, `started`, `ended` (UTC ISO times), `status`
  (`running`, `complete`, `interrupted`), `args` (JSON: everything needed to plan the run
  again, which is what `--resume` reads), `machine` (JSON: platform, CPU count, Python, the
  version of every backend's package), `disagreements` (set when the run ends).
- `puzzles`: the puzzles of a run with their collection and the answers the input states.
- `tasks`: one row per (puzzle, backend, sample) that finished, with everything the worker
  returned, the timings, and the harness's check of the answer (`valid`, `problem`,
  `verdict`). `(run_id, task_id)` is the primary key, so a resumed run cannot duplicate one.

The file runs in WAL mode, so `report` can read a run while `compare` writes it. `TaskWriter`
commits what has come in every tenth of a second (from a background thread when no outcome
comes; at once past 1,000 rows): a `kill -9` loses at most the tasks in flight and the last
0.1 s of results, and a fast run commits a few hundred rows at a time, which costs half as much
per row as 50 at a time.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sudokubench.backend import Status
from sudokubench.errors import StoreError
from sudokubench.harness.records import PuzzleRow, RunRow, RunStatus, TaskRow

__all__ = [
    "SCHEMA_VERSION",
    "PuzzleRow",
    "RunRow",
    "RunStatus",
    "Store",
    "StoreError",
    "TaskRow",
    "TaskWriter",
]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    ended TEXT,
    status TEXT NOT NULL,
    args TEXT NOT NULL,
    machine TEXT NOT NULL,
    disagreements INTEGER
);
CREATE TABLE IF NOT EXISTS puzzles (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    puzzle_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    collection TEXT NOT NULL,
    puzzle TEXT NOT NULL,
    box TEXT,
    expected_count INTEGER,
    expected_solution TEXT,
    PRIMARY KEY (run_id, puzzle_id)
);
CREATE TABLE IF NOT EXISTS tasks (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    task_id INTEGER NOT NULL,
    puzzle_id TEXT NOT NULL,
    puzzle TEXT NOT NULL,
    backend TEXT NOT NULL,
    "limit" INTEGER NOT NULL,
    timeout REAL NOT NULL,
    sample INTEGER NOT NULL,
    status TEXT NOT NULL,
    count INTEGER NOT NULL,
    exhaustive INTEGER NOT NULL,
    solutions TEXT NOT NULL,
    encode_s REAL NOT NULL,
    solve_s REAL NOT NULL,
    wall_s REAL NOT NULL,
    stats TEXT NOT NULL,
    message TEXT NOT NULL,
    verdict TEXT NOT NULL,
    valid INTEGER NOT NULL,
    problem TEXT,
    PRIMARY KEY (run_id, task_id)
);
"""


def now_utc() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- the one place where records meet the tables' columns: each column is named after the field
# it stores (`"limit"` quoted, an SQL word); a few fields are stored in another form.

_RUN_FIELDS = ("id", "started", "ended", "status", "args", "machine", "disagreements")
_RUN_COLUMNS = ", ".join(_RUN_FIELDS)
_PUZZLE_COLUMNS = ", ".join(PuzzleRow._fields)
_TASK_COLUMNS = ", ".join(f'"{name}"' for name in TaskRow._fields)
_STATUSES = {s.value: s for s in Status}
#: Where `_task_to_sql` puts the fields stored in another form (after the run id).
_STATUS, _SOLUTIONS, _STATS = (
    1 + TaskRow._fields.index(f) for f in ("status", "solutions", "stats")
)


def _run_from_sql(values: Sequence[Any]) -> RunRow:
    row = dict(zip(_RUN_FIELDS, values, strict=True))
    row["status"] = RunStatus(row["status"])
    row["args"] = json.loads(row["args"])
    row["machine"] = json.loads(row["machine"])
    return RunRow(**row)


def _task_to_sql(run_id: int, row: TaskRow) -> tuple[Any, ...]:
    """The values of a tasks row: the run id, then the row's fields in `_TASK_COLUMNS` order,
    the solutions and stats as JSON text."""
    values = [run_id, *row]  # (named positions: cheaper than `_replace` on every row)
    values[_STATUS] = str(row.status)
    values[_SOLUTIONS] = _solutions_json(row)
    values[_STATS] = json.dumps(row.stats, allow_nan=False)
    return tuple(values)


def _task_from_sql(values: Sequence[Any]) -> TaskRow:
    """A TaskRow from the values of `SELECT _TASK_COLUMNS`."""
    row = TaskRow._make(values)
    return row._replace(
        status=_STATUSES[row.status],
        exhaustive=bool(row.exhaustive),
        solutions=tuple(json.loads(row.solutions)),  # type: ignore[arg-type]
        stats=json.loads(row.stats),  # type: ignore[arg-type]
        valid=bool(row.valid),
    )


def _solutions_json(row: TaskRow) -> str:
    """`json.dumps(list(row.solutions))`, built directly for checked solutions: those are lines
    of grid symbols, which JSON needs no escapes for (anything else goes through `json`)."""
    if row.valid and all(line.isalnum() and line.isascii() for line in row.solutions):
        return '["' + '", "'.join(row.solutions) + '"]' if row.solutions else "[]"
    return json.dumps(list(row.solutions))


class Store:
    """A results database; `Store(path)` creates it if needed and checks its schema version."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no results database at {self.path} (run compare first)")
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            tables = {
                row[0]
                for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a results database: {exc}") from None
        if tables and "schema_version" not in tables:
            raise StoreError(f"{self.path} is not a sudokubench results database")
        if "schema_version" in tables:
            row = self.db.execute("SELECT version FROM schema_version").fetchone()
            if row is None or row[0] != SCHEMA_VERSION:
                found = "none" if row is None else row[0]
                raise StoreError(
                    f"{self.path} has schema version {found}, this sudokubench reads version "
                    f"{SCHEMA_VERSION}: use another --db or an older sudokubench"
                )
        else:
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.executescript(_SCHEMA)
            with self.db:
                if self.db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
                    self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        self.db.execute("PRAGMA synchronous = NORMAL")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ---------------------------------------------------------------------------------

    def new_run(
        self, args: dict[str, Any], machine: dict[str, Any], puzzles: Iterable[PuzzleRow] = ()
    ) -> int:
        """Record the start of a run with its puzzles, in one transaction (a run killed while
        it starts is stored whole or not at all); its id."""
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO runs (started, status, args, machine) VALUES (?, 'running', ?, ?)",
                (
                    now_utc(),
                    json.dumps(args, allow_nan=False),
                    json.dumps(machine, allow_nan=False),
                ),
            )
            run_id = cursor.lastrowid
            assert run_id is not None
            self._insert_puzzles(run_id, puzzles)
        return run_id

    def set_status(
        self, run_id: int, status: RunStatus, *, disagreements: int | None = None
    ) -> None:
        """Mark a run running, complete or interrupted (ended is set unless running)."""
        ended = None if status == RunStatus.RUNNING else now_utc()
        with self.db:
            self.db.execute(
                "UPDATE runs SET status = ?, ended = ?, disagreements = ? WHERE id = ?",
                (status, ended, disagreements, run_id),
            )

    def run(self, run_id: int | None = None) -> RunRow:
        """One run, the latest when `run_id` is None; StoreError if there is none."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs"
        if run_id is None:
            row = self.db.execute(query + " ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                raise StoreError(f"{self.path} holds no runs yet (run compare first)")
        else:
            row = self.db.execute(query + " WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise StoreError(f"{self.path} has no run {run_id}")
        return _run_from_sql(row)

    def runs(self) -> list[RunRow]:
        """Every run, oldest first."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs"
        return [_run_from_sql(row) for row in self.db.execute(query + " ORDER BY id")]

    def status_counts(self) -> dict[int, dict[str, int]]:
        """Per run: finished tasks by status, plus `wrong` (answers that failed their check)."""
        counts: dict[int, dict[str, int]] = {}
        for run_id, status, valid, n in self.db.execute(
            "SELECT run_id, status, valid, COUNT(*) FROM tasks GROUP BY run_id, status, valid"
        ):
            per = counts.setdefault(run_id, {})
            per[status] = per.get(status, 0) + n
            if not valid:
                per["wrong"] = per.get("wrong", 0) + n
        return counts

    # -- puzzles and tasks --------------------------------------------------------------------

    def add_puzzles(self, run_id: int, puzzles: Iterable[PuzzleRow]) -> None:
        """Store the puzzles of a run (again on resume: existing rows are kept)."""
        with self.db:
            self._insert_puzzles(run_id, puzzles)

    def _insert_puzzles(self, run_id: int, puzzles: Iterable[PuzzleRow]) -> None:
        self.db.executemany(
            f"INSERT OR IGNORE INTO puzzles (run_id, {_PUZZLE_COLUMNS}) "
            f"VALUES (?{', ?' * len(PuzzleRow._fields)})",
            ((run_id, *p) for p in puzzles),
        )

    def puzzles(self, run_id: int) -> list[PuzzleRow]:
        """The puzzles of a run in input order."""
        return [
            PuzzleRow._make(row)
            for row in self.db.execute(
                f"SELECT {_PUZZLE_COLUMNS} FROM puzzles WHERE run_id = ? ORDER BY position",
                (run_id,),
            )
        ]

    def done_task_ids(self, run_id: int) -> set[int]:
        """The task ids of a run that are stored (skipped by --resume)."""
        return {
            row[0]
            for row in self.db.execute("SELECT task_id FROM tasks WHERE run_id = ?", (run_id,))
        }

    def tasks(self, run_id: int) -> Iterator[TaskRow]:
        """The stored tasks of a run in task order."""
        rows = self.db.execute(
            f"SELECT {_TASK_COLUMNS} FROM tasks WHERE run_id = ? ORDER BY task_id", (run_id,)
        )
        for row in rows:
            yield _task_from_sql(row)

    def writer(self, run_id: int, *, every: int = 1000, seconds: float = 0.1) -> TaskWriter:
        """A batching writer of task rows for this run."""
        return TaskWriter(self, run_id, every=every, seconds=seconds)


class TaskWriter:
    """Buffers task rows and commits them every `every` rows or `seconds` seconds.

    A background thread also commits rows left waiting (when the next outcome is slow to come,
    e.g. behind a long timeout), so a crash loses at most `seconds` of finished tasks. Use it
    as a context manager, or call `close()`, which commits the rest.
    """

    def __init__(self, store: Store, run_id: int, *, every: int, seconds: float) -> None:
        self.store = store
        self.run_id = run_id
        self.every = every
        self.seconds = seconds
        self.pending: list[tuple[Any, ...]] = []
        self.last = time.monotonic()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._flush_now_and_then, daemon=True)
        self.thread.start()

    def __enter__(self) -> TaskWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _flush_now_and_then(self) -> None:
        while not self.stopping.wait(max(self.seconds, 0.05)):
            if self.pending and time.monotonic() - self.last >= self.seconds:
                self.flush()

    def add(self, row: TaskRow) -> None:
        """Queue one row; commits when the batch is full or old enough."""
        values = _task_to_sql(self.run_id, row)
        with self.lock:
            self.pending.append(values)
        if len(self.pending) >= self.every or time.monotonic() - self.last >= self.seconds:
            self.flush()

    def flush(self) -> None:
        """Commit every queued row."""
        with self.lock:
            if self.pending:
                with self.store.db:
                    self.store.db.executemany(
                        f"INSERT OR REPLACE INTO tasks (run_id, {_TASK_COLUMNS}) "
                        f"VALUES (?{', ?' * len(TaskRow._fields)})",
                        self.pending,
                    )
                self.pending.clear()
            self.last = time.monotonic()

    def close(self) -> None:
        """Stop the background thread and commit what is left."""
        self.stopping.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join()
        self.flush()
