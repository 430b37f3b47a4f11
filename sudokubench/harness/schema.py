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
  `verdict`), the `host` that ran it and the worker's `peak_memory_bytes` during the call
  (NULL where not measured). `(run_id, task_id)` is the primary key, so a resumed run cannot
  duplicate one. Older files are upgraded on open, one version at a time (`UPGRADES`): a
  version 1 file has no `host`, a version 2 file no `peak_memory_bytes` (its tasks read as
  not measured).

`INDEXES` serve the reads that stream a run in input order (`Store.ordered_puzzles`); they
change no table, so a file without them is still version 2, and they are added when it is
opened.
"""

SCHEMA_VERSION = 3
#: Older schema versions this one upgrades in place: version -> the SQL that takes a file of
#: that version to the next one.
UPGRADES = {
    1: "ALTER TABLE tasks ADD COLUMN host TEXT NOT NULL DEFAULT ''",
    2: "ALTER TABLE tasks ADD COLUMN peak_memory_bytes INTEGER",
}

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
    peak_memory_bytes INTEGER,
    PRIMARY KEY (run_id, task_id)
);
"""

INDEXES = """
CREATE INDEX IF NOT EXISTS puzzles_in_order ON puzzles (run_id, position, puzzle_id);
"""
