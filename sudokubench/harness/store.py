"""Results storage: one SQLite file (stdlib `sqlite3`), the embedded default. `Store` opens it
(creating, checking or upgrading the schema of `schema.py`); it and its two halves are where
records meet the tables' columns: `store_write.py` makes a task row the values of its columns
and writes rows many to a statement, `store_read.py` checks every value read back.

The file runs in WAL mode, so `report` can read a run while `compare` writes it. `TaskWriter`
(`store_write.py`) commits what has come in every tenth of a second (from a background thread
when no outcome comes; at once past 1,000 rows): a `kill -9` loses at most the tasks in flight
and the last 0.1 s of results.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sudokubench.errors import StoreError
from sudokubench.harness import dbfile
from sudokubench.harness.records import PuzzleRow, RunRow, RunStatus, TaskRow
from sudokubench.harness.schema import (
    INDEXES,
    READ_AS_IS,
    SCHEMA,
    SCHEMA_VERSION,
    UPGRADES,
)
from sudokubench.harness.store_read import (
    RUN_FIELDS,
    Damaged,
    puzzles_from_sql,
    run_from_sql,
    task_from_sql,
)
from sudokubench.harness.store_write import (
    TASK_COLUMNS,
    VALUES_PER_INSERT,
    TaskWriter,
    drop_constant_columns,
    refused,
    values_sql,
)

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


#: Rows read per query by the streaming reads (`ordered_puzzles`, `tasks`).
CHUNK = 2000


def now_utc() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- runs and puzzles meet their tables' columns here (a task row, in `store_write.py`): each
# column is named after the field it stores.

_RUN_COLUMNS = ", ".join(RUN_FIELDS)
_PUZZLE_COLUMNS = ", ".join(PuzzleRow._fields)
#: Puzzle rows inserted by one statement: as many as `VALUES_PER_INSERT` values allow.
_PUZZLES_PER_INSERT = VALUES_PER_INSERT // len(PuzzleRow._fields)
#: Statements `_insert_puzzle_lists` keeps with literals (then binds every value of another).
_STATEMENTS = 16
#: A puzzle row's places that a plain line's rows share: the collection, None for the box and
#: the expected answer.
_CONSTANT_PUZZLE = tuple(
    PuzzleRow._fields.index(name)
    for name in ("collection", "box", "expected_count", "expected_solution")
)


class Store:
    """A results database; `Store(path)` creates it if needed and checks its schema version."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no results database at {self.path} (run compare first)")
        # held while this store is open: `dbfile.discard` removes no file another one holds
        made = create and not self.path.exists()
        self._held = dbfile.hold(self.path, create)
        try:
            self._open(create)
        except BaseException:
            dbfile.release(self._held)
            if made:  # (e.g. on a full disk: no empty file left behind)
                dbfile.discard(self.path)
            raise

    def _open(self, create: bool) -> None:
        """Connect, then check (or create, or upgrade) the schema."""
        immutable = False
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            tables = self._tables()
        except sqlite3.DatabaseError as exc:
            if not dbfile.read_only(self.path):
                name = getattr(exc, "sqlite_errorname", "")
                if name.startswith(("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN")):
                    raise StoreError(f"cannot open {self.path}: {exc} (a full disk?)") from None
                raise StoreError(f"{self.path} is not a results database: {exc}") from None
            if create:
                raise StoreError(f"cannot write {self.path}: it is read-only here") from None
            # SQLite writes beside a WAL database even to read it; a read-only copy (an
            # archive, a read-only mount) is read as immutable: nothing else writes it.
            self.db.close()
            uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
            try:
                self.db = sqlite3.connect(uri, uri=True, check_same_thread=False)
                tables = self._tables()
                immutable = True
            except sqlite3.DatabaseError as again:
                raise StoreError(f"{self.path} is not a results database: {again}") from None
        if not tables and not create:
            raise StoreError(f"{self.path} is not a results database (it holds no tables)")
        if tables and "schema_version" not in tables:
            raise StoreError(f"{self.path} is not a sudokubench results database")
        self._refuse_additions()
        if "schema_version" in tables:
            with self._reading():
                row = self.db.execute("SELECT version FROM schema_version").fetchone()
            if row is not None and row[0] in UPGRADES:
                try:
                    row = (self._upgrade(row[0]),)
                except StoreError:
                    if row[0] not in READ_AS_IS or not (immutable or dbfile.read_only(self.path)):
                        raise
                    row = (SCHEMA_VERSION,)  # (read as it is: a read-only copy)
            if row is None or row[0] != SCHEMA_VERSION:
                found = "none" if row is None else row[0]
                raise StoreError(
                    f"{self.path} has schema version {found}, this sudokubench reads version "
                    f"{SCHEMA_VERSION}: use another --db or an older sudokubench"
                )
        else:
            with self._writing():
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.executescript(SCHEMA)
            with self._writing():
                if self.db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
                    self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        self.db.execute("PRAGMA synchronous = NORMAL")
        self._add_indexes()

    def _upgrade(self, version: int) -> int:
        """Take the file from `version` to `SCHEMA_VERSION` (`schema.UPGRADES`), in one
        transaction; the version reached."""
        with self._writing():
            if not self.db.in_transaction:  # (the tables' changes too: all or none)
                self.db.execute("BEGIN")
            while version in UPGRADES:
                for statement in UPGRADES[version]:
                    self.db.execute(statement)
                version += 1
            self.db.execute("UPDATE schema_version SET version = ?", (version,))
        return version

    def _tables(self) -> set[str]:
        query = "SELECT name FROM sqlite_master WHERE type='table'"
        return {row[0] for row in self.db.execute(query)}

    def _refuse_additions(self) -> None:
        """StoreError when the file holds a trigger or a view: sudokubench makes neither, and a
        trigger could rewrite the rows a run stores (a view could stand for what was read)."""
        try:
            found = self.db.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view')"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a results database: {exc}") from None
        if found is not None:
            kind, name = found
            raise StoreError(
                f"{self.path} holds a {kind} {str(name)[:100]!r} that sudokubench did not make "
                f"(it could change what is stored): remove it, or use another --db"
            )

    def _add_indexes(self) -> None:
        """Create the indexes of `schema.INDEXES` a file written before them lacks (a file this
        process may not write is read without them, only slower)."""
        with contextlib.suppress(sqlite3.DatabaseError), self.db:
            self.db.executescript(INDEXES)

    def close(self) -> None:
        """Close the connection (and release the file)."""
        self.db.close()
        dbfile.release(self._held)
        self._held = None

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """A transaction; a write the database refuses (locked for 30 s, a full disk, a
        read-only file) is one StoreError naming the file (`store_write.refused`)."""
        try:
            with self.db:
                yield
        except sqlite3.OperationalError as exc:
            raise refused(self.path, exc) from None

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn any damage met while reading (a malformed file, a dropped table, a value that
        is not what the schema says) into one StoreError naming the file."""
        try:
            yield
        except (sqlite3.DatabaseError, Damaged) as exc:
            raise StoreError(
                f"{self.path} is damaged: {str(exc)[:200]} (restore it from a copy, or use "
                "another --db)"
            ) from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ---------------------------------------------------------------------------------

    def new_run(
        self,
        args: dict[str, Any],
        machine: dict[str, Any],
        puzzles: Iterable[PuzzleRow] = (),
        *,
        lists: Iterable[Sequence[PuzzleRow]] = (),
    ) -> int:
        """Record the start of a run with its puzzles (`puzzles`, then those of `lists`: the
        same rows a list at a time), in one transaction (a run killed while it starts is
        stored whole or not at all); its id."""
        with self._writing():
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
            self._insert_puzzle_lists(run_id, lists)
        return run_id

    def add_workers(self, run_id: int, workers: Sequence[dict[str, Any]]) -> None:
        """Add the workers of a resumed run's executor to its `machine["workers"]` (each
        description once)."""
        machine = self.run(run_id).machine
        known = machine.setdefault("workers", [])
        known.extend(w for w in workers if w not in known)
        with self._writing():
            self.db.execute(
                "UPDATE runs SET machine = ? WHERE id = ?", (json.dumps(machine), run_id)
            )

    def set_status(
        self, run_id: int, status: RunStatus, *, disagreements: int | None = None
    ) -> None:
        """Mark a run running, complete or interrupted (ended is set unless running)."""
        ended = None if status == RunStatus.RUNNING else now_utc()
        with self._writing():
            self.db.execute(
                "UPDATE runs SET status = ?, ended = ?, disagreements = ? WHERE id = ?",
                (status, ended, disagreements, run_id),
            )

    def set_machine(self, run_id: int, machine: dict[str, Any]) -> None:
        """Replace a run's machine description (the run adds what it measured at the end)."""
        with self._writing():
            self.db.execute(
                "UPDATE runs SET machine = ? WHERE id = ?", (json.dumps(machine), run_id)
            )

    def set_args(self, run_id: int, args: dict[str, Any]) -> None:
        """Replace a run's arguments (`--resume --jobs N` runs the rest with N workers)."""
        with self._writing():
            self.db.execute(
                "UPDATE runs SET args = ? WHERE id = ?",
                (json.dumps(args, allow_nan=False), run_id),
            )

    def run(self, run_id: int | None = None) -> RunRow:
        """One run, the latest when `run_id` is None; StoreError if there is none."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs"
        with self._reading():
            if run_id is None:
                row = self.db.execute(query + " ORDER BY id DESC LIMIT 1").fetchone()
                if row is None:
                    raise StoreError(f"{self.path} holds no runs yet (run compare first)")
            else:
                if not -(2**63) <= run_id < 2**63:  # SQLite's integers
                    raise StoreError(f"{self.path} has no run {run_id}")
                row = self.db.execute(query + " WHERE id = ?", (run_id,)).fetchone()
                if row is None:
                    raise StoreError(f"{self.path} has no run {run_id}")
            return run_from_sql(row)

    def runs(self) -> list[RunRow]:
        """Every run, oldest first."""
        query = f"SELECT {_RUN_COLUMNS} FROM runs"
        with self._reading():
            return [run_from_sql(row) for row in self.db.execute(query + " ORDER BY id")]

    def status_counts(self) -> dict[int, dict[str, int]]:
        """Per run: finished tasks by status, plus `wrong` (answers that failed their check)."""
        counts: dict[int, dict[str, int]] = {}
        with self._reading():
            found = self.db.execute(
                "SELECT run_id, status, valid, COUNT(*) FROM tasks GROUP BY run_id, status, valid"
            ).fetchall()
        for run_id, status, valid, n in found:
            per = counts.setdefault(run_id, {})
            per[status] = per.get(status, 0) + n
            if not valid:
                per["wrong"] = per.get("wrong", 0) + n
        return counts

    # -- puzzles and tasks --------------------------------------------------------------------

    def add_puzzles(self, run_id: int, puzzles: Iterable[PuzzleRow]) -> None:
        """Store the puzzles of a run (again on resume: existing rows are kept)."""
        with self._writing():
            self._insert_puzzles(run_id, puzzles)

    def _insert_puzzles(self, run_id: int, puzzles: Iterable[PuzzleRow]) -> None:
        puzzles = iter(puzzles)
        self._insert_puzzle_lists(run_id, iter(lambda: list(itertools.islice(puzzles, 4096)), []))

    def _insert_puzzle_lists(self, run_id: int, lists: Iterable[Sequence[PuzzleRow]]) -> None:
        """Insert the rows of every list (kept where a row of the run has its position
        already: `schema.INDEXES`),
        `_PUZZLES_PER_INSERT` to a statement whatever the lists' lengths: each row's values
        bound, the run's id written in the statement (a row's values are then its own fields
        in one flat list, made in C), and a column of one value in every row of a statement (a
        plain line's collection, no box, no expected answer) written as its literal
        (`drop_constant_columns`; a few distinct statements at most, kept)."""
        width = len(PuzzleRow._fields)
        into = f"INSERT OR IGNORE INTO puzzles (run_id, {_PUZZLE_COLUMNS})"
        first = str(int(run_id))
        per = _PUZZLES_PER_INSERT
        statements: dict[tuple[tuple[int, ...], int], str] = {}
        execute, flat = self.db.execute, itertools.chain.from_iterable
        held: Sequence[PuzzleRow] = []
        for found in lists:
            rows = [*held, *found] if held else found
            whole = len(rows) - len(rows) % per
            for at in range(0, whole, per):
                values = list(flat(rows[at : at + per]))
                literals = drop_constant_columns(values, width, _CONSTANT_PUZZLE)
                sql = statements.get(literals)
                if sql is None:
                    if len(statements) >= _STATEMENTS:  # (collections many and mixed)
                        values = list(flat(rows[at : at + per]))
                        literals = ()
                    sql = statements.get(literals) or values_sql(into, first, width, literals, per)
                    statements[literals] = sql
                execute(sql, values)
            held = rows[whole:]
        if held:
            self.db.executemany(values_sql(into, first, width, (), 1), held)

    def puzzles(self, run_id: int) -> list[PuzzleRow]:
        """The puzzles of a run in input order (`ordered_puzzles` reads them a few at a time)."""
        return list(self.ordered_puzzles(run_id))

    def ordered_puzzles(
        self, run_id: int, *, chunk: int = CHUNK, after: PuzzleRow | None = None
    ) -> Iterator[PuzzleRow]:
        """The puzzles of a run in input order (those that come after the puzzle `after`,
        when given), read `chunk` at a time (no read transaction stays open between chunks,
        and memory holds one chunk)."""
        return itertools.chain.from_iterable(
            self.ordered_puzzle_lists(run_id, chunk=chunk, after=after)
        )

    def ordered_puzzle_lists(
        self, run_id: int, *, chunk: int = CHUNK, after: PuzzleRow | None = None
    ) -> Iterator[list[PuzzleRow]]:
        """`ordered_puzzles` a chunk's list at a time (none empty), as the planner takes
        them."""
        query = (
            f"SELECT {_PUZZLE_COLUMNS} FROM puzzles WHERE run_id = ? AND "
            "(position, puzzle_id) > (?, ?) "  # (a row value: the index's range, not a scan)
            "ORDER BY position, puzzle_id LIMIT ?"
        )
        start = (-(2**63), "") if after is None else (after.position, after.puzzle_id)
        while True:
            with self._reading():
                found = self.db.execute(query, (run_id, *start, chunk)).fetchall()
                rows = puzzles_from_sql(found)
            if rows:
                yield rows
            if len(rows) < chunk:
                return
            start = (rows[-1].position, rows[-1].puzzle_id)

    def puzzle_count(self, run_id: int) -> int:
        """How many puzzles a run has."""
        with self._reading():
            (n,) = self.db.execute(
                "SELECT COUNT(*) FROM puzzles WHERE run_id = ?", (run_id,)
            ).fetchone()
        return n

    def done_task_ids(self, run_id: int) -> set[int]:
        """The task ids of a run that are stored."""
        with self._reading():
            ids = {
                row[0]
                for row in self.db.execute("SELECT task_id FROM tasks WHERE run_id = ?", (run_id,))
            }
        if not all(type(i) is int for i in ids):
            raise StoreError(f"{self.path} is damaged: a task id of run {run_id} is not a number")
        return ids

    def tasks(
        self, run_id: int, first: int | None = None, last: int | None = None, *, chunk: int = CHUNK
    ) -> Iterator[TaskRow]:
        """The stored tasks of a run in task order (those with `first <= task_id <= last`
        when given), read `chunk` at a time."""
        query = (
            f"SELECT {TASK_COLUMNS} FROM tasks WHERE run_id = ? AND task_id > ? "
            "AND task_id <= ? ORDER BY task_id LIMIT ?"
        )
        after = -(2**63) if first is None else first - 1
        last = 2**63 - 1 if last is None else last
        while True:
            with self._reading():
                found = self.db.execute(query, (run_id, after, last, chunk)).fetchall()
                rows = [task_from_sql(row) for row in found]
            yield from rows
            if len(rows) < chunk:
                return
            after = rows[-1].task_id

    def writer(self, run_id: int, *, every: int = 1000, seconds: float = 0.1) -> TaskWriter:
        """A batching writer of task rows for this run."""
        return TaskWriter(self.db, run_id, every=every, seconds=seconds, path=self.path)
