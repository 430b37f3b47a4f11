"""The INSERT of a run's task rows alone: the tasks table as the schema has it against a lean
one without the puzzle's id and text (which the puzzles table holds), CPU time a row.

    python benchmarks/task_insert.py                 # 20,000 rows of native on 17clue, 5 rounds
    python benchmarks/task_insert.py --count 5000 --rounds 9

The rows are those a worker sends for `native`'s answers (`pool/batch.py`'s flat values),
inserted as `TaskWriter.add_values` inserts them (`VALUES_PER_INSERT` values a statement, the
run id in the statement), committed every 400 rows, into a new database file each round,
the two tables (and the lean one `WITHOUT ROWID`) in turn. It tells whether a schema without
the puzzle repeated on every task row would pay. The schema's table is filled twice: every
value bound, and as `TaskWriter` writes it now, a column of one None or text in a statement's
rows written as a literal (`store_write.drop_constant_columns`).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import deque
from pathlib import Path

from _common import harness_setup

from sudokubench.harness.pool import Task, run_task
from sudokubench.harness.pool.batch import WIDTH, take_batch, to_columns
from sudokubench.harness.schema import SCHEMA
from sudokubench.harness.store_write import (
    _CONSTANT_TASK,
    _INTEGER_TASK,
    TASK_COLUMNS,
    VALUES_PER_INSERT,
    drop_constant_columns,
    values_sql,
)
from sudokubench.solvers import get_backend

#: Rows a commit, about what a fast run's writer commits at once.
COMMIT = 400
#: The row's places left out of the lean table: the puzzle's id and text.
LEFT_OUT = (1, 2)


def rows(backend_name: str, puzzles: list[str], limit: int, timeout: float) -> list[object]:
    """Every puzzle's task row, flat, as a worker sends it."""
    backend = get_backend(backend_name)
    values: list[object] = []
    for k, line in enumerate(puzzles):
        task = Task(k, f"17clue:{k + 1}", line, None, backend_name, limit, timeout, 0)
        message = to_columns([run_task(backend, task)])
        assert message is not None
        values.extend(take_batch(deque([task]), message).values)  # (as the parent takes it)
    return values


def insert(db, table: str, columns: str, values: list[object], width: int) -> None:
    """`TaskWriter._insert_values` on `table`, one transaction."""
    per = VALUES_PER_INSERT // width
    step = per * width
    one = "(1, " + ", ".join("?" * width) + ")"
    into = f"INSERT OR REPLACE INTO {table} (run_id, {columns}) VALUES "
    whole = len(values) - len(values) % step
    with db:
        for start in range(0, whole, step):
            db.execute(into + ", ".join([one] * per), values[start : start + step])
        if whole < len(values):
            db.execute(into + ", ".join([one] * ((len(values) - whole) // width)), values[whole:])


def insert_literals(db, table: str, columns: str, values: list[object], width: int) -> None:
    """`TaskWriter._insert_values` as it is: the constant columns as literals."""
    per = VALUES_PER_INSERT // width
    step = per * width
    into = f"INSERT OR REPLACE INTO {table} (run_id, {columns})"
    with db:
        for start in range(0, len(values), step):
            chunk = values[start : start + step]
            rows = len(chunk) // width
            literals = drop_constant_columns(chunk, width, _CONSTANT_TASK, _INTEGER_TASK)
            db.execute(values_sql(into, "1", width, literals, rows), chunk)


def main() -> None:
    """Measure and print each table's CPU a row."""
    import sqlite3

    opts, puzzles = harness_setup(__doc__, count=20000, rounds=5)
    full = rows(opts.backend, puzzles, opts.limit, opts.timeout)
    n = len(puzzles)
    kept = [k for k in range(WIDTH) if k not in LEFT_OUT]
    lean = [full[r * WIDTH + k] for r in range(n) for k in kept]
    names = TASK_COLUMNS.split(", ")
    lean_columns = ", ".join(names[k] for k in kept)
    table = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS tasks") :]
    table = table[: table.index(");") + 2]
    lean_table = table.replace("tasks", "lean").replace(" REFERENCES runs(id)", "")
    lean_table = lean_table.replace("    puzzle_id TEXT NOT NULL,\n    puzzle TEXT NOT NULL,\n", "")
    kinds = {
        "the schema's table": (SCHEMA, "tasks", TASK_COLUMNS, full, WIDTH),
        "the schema's table, literals": (SCHEMA, "tasks", TASK_COLUMNS, full, WIDTH),
        "lean": (lean_table, "lean", lean_columns, lean, len(kept)),
        "lean, WITHOUT ROWID": (
            lean_table.replace("lean", "lean_nr").replace(");", ") WITHOUT ROWID;"),
            "lean_nr",
            lean_columns,
            lean,
            len(kept),
        ),
    }
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(opts.rounds):
            for kind, (script, name, columns, values, width) in kinds.items():
                db = sqlite3.connect(Path(tmp) / f"{r}-{name}-{len(cpu[kind])}{kind[-1]}.sqlite")
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                db.executescript(script)
                if name == "tasks":
                    db.execute(
                        "INSERT INTO runs (id, started, status, args, machine) "
                        "VALUES (1, '', 'running', '{}', '{}')"
                    )
                    db.commit()
                start = time.process_time()
                how = insert_literals if kind.endswith("literals") else insert
                for first in range(0, n, COMMIT):
                    how(db, name, columns, values[first * width : (first + COMMIT) * width], width)
                cpu[kind].append((time.process_time() - start) / n * 1e6)
                db.close()
    for kind, times in cpu.items():
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{kind}: median {statistics.median(times):.2f} us a row ({shown})")


if __name__ == "__main__":
    main()
