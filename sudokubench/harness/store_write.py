"""The write half of the results store (`store.py`): a task row as the values of its columns
(`task_to_sql`), rows written many to a statement (`insert_rows`), and `TaskWriter`, which
batches a run's task rows and commits them as they come.

A fast run commits a few hundred rows at a time, which costs half as much per row as 50 at a
time. `insert_rows` puts up to `VALUES_PER_INSERT` values in one statement instead of one
statement per row (`executemany`): the sqlite3 module lets go of the GIL around every
statement it runs, and while a new run's puzzles are stored on a thread of their own
(`startup.py`) beside the task rows, every row handed the GIL from one thread to the other.
`python benchmarks/parent.py` (20,000 puzzles, five rounds): the parent's CPU per task went
from a median of 155 us to 91-96 us; with the start not overlapping the run, from 100 us to 92.
"""

from __future__ import annotations

import itertools
import json
import json.encoder
import sqlite3
import threading
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from sudokubench.errors import StoreError
from sudokubench.harness.records import TaskRow

__all__ = [
    "TASK_COLUMNS",
    "TASK_ROWS_PER_INSERT",
    "VALUES_PER_INSERT",
    "TaskWriter",
    "drop_constant_columns",
    "insert_rows",
    "solutions_json",
    "sql_literal",
    "statement_rows",
    "stats_json",
    "task_to_sql",
    "values_sql",
]

#: Most values bound in one INSERT of several rows (SQLite before 3.32 allows 999).
VALUES_PER_INSERT = 999
#: Rows of one INSERT of a run's flat task rows (`TaskWriter.add_values`), where SQLite's
#: limit on a statement's parameters allows them all: 95, about 900 values bound once a
#: row's shared columns are written in the statement (`drop_constant_columns`). A statement
#: costs its start (its cursors, its reset) whatever its rows: 16.8k instructions a row at 95
#: rows against 17.7k at 47 (`benchmarks/store_insert.py --rows tasks`); at 190 rows 16.5k,
#: at 476 16.4k, but those compile for longer (the few a run makes) and keep more of a
#: statement's journal.
TASK_ROWS_PER_INSERT = 95

# -- a task row's columns: each is named after the field it stores (`"limit"` quoted, an SQL
# word); a few fields are stored in another form.

TASK_COLUMNS = ", ".join(f'"{name}"' for name in TaskRow._fields)
#: Values of a task row after the run id.
WIDTH = len(TaskRow._fields)

#: None bound as NULL without the sqlite3 module's failed look for an adapter. The module binds
#: an int, float or str at once, but asks about any other value first: its adapters (none for
#: None), then `PrepareProtocol.__adapt__`, a failed attribute lookup on a type whose error
#: text is formatted and dropped (~2,100 instructions, 0.3 us). A task row binds one None (the
#: problem of a sound answer), a puzzle row up to three (no box, no expected answer): 4 a task
#: on 17clue, 5% of the parent's instructions. An adapter for None that gives None back (a
#: dict's `get`, called in C) is found in the adapters' dict at once, and sqlite3 binds the None
#: it gives as NULL, as before: nothing stored changes. (Registered for the process, as
#: sqlite3's adapters are; it changes no value for any other user of the module, and one that
#: the program registered itself for None is left in place.)
if (type(None), sqlite3.PrepareProtocol) not in sqlite3.adapters:
    sqlite3.register_adapter(type(None), {}.get)


#: `json.dumps(..., allow_nan=False)` made once (`dumps` with an option makes one per call).
_STRICT_JSON = json.JSONEncoder(allow_nan=False)


#: The C encoder `_STRICT_JSON.encode` makes anew on every call, made once (half the time on
#: a row's stats, 3.6 us instead of 6.3); None where the `json` module has no C part.
#: Its arguments as `JSONEncoder.iterencode` passes them: no circularity markers (a flat
#: dict), `default`, the ASCII string encoder, no indent, the separators, sort_keys=False,
#: skipkeys=False, allow_nan=False.
_STATS_ENCODER = (
    None
    if json.encoder.c_make_encoder is None  # type: ignore[attr-defined]
    else json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None,
        _STRICT_JSON.default,
        json.encoder.encode_basestring_ascii,
        None,
        ": ",
        ", ",
        False,
        False,
        False,
    )
)


def stats_json(stats: Mapping[str, Any]) -> str:
    """`json.dumps(stats, allow_nan=False)`: a row's stats as JSON text (ValueError for a
    number JSON has no text for)."""
    if _STATS_ENCODER is None:  # pragma: no cover - a Python without the C json
        return _STRICT_JSON.encode(stats)
    return "".join(_STATS_ENCODER(stats, 0))


