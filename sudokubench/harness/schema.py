"""The schema of the results database (see `store.py`), its version and the upgrades of older
versions.

Tables:

- `schema_version(version)`: checked on open; a file written by another schema version is
  refused with a message that says what to do.
- `runs`: one row per `compare` run: `id`, `started`, `ended` (UTC ISO times), `status`
  (`running`, `complete`, `interrupted`), `args` (JSON: everything needed to plan the run
  again, which is what `--resume` reads), `machine` (JSON: the parent's host, platform, CPU
  count, Python, the version of every backend's package, and `workers`: every worker
  machine's host, CPU count, Python and backend versions, as the executor's `prepare` gave
  them), `disagreements` (set when the run ends).
- `puzzles`: the puzzles of a run with their collection and the answers the input states.
- `tasks`: one row per (puzzle, backend, sample) that finished, with everything the worker
  returned, the timings, and the harness's check of the answer (`valid`, `problem`,
  `verdict`) and the `host` that ran it. `(run_id, task_id)` is the primary key, so a
  resumed run cannot duplicate one. A version 1 file (no `host`) is upgraded on open.

`INDEXES` serve the reads that stream a run in input order (`Store.ordered_puzzles`); they
change no table, so a file without them is still version 2, and they are added when it is
opened.
"""

SCHEMA_VERSION = 2
#: Older schema versions this one upgrades in place: version -> the SQL that does it.
UPGRADES = {1: "ALTER TABLE tasks ADD COLUMN host TEXT NOT NULL DEFAULT ''"}

SCHEMA = """
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
    host TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, task_id)
);
"""

INDEXES = """
CREATE INDEX IF NOT EXISTS puzzles_in_order ON puzzles (run_id, position, puzzle_id);
"""
