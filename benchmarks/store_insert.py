"""The stores of a run alone, for callgrind: a new run's puzzles (`Store.new_run` of the input's
lists) and its task rows (`TaskWriter.add_values` of a worker's flat rows, 32 a message),
copied from a run already in a results database, each inside `sys.call_tracing`.

    sudokubench compare 17clue:..20000 -b native --jobs 2 -q --db runs.sqlite
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sys_call_tracing \
        python benchmarks/store_insert.py runs.sqlite --count 8000 --rows puzzles   # or tasks

The instructions callgrind counts are those of storing `--count` rows (the run's own row and
the writer's start included, a fixed cost: take two counts' difference for a row's own); the
rows are read back beforehand, outside the count. Without valgrind it prints the CPU time.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.store import Store

#: Rows a worker's message holds (about `pool.worker.HOLD`'s on 17clue) and a list of puzzles
#: (about a chunk of the input's).
MESSAGE, LIST = 32, 3000


def main() -> None:
    """Copy the run's rows into a new database and print what was stored."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", help="a results database holding a run of --count tasks or more")
    parser.add_argument("--count", type=int, default=8000)
    parser.add_argument("--rows", choices=("puzzles", "tasks"), default="tasks")
    parser.add_argument("--run", type=int, default=1)
    opts = parser.parse_args()
    source = sqlite3.connect(f"file:{opts.db}?mode=ro", uri=True)
    names = ", ".join(f'"{c}"' for c in TaskRow._fields)
    query = f"SELECT {names} FROM tasks WHERE run_id = ? ORDER BY task_id LIMIT ?"
    flat = [v for row in source.execute(query, (opts.run, opts.count)) for v in row]
    names = ", ".join(PuzzleRow._fields)
    query = f"SELECT {names} FROM puzzles WHERE run_id = ? ORDER BY position LIMIT ?"
    puzzles = [PuzzleRow(*row) for row in source.execute(query, (opts.run, opts.count))]
    lists = [puzzles[k : k + LIST] for k in range(0, len(puzzles), LIST)]
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "copy.sqlite") as store:
        width = len(TaskRow._fields)

        def tasks() -> None:
            writer = store.writer(run_id, every=1000, seconds=3600)
            for k in range(0, len(flat), MESSAGE * width):
                writer.add_values(flat[k : k + MESSAGE * width])
            writer.close()

        start = time.process_time()
        if opts.rows == "puzzles":
            sys.call_tracing(lambda: store.new_run({}, {}, lists=iter(lists)), ())
        else:
            run_id = store.new_run({}, {}, lists=iter(lists))
            start = time.process_time()
            sys.call_tracing(tasks, ())
        cpu = time.process_time() - start
        stored = {
            table: store.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("puzzles", "tasks")
        }
        n = len(puzzles) if opts.rows == "puzzles" else len(flat) // width
        print(f"{opts.rows}: {n} rows stored ({stored}), {cpu / n * 1e6:.2f} us CPU a row")


if __name__ == "__main__":
    main()