def task_to_sql(run_id: int, row: TaskRow, texts: tuple[str, str] | None = None) -> tuple[Any, ...]:
    """The values of a tasks row: the run id, then the row's fields in `TASK_COLUMNS` order,
    the solutions and stats as JSON text (`texts` when given: what a worker of sudokubench's
    own made of this row's solutions and stats, `wire.to_wire`), the two flags as the
    integers SQLite stores.

    (The sqlite3 module binds an int, float or str at once, but first asks its adapters about
    any other value, a bool included: a failed attribute lookup on a type, whose error text
    is formatted and dropped, ~2,400 instructions a value. A None costs the same: the
    problem of a sound answer is one.) The tuple is made in one step from the row's fields
    by position (`TaskRow`'s order, which `_ROW_ORDER` asserts): a list filled and
    copied cost a third more."""
    (
        task_id, puzzle_id, puzzle, backend, limit, timeout, sample, status, count,
        exhaustive, solutions, encode_s, solve_s, wall_s, stats, message, verdict, valid,
        problem, host, peak_memory_bytes,
    ) = row  # fmt: skip
    if texts is None:
        texts = (solutions_json(solutions, valid), stats_json(stats))
    return (
        run_id, task_id, puzzle_id, puzzle, backend, limit, timeout, sample, str(status),
        count, 1 if exhaustive else 0, texts[0], encode_s, solve_s, wall_s, texts[1], message,
        verdict, 1 if valid else 0, problem, host, peak_memory_bytes,
    )  # fmt: skip


#: A task row's places (after the run id) often None or one text in all of a statement's rows.
_CONSTANT_TASK = tuple(
    TaskRow._fields.index(name)
    for name in (
        "backend", "limit", "timeout", "sample", "status", "count", "exhaustive", "message",
        "verdict", "valid", "problem", "host", "peak_memory_bytes",
    )
)  # fmt: skip
#: Of those, the INTEGER columns (an int written as its digits stores as it is bound).
_INTEGER_TASK = frozenset(
    TaskRow._fields.index(name) for name in ("limit", "sample", "count", "exhaustive", "valid")
)
#: Of those, the REAL columns (a whole float written as its digits stores as it is bound).
_REAL_TASK = frozenset({TaskRow._fields.index("timeout")})
#: Statements a writer keeps before it writes texts as literals only in those it has, NULLs
#: alone in any other (`_insert_values`: a run whose rows share a text in a statement but
#: not across statements would prepare one a statement).
_STATEMENTS = 32

#: `task_to_sql` unpacks a row by position: the fields it names, in `TaskRow`'s order.
_ROW_ORDER = (
    "task_id", "puzzle_id", "puzzle", "backend", "limit", "timeout", "sample", "status", "count",
    "exhaustive", "solutions", "encode_s", "solve_s", "wall_s", "stats", "message", "verdict",
    "valid", "problem", "host", "peak_memory_bytes",
)  # fmt: skip
assert TaskRow._fields == _ROW_ORDER, "task_to_sql's order is TaskRow's"


def solutions_json(solutions: tuple[str, ...], valid: bool) -> str:
    """`json.dumps(list(solutions))`, built directly for checked solutions: those are lines
    of grid symbols, which JSON needs no escapes for (anything else goes through `json`)."""
    if not solutions:
        return "[]"
    if valid:
        plain = solutions[0] if len(solutions) == 1 else "".join(solutions)
        if plain.isascii() and plain.isalnum():
            return '["' + '", "'.join(solutions) + '"]'  # (two calls in C, whatever the count)
    return json.dumps(list(solutions))


