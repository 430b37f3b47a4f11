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
  not measured), a version 3 file's puzzles table has the primary key `(run_id, puzzle_id)`
  (the table is copied into one without it).

`INDEXES` serve the reads that stream a run in input order (`Store.ordered_puzzles`) and keep
a puzzle stored once: `puzzles_by_position`, unique on `(run_id, position)` (a run's puzzle
ids are distinct as the input is read: `plan.load_puzzle_lists` refuses two inputs that give
one id). They change no table; they are added when a file is opened (a file that cannot take
them, read only, is read without them, only slower).

Version 4 took the puzzles' primary key `(run_id, puzzle_id)` away: its index took the ids in
an order of their own ("17clue:10" before "17clue:2"), every insert in the middle of its
B-tree, where `(run_id, position)` only appends (1.4 us less CPU a puzzle stored, 20,000
puzzles of 17clue in one transaction).
"""

SCHEMA_VERSION = 4

_PUZZLE_FIELDS = (
    "run_id, puzzle_id, position, collection, puzzle, box, expected_count, expected_solution"
)
#: The puzzles table's columns, as version 4 creates them (version 3's, without the key).
_PUZZLES_TABLE = """(
    run_id INTEGER NOT NULL REFERENCES runs(id),
    puzzle_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    collection TEXT NOT NULL,
    puzzle TEXT NOT NULL,
    box TEXT,
    expected_count INTEGER,
    expected_solution TEXT
)"""

#: Older schema versions this one upgrades in place: version -> the SQL statements that take a
#: file of that version to the next one (in one transaction, with the version's update).
UPGRADES: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE tasks ADD COLUMN host TEXT NOT NULL DEFAULT ''",),
    2: ("ALTER TABLE tasks ADD COLUMN peak_memory_bytes INTEGER",),
    3: (
        f"CREATE TABLE puzzles_version_4 {_PUZZLES_TABLE}",
        f"INSERT INTO puzzles_version_4 ({_PUZZLE_FIELDS}) SELECT {_PUZZLE_FIELDS} FROM puzzles "
        "ORDER BY run_id, position, puzzle_id",
        "DROP TABLE puzzles",  # (with its indexes: `INDEXES` makes the new one's)
        "ALTER TABLE puzzles_version_4 RENAME TO puzzles",
    ),
}

#: Older schema versions whose files this one reads as they are when it cannot upgrade them
#: (a read-only copy: nothing is written to it): version 3's tables hold version 4's columns,
#: and its `puzzles_in_order` serves the same ordered reads.
READ_AS_IS = frozenset({3})

SCHEMA = f"""
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
CREATE TABLE IF NOT EXISTS puzzles {_PUZZLES_TABLE};
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
CREATE UNIQUE INDEX IF NOT EXISTS puzzles_by_position ON puzzles (run_id, position);
"""