def insert_rows(
    db: sqlite3.Connection, into: str, width: int, rows: Iterable[Sequence[Any]]
) -> None:
    """`INSERT ... INTO {into} VALUES (...)` of every row of `width` values, as few statements
    of many rows each, in the caller's transaction.

    One statement per row (`executemany`) lets go of the GIL once per row (see the module
    docstring); one of many rows, once for all of them, and it costs less per row besides.
    """
    per = max(1, VALUES_PER_INSERT // width)
    one = "(" + ", ".join("?" * width) + ")"
    many = f"INSERT {into} VALUES " + ", ".join([one] * per)
    rows = iter(rows)
    while chunk := list(itertools.islice(rows, per)):
        if len(chunk) == per:
            db.execute(many, list(itertools.chain.from_iterable(chunk)))
        else:
            db.executemany(f"INSERT {into} VALUES {one}", chunk)


#: The row counts of the statements that take the rows past a whole number of `per`
#: (`statement_rows`).
_PIECES = (32, 16, 8, 4, 2, 1)


def statement_rows(rows: int, per: int) -> list[int]:
    """The rows of each statement that inserts `rows` rows, `per` at most a statement: as
    many of `per` as there are, then the rest as a sum of powers of two (32 at most; past 63,
    more of 32). A writer's flushes take whatever rows have come (a number set by the
    timer), and a statement of each number of rows would be prepared anew (SQLite compiles
    a statement of 47 rows, a thousand values, in about 2M instructions, one of 1 row in
    0.13M: the 0.1 s commits' remainders cost 11-39M a run of 8,000 tasks); the rest in at
    most six statements of seven row counts in all is a few executions more a flush."""
    pieces = [per] * (rows // per)
    rest = rows % per
    for piece in _PIECES:
        if piece >= per:
            continue
        while rest >= piece:
            pieces.append(piece)
            rest -= piece
    return pieces


def sql_literal(value: Any) -> str | None:
    """`value` as an SQL literal that stores exactly what binding it stores: `NULL` for None,
    a str of printable ASCII quoted (a quote doubled); None for any other value (an int or a
    float is bound: it costs little, and a literal could change its type)."""
    if value is None:
        return "NULL"
    if type(value) is str and value.isascii() and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return None


def drop_constant_columns(
    flat: list[Any],
    width: int,
    places: Sequence[int],
    integers: Collection[int] = (),
    reals: Collection[int] = (),
) -> tuple[tuple[int, str], ...]:
    """Delete from `flat` (rows of `width` values one after the other) each column of
    `places` (places in a row, rising) that holds one value in every row, None or a str
    that `sql_literal` writes, or at the places of `integers` (columns of INTEGER affinity,
    where 1, 1.0 and True all store the integer 1) an int well within 64 bits, or at the
    places of `reals` (columns of REAL affinity, where the integer 10 stores as the float
    10.0 bound does) a positive whole float below 2^53 (a run's timeout); gives each place
    deleted with its literal, which the caller's statement writes instead of a `?`
    (`values_sql`).

    sqlite3 binds a None through its adapters' lookup (a key tuple built, the dict searched,
    the adapter for None registered above called: about 1,200 instructions) and a str by
    copying it into SQLite (about 800, its mutex taken twice), against none for a literal of
    a statement prepared once. Stored, the two are the same. A task row of a sound answer
    has two Nones (its problem, its peak memory when none is measured) and five texts its
    run's rows share (the backend, the status, the empty message, the verdict, the host);
    a puzzle row of a plain line three Nones (no box, no expected answer) and its
    collection."""
    n = len(flat) // width
    gone = []
    for place in places:
        value = flat[place]
        if flat[place::width].count(value) != n:
            continue
        if place in integers and type(value) is int and -(2**62) < value < 2**62:
            gone.append((place, str(value)))
        elif place in reals and type(value) is float and 0 < value < 2**53 and value.is_integer():
            gone.append((place, str(int(value))))  # (the digits: read back exactly)
        elif literal := sql_literal(value):
            gone.append((place, literal))
    for k, (place, _) in enumerate(reversed(gone)):  # the highest first: the lower stay put
        del flat[place :: width - k]
    return tuple(gone)


def values_sql(
    into: str, first: str, width: int, literals: Sequence[tuple[int, str]], rows: int
) -> str:
    """`{into} VALUES (...), ...` of `rows` rows: each `first` (a literal of the statement,
    as the run id) and `width` values, a `?` each but the `literals` (place, SQL) given."""
    written = dict(literals)
    one = "(" + ", ".join([first, *(written.get(c, "?") for c in range(width))]) + ")"
    return into + " VALUES " + ", ".join([one] * rows)


def refused(path: object, exc: sqlite3.Error) -> StoreError:
    """The one line for a write the database refused: locked past the busy timeout, a full
    disk, a read-only file, or whatever SQLite said."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        why = "another process held its lock for 30 s (try again when it is done)"
    elif name.startswith("SQLITE_FULL"):
        why = "the disk is full"
    elif name.startswith("SQLITE_READONLY"):
        why = "it is read-only here"
    else:
        why = str(exc)[:200]
    return StoreError(f"cannot write {path}: {why}")


class TaskWriter:
    """Buffers task rows and commits them every `every` rows or `seconds` seconds.

    A background thread also commits rows left waiting (when the next outcome is slow to come,
    e.g. behind a long timeout), so a crash loses at most `seconds` of finished tasks. Use it
    as a context manager, or call `close()`, which commits the rest.
    """

    def __init__(
        self, db: sqlite3.Connection, run_id: int, *, every: int, seconds: float, path: object = ""
    ) -> None:
        self.db = db
        self.path = path  # (named in the error of a refused write)
        #: What stopped the background thread's commit, raised by the next `add` or `close`.
        self.failure: StoreError | None = None
        self.run_id = run_id
        self.every = every
        self.seconds = seconds
        self.pending: list[tuple[Any, ...]] = []
        self.pending_values: list[Any] = []  # (`add_values`: rows flat, `WIDTH` values each)
        self.last = time.monotonic()
        self.lock = threading.Lock()
        #: `_insert_values`' statements by the columns written NULL and the rows.
        self._statements: dict[tuple[tuple[int, ...], int], str] = {}
        #: `_insert_values`' rows a statement (the parameters' limit of this SQLite allowing).
        limit = db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        self.per = max(1, min(TASK_ROWS_PER_INSERT, limit // WIDTH))
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._flush_now_and_then, daemon=True)
        self.thread.start()

    def __enter__(self) -> TaskWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _flush_now_and_then(self) -> None:
        while not self.stopping.wait(max(self.seconds, 0.05)):
            waiting = self.pending or self.pending_values
            if waiting and time.monotonic() - self.last >= self.seconds:
                try:
                    self.flush()
                except StoreError as exc:  # (the main thread raises it: one line, no traceback)
                    self.failure = exc
                    return

    def add(self, row: TaskRow) -> None:
        """Queue one row; commits when the batch is full or old enough."""
        values = task_to_sql(self.run_id, row)
        with self.lock:
            self.pending.append(values)
        if self._due():
            self.flush()

    def add_many(
        self, rows: Sequence[TaskRow], texts: Sequence[tuple[str, str] | None] | None = None
    ) -> None:
        """Queue rows (with `texts`, each row's solutions and stats as JSON text, or None
        where they are to be made here: `task_to_sql`); commits when the batch is full or
        old enough."""
        run_id = self.run_id
        if texts is None:
            values = [task_to_sql(run_id, row) for row in rows]
        else:
            values = [task_to_sql(run_id, row, text) for row, text in zip(rows, texts, strict=True)]
        with self.lock:
            self.pending.extend(values)
        if self._due():
            self.flush()

    def add_values(self, values: list[Any]) -> None:
        """Queue rows given as one flat list of their values after the run id (`TaskRow`'s
        fields, `WIDTH` a row, as `task_to_sql` makes them: a worker's columnar message,
        `pool.batch`), inserted as they are with the run id written in the statement;
        commits when the batch is full or old enough."""
        with self.lock:
            self.pending_values.extend(values)
        if self._due():
            self.flush()

    def _due(self) -> bool:
        rows = len(self.pending) + len(self.pending_values) // WIDTH
        return rows >= self.every or time.monotonic() - self.last >= self.seconds

    def flush(self) -> None:
        """Commit every queued row; StoreError when the database refuses them (they stay
        queued, nothing of them is stored)."""
        if self.failure is not None:
            raise self.failure
        with self.lock:
            if self.pending or self.pending_values:
                try:
                    with self.db:
                        insert_rows(
                            self.db,
                            f"OR REPLACE INTO tasks (run_id, {TASK_COLUMNS})",
                            1 + WIDTH,
                            self.pending,
                        )
                        self._insert_values()
                except sqlite3.OperationalError as exc:
                    raise refused(self.path, exc) from None
                self.pending.clear()
                self.pending_values.clear()
            self.last = time.monotonic()

    def _insert_values(self) -> None:
        """INSERT the rows of `pending_values` (flat), `per` a statement (the rows past a
        whole number of those in statements of 32, 16, ... 1 rows: `statement_rows`), the
        run id a literal of the statement (an int: nothing to escape), and
        a column of one None or text in every row of a statement a literal too
        (`drop_constant_columns`: a sound answer's problem, a peak not measured, the
        backend, status, message, verdict and host its run's rows share, and the ints of
        the limit, sample, count and flags)."""
        values = self.pending_values
        if not values:
            return
        statements = self._statements
        into = f"INSERT OR REPLACE INTO tasks (run_id, {TASK_COLUMNS})"
        execute = self.db.execute
        start = 0
        for rows in statement_rows(len(values) // WIDTH, self.per):
            stop = start + rows * WIDTH
            chunk = values[start:stop]  # (a copy: `pending_values` is kept whole)
            literals = drop_constant_columns(
                chunk, WIDTH, _CONSTANT_TASK, _INTEGER_TASK, _REAL_TASK
            )
            sql = statements.get((literals, rows))
            if sql is None and len(statements) >= _STATEMENTS:
                chunk = values[start:stop]  # (NULLs alone: a few statements at most)
                literals = tuple(x for x in literals if x[1] == "NULL")
                drop_constant_columns(chunk, WIDTH, [place for place, _ in literals])
                sql = statements.get((literals, rows))
            if sql is None:
                sql = values_sql(into, str(int(self.run_id)), WIDTH, literals, rows)
                statements[literals, rows] = sql
            execute(sql, chunk)
            start = stop

    def close(self) -> None:
        """Stop the background thread and commit what is left."""
        self.stopping.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join()
        self.flush()
