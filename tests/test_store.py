"""The SQLite results store: schema check, round trips, batched commits, WAL reads."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from support import TELEGRAM_SOLUTION, wait_for

from sudokubench.harness.store import SCHEMA_VERSION, PuzzleRow, Store, StoreError, TaskRow
from sudokubench.harness.store_write import (
    TASK_ROWS_PER_INSERT,
    VALUES_PER_INSERT,
    drop_constant_columns,
    insert_rows,
    sql_literal,
    statement_rows,
    stats_json,
    task_to_sql,
)

PUZZLE = "8.9.....7...5.9....35.7.89..2.7.8.1.7.......2.6.1.547..9785423....9.67..5.......6"
SOLUTION = TELEGRAM_SOLUTION


def row(task_id: int, **changes) -> TaskRow:
    """A plausible task row."""
    fields = {
        "task_id": task_id,
        "puzzle_id": "course.txt:3",
        "puzzle": PUZZLE,
        "backend": "fast",
        "limit": 2,
        "timeout": 10.0,
        "sample": 0,
        "status": "solved",
        "count": 1,
        "exhaustive": True,
        "solutions": (SOLUTION,),
        "encode_s": 0.0001,
        "solve_s": 0.002,
        "wall_s": 0.0025,
        "stats": {"guesses": 3, "nodes": 40},
        "message": "",
        "verdict": "=1",
        "valid": True,
        "problem": None,
    }
    fields.update(changes)
    return TaskRow(**fields)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "r.sqlite") as opened:
        yield opened


def test_a_new_file_gets_the_schema_and_wal_mode(store):
    version = store.db.execute("SELECT version FROM schema_version").fetchall()
    assert version == [(SCHEMA_VERSION,)]
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reopening_keeps_one_version_row(tmp_path):
    Store(tmp_path / "r.sqlite").close()
    with Store(tmp_path / "r.sqlite") as again:
        assert again.db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1


def test_another_schema_version_is_refused_with_advice(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match=r"schema version 99.*use another --db"):
        Store(path)


def test_a_foreign_database_or_file_is_refused(tmp_path):
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not a sudokubench results database"):
        Store(foreign)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all, just text" * 100)
    with pytest.raises(StoreError, match="not a results database"):
        Store(junk)


def test_reading_a_missing_file_does_not_create_it(tmp_path):
    with pytest.raises(StoreError, match="no results database"):
        Store(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()


def test_runs_round_trip_and_the_latest_is_the_default(store):
    first = store.new_run({"backends": ["fast"]}, {"cpu_count": 2})
    second = store.new_run({"backends": ["dlx"]}, {"cpu_count": 2})
    assert store.run().id == second
    assert store.run(first).args == {"backends": ["fast"]}
    assert store.run(first).status == "running" and store.run(first).ended is None
    store.set_status(first, "complete", disagreements=3)
    done = store.run(first)
    assert done.status == "complete" and done.ended and done.disagreements == 3
    assert [r.id for r in store.runs()] == [first, second]
    with pytest.raises(StoreError, match="no run 99"):
        store.run(99)


def test_an_empty_store_has_no_latest_run(store):
    with pytest.raises(StoreError, match="no runs yet"):
        store.run()


def test_puzzles_round_trip_in_input_order_and_are_not_duplicated(store):
    run_id = store.new_run({}, {})
    puzzles = [
        PuzzleRow("b.txt:1", 0, "b", PUZZLE, None, 1, SOLUTION),
        PuzzleRow("a.txt:1", 1, "a", PUZZLE, "3x3", None, None),
    ]
    store.add_puzzles(run_id, puzzles)
    store.add_puzzles(run_id, puzzles)  # a resumed run adds them again
    assert store.puzzles(run_id) == puzzles


def test_tasks_round_trip_exactly(store):
    run_id = store.new_run({}, {})
    rows = [
        row(0),
        row(1, status="timeout", count=0, exhaustive=False, solutions=(), verdict="?"),
        row(2, valid=False, problem="solution 1 is wrong: r1c1 is 1 but the puzzle gives 8"),
    ]
    with store.writer(run_id) as writer:
        for r in rows:
            writer.add(r)
    assert list(store.tasks(run_id)) == rows
    assert store.done_task_ids(run_id) == {0, 1, 2}
    counts = store.status_counts()[run_id]
    assert counts == {"solved": 2, "timeout": 1, "wrong": 1}


def test_a_task_stored_twice_stays_one_row(store):
    run_id = store.new_run({}, {})
    with store.writer(run_id) as writer:
        writer.add(row(5, wall_s=1.0))
        writer.add(row(5, wall_s=2.0))
    assert [t.wall_s for t in store.tasks(run_id)] == [2.0]


def test_many_rows_are_stored_whole_across_statements_of_many_rows(store):
    # Rows go in statements of up to VALUES_PER_INSERT values: these span several full ones
    # and a shorter last one, with a repeated id inside one statement, as `--resume` and
    # `add_puzzles` may give (a task's later row replaces it, a puzzle's first stays).
    per_task = VALUES_PER_INSERT // (1 + len(TaskRow._fields))
    run_id = store.new_run({}, {})
    rows = [row(k, wall_s=float(k)) for k in range(3 * per_task + 7)]
    again = rows[5]._replace(wall_s=99.0)
    with store.writer(run_id, every=10**6, seconds=3600) as writer:
        for r in [*rows[:10], again, *rows[10:]]:
            writer.add(r)
    stored = list(store.tasks(run_id))
    assert [t.task_id for t in stored] == [r.task_id for r in rows]
    assert stored == [*rows[:5], again, *rows[6:]]

    per_puzzle = VALUES_PER_INSERT // (1 + len(PuzzleRow._fields))
    puzzles = [PuzzleRow(f"p.txt:{k}", k, "p", PUZZLE) for k in range(2 * per_puzzle + 3)]
    first = store.new_run({}, {}, [*puzzles, puzzles[4]._replace(collection="later")])
    assert store.puzzles(first) == puzzles


def test_drop_constant_columns_deletes_the_columns_of_one_none_or_text_in_every_row():
    flat = [1, None, "a", None, 2, None, "b", 7, 3, None, None, None]  # 3 rows of 4
    assert drop_constant_columns(flat, 4, (1, 2, 3)) == ((1, "NULL"),)  # (2, 3: not one value)
    assert flat == [1, "a", None, 2, "b", 7, 3, None, None]
    flat = [1, None, "it's", 2, None, "it's"]
    assert drop_constant_columns(flat, 3, (1, 2)) == ((1, "NULL"), (2, "'it''s'"))
    assert flat == [1, 2]
    # an int, a float, a text not printable ASCII: bound (a literal could change them)
    flat = [0, 1.5, "é", "a\x00", "", 0, 1.5, "é", "a\x00", ""]
    assert drop_constant_columns(flat, 5, range(5)) == ((4, "''"),)
    assert flat == [0, 1.5, "é", "a\x00", 0, 1.5, "é", "a\x00"]
    # an int where the column is INTEGER (1, 1.0, True store the same 1 there), in range
    flat = [1, 2**62, -3, "x", 1.0, 2**62, -3, "x", True, 2**62, -3, "x"]
    assert drop_constant_columns(flat, 4, range(4), {0, 1, 2}) == ((0, "1"), (2, "-3"), (3, "'x'"))
    assert flat == [2**62, 2**62, 2**62]
    # a positive whole float below 2^53 where the column is REAL (10 stores as 10.0 there)
    flat = [10.0, 2.5, 2.0**53, -1.0, 0.0, 10.0, 2.5, 2.0**53, -1.0, 0.0]
    assert drop_constant_columns(flat, 5, range(5), (), range(5)) == ((0, "10"),)
    assert flat == [2.5, 2.0**53, -1.0, 0.0, 2.5, 2.0**53, -1.0, 0.0]
    assert [sql_literal(v) for v in (None, "x", 1, 1.0, True, b"x", "\n")] == [
        "NULL", "'x'", None, None, None, None, None,
    ]  # fmt: skip


def _stored(db: sqlite3.Connection, table: str, order: str) -> list[tuple]:
    """Every row of `table` with each value's SQLite type (a NULL written in the statement
    and a None bound must read back the same)."""
    columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    kinds = ", ".join(f'"{c}", typeof("{c}")' for c in columns if c != "run_id")
    return db.execute(f"SELECT {kinds} FROM {table} ORDER BY {order}").fetchall()


def test_flat_task_rows_store_as_the_rows_tuples_do(tmp_path):
    # `add_values`' statements write a column None in each of their rows as NULL: the rows
    # read back exactly as those stored a tuple a row (`insert_rows`), NULL and types alike,
    # whichever statements hold a problem or a peak memory (95 rows a statement).
    per = TASK_ROWS_PER_INSERT
    rows = [row(k, wall_s=k / 7, peak_memory_bytes=None) for k in range(3 * per + 11)]
    rows[per + 3] = rows[per + 3]._replace(valid=False, problem="solution 1 is wrong")
    rows[2 * per + 5] = rows[2 * per + 5]._replace(peak_memory_bytes=2**40 + 3)
    rows[3 * per + 1] = rows[3 * per + 1]._replace(problem="", peak_memory_bytes=0)
    # texts a statement's rows share but one (a quote, one not ASCII, a status apart)
    for k in range(per, 2 * per):
        rows[k] = rows[k]._replace(message="it's", verdict="=1 é", timeout=2.5)
    rows[3] = rows[3]._replace(timeout=3.0)  # (a whole timeout, one row apart)
    for k in range(2 * per, 3 * per):  # (a whole timeout a statement: written as its digits)
        rows[k] = rows[k]._replace(timeout=600.0)
    rows[per - 1] = rows[per - 1]._replace(status="timeout", message="", backend="native")
    rows[3 * per + 2] = rows[3 * per + 2]._replace(host="elsewhere")
    rows[2 * per + 9] = rows[2 * per + 9]._replace(count=2, exhaustive=False, limit=5, sample=3)
    for k in range(3 * per, len(rows)):  # (a statement's rows of one limit, count, sample)
        rows[k] = rows[k]._replace(limit=3, count=1, sample=7)
    sql = [task_to_sql(1, r) for r in rows]
    with Store(tmp_path / "flat.sqlite") as flat, Store(tmp_path / "rows.sqlite") as plain:
        run_id = flat.new_run({}, {})
        assert run_id == plain.new_run({}, {}) == 1
        with flat.writer(run_id, every=10**6, seconds=3600) as writer:
            writer.add_values([v for values in sql[:100] for v in values[1:]])
            writer.add_values([v for values in sql[100:] for v in values[1:]])
        with plain.db:
            insert_rows(plain.db, "INTO tasks", len(sql[0]), sql)
        assert list(flat.tasks(run_id)) == rows
        assert _stored(flat.db, "tasks", "task_id") == _stored(plain.db, "tasks", "task_id")
        nulls = flat.db.execute("SELECT COUNT(*) FROM tasks WHERE problem IS NULL").fetchone()
        assert nulls == (len(rows) - 2,)


def test_flat_task_rows_with_a_text_of_their_own_a_statement_store_whole(tmp_path):
    # each statement's rows share a message no other shares: past the writer's few kept
    # statements, the texts are bound and the NULLs still written (the rows the same)
    per = TASK_ROWS_PER_INSERT
    rows = [row(k, message=f"m{k // per}", host=f"h{k // per}") for k in range(40 * per)]
    rows[-1] = rows[-1]._replace(problem="wrong", valid=False)
    sql = [task_to_sql(1, r) for r in rows]
    with Store(tmp_path / "flat.sqlite") as flat, Store(tmp_path / "rows.sqlite") as plain:
        run_id = flat.new_run({}, {})
        plain.new_run({}, {})
        with flat.writer(run_id, every=10**6, seconds=3600) as writer:
            writer.add_values([v for values in sql for v in values[1:]])
            assert len(writer._statements) <= 40
        with plain.db:
            insert_rows(plain.db, "INTO tasks", len(sql[0]), sql)
        assert list(flat.tasks(run_id)) == rows
        assert _stored(flat.db, "tasks", "task_id") == _stored(plain.db, "tasks", "task_id")
    puzzles = [PuzzleRow(f"p:{k}", k, f"c{k // 142}", PUZZLE) for k in range(30 * 142)]
    with Store(tmp_path / "p.sqlite") as lists:
        assert lists.puzzles(lists.new_run({}, {}, puzzles)) == puzzles


def test_puzzle_rows_store_as_one_by_one_with_their_nulls(tmp_path):
    # A statement's column None in all its rows is written NULL: the puzzles read back as the
    # rows inserted one statement each, NULLs and types alike.
    per = VALUES_PER_INSERT // (1 + len(PuzzleRow._fields))
    puzzles = [PuzzleRow(f"p.txt:{k}", k, "p", PUZZLE) for k in range(3 * per + 5)]
    puzzles[per + 2] = puzzles[per + 2]._replace(box="3x3")
    puzzles[2 * per + 7] = puzzles[2 * per + 7]._replace(expected_count=0)
    puzzles[3 * per] = puzzles[3 * per]._replace(expected_solution=SOLUTION, box="")
    for k in range(per, 2 * per):
        puzzles[k] = puzzles[k]._replace(collection="o'clock é" if k % 2 else "o'clock")
    puzzles[2 * per + 1] = puzzles[2 * per + 1]._replace(collection="q")
    with Store(tmp_path / "lists.sqlite") as lists, Store(tmp_path / "rows.sqlite") as plain:
        run_id = lists.new_run({}, {}, puzzles)
        assert run_id == plain.new_run({}, {}) == 1
        with plain.db:
            plain.db.executemany(
                "INSERT INTO puzzles VALUES (1, ?, ?, ?, ?, ?, ?, ?)", map(tuple, puzzles)
            )
        assert lists.puzzles(run_id) == puzzles
        order = "position"
        assert _stored(lists.db, "puzzles", order) == _stored(plain.db, "puzzles", order)


@pytest.mark.parametrize(
    "stats",
    [{}, {"nodes": 12, "cpu_s": 0.000553, "big": 10**18, "tiny": -2.5e-300}, {'a"b\\c': 1.0}],
)
def test_stats_are_stored_as_json_dumps_writes_them(stats):
    assert stats_json(stats) == json.dumps(stats, allow_nan=False)
    assert json.loads(stats_json(stats)) == stats


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), object()])
def test_stats_json_has_no_text_for_what_json_cannot_write(bad):
    with pytest.raises((ValueError, TypeError)):
        stats_json({"x": bad})


def test_the_writer_commits_in_batches(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as store, Store(path) as reader:
        run_id = store.new_run({}, {})
        with store.writer(run_id, every=3, seconds=3600) as writer:
            writer.add(row(0))
            writer.add(row(1))
            assert reader.done_task_ids(run_id) == set()
            writer.add(row(2))
            assert reader.done_task_ids(run_id) == {0, 1, 2}
            writer.add(row(3))
        assert reader.done_task_ids(run_id) == {0, 1, 2, 3}  # close() commits the rest


def test_the_writer_commits_old_rows_after_its_interval(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as store, Store(path) as reader:
        run_id = store.new_run({}, {})
        with store.writer(run_id, every=1000, seconds=0.0) as writer:
            writer.add(row(0))
            assert reader.done_task_ids(run_id) == {0}


def test_rows_left_waiting_are_committed_in_the_background(tmp_path):
    path = tmp_path / "r.sqlite"
    interval = 0.5
    with Store(path) as store, Store(path) as reader:
        run_id = store.new_run({}, {})
        start = time.monotonic()  # (the interval counts from the writer's start)
        with store.writer(run_id, every=1000, seconds=interval) as writer:
            writer.add(row(0))  # the first add finds the interval not yet over
            early = reader.done_task_ids(run_id)
            # not committed yet, unless a loaded machine paused this test past the interval
            if time.monotonic() - start < interval:
                assert early == set()
            wait_for(lambda: reader.done_task_ids(run_id), "the background commit")
            assert reader.done_task_ids(run_id) == {0}


def test_a_reader_is_not_blocked_by_an_open_write(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        run_id = store.new_run({"x": 1}, {})
        store.db.execute("BEGIN IMMEDIATE")
        store.db.execute(
            "UPDATE runs SET status = 'interrupted' WHERE id = ?", (run_id,)
        )  # not committed yet
        with Store(path, create=False) as reader:
            assert reader.run(run_id).status == "running"
        store.db.execute("COMMIT")
        with Store(path, create=False) as reader:
            assert reader.run(run_id).status == "interrupted"


def test_statement_rows_are_whole_statements_then_powers_of_two():
    assert statement_rows(1000, 47) == [47] * 21 + [8, 4, 1]
    assert statement_rows(46, 47) == [32, 8, 4, 2]
    assert statement_rows(37, 49) == [32, 4, 1]
    assert statement_rows(100, 64) == [64, 32, 4]
    assert statement_rows(0, 47) == []
    for n in range(200):
        for per in (1, 2, 31, 32, 47, 999):
            pieces = statement_rows(n, per)
            assert sum(pieces) == n and all(0 < p <= per for p in pieces)


@pytest.mark.parametrize(("limit", "most"), [(None, TASK_ROWS_PER_INSERT), (999, 47)])
def test_a_writers_flushes_of_any_size_use_statements_of_few_row_counts(tmp_path, limit, most):
    # flushes of 1, 2, ..., 120 rows: statements of 95 (47 where SQLite takes 999 parameters
    # at most), 32, 16, 8, 4, 2 and 1 rows only, and every row stored
    with Store(tmp_path / "r.sqlite") as store:
        if limit is not None:
            store.db.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)
        run_id = store.new_run({}, {})
        rows: list[TaskRow] = []
        with store.writer(run_id, every=10**6, seconds=3600) as writer:
            for n in range(1, 121):
                batch = [row(len(rows) + j, wall_s=(len(rows) + j) / 3) for j in range(n)]
                # (a problem in every row: its column is bound, not written in the statement)
                batch = [r._replace(problem=f"p{r.task_id}", valid=False) for r in batch]
                writer.add_values([v for r in batch for v in task_to_sql(run_id, r)[1:]])
                writer.flush()
                rows += batch
            assert {r for _, r in writer._statements} == {most, 32, 16, 8, 4, 2, 1}
        assert list(store.tasks(run_id)) == rows


#: The puzzles table and its index as schema version 3 made them (its primary key on the ids).
_VERSION_3_PUZZLES = """
CREATE TABLE puzzles (
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
CREATE INDEX puzzles_in_order ON puzzles (run_id, position, puzzle_id);
"""


def _as_version_3(path) -> None:
    """Make the file at `path` what schema version 3 wrote: its puzzles table with the
    primary key `(run_id, puzzle_id)` and `puzzles_in_order`, the same rows in it."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        "BEGIN; ALTER TABLE puzzles RENAME TO puzzles_now;"
        + _VERSION_3_PUZZLES
        + "INSERT INTO puzzles SELECT * FROM puzzles_now; DROP TABLE puzzles_now;"
        "UPDATE schema_version SET version = 3; COMMIT;"
    )
    db.close()


def test_a_version_3_file_is_upgraded_its_rows_reports_and_resume_the_same(tmp_path):
    """A file of schema version 3 (the puzzles' primary key on their ids) opens as version
    4: its puzzles read back the same, every value and its type, the unique index on the
    positions made and the old key and index gone, the reports the same, and a run stopped
    half way resumes to the rows an uninterrupted run stores."""
    from support import MULTIPLE, TELEGRAM, collection

    from sudokubench.harness import CompareArgs, compare
    from sudokubench.harness.report import build_report
    from sudokubench.harness.report.render import render_json, render_table

    lines = [TELEGRAM, *(str(r.puzzle) for r in collection("17clue", 4)), MULTIPLE]
    (tmp_path / "p.txt").write_text("".join(f"{x}\n" for x in lines))
    (tmp_path / "q.txt").write_text(f"{TELEGRAM},{TELEGRAM_SOLUTION}\n{MULTIPLE}\n")
    args = CompareArgs(
        files=(str(tmp_path / "p.txt"), str(tmp_path / "q.txt")), backends=("fast", "dlx")
    )
    whole, cut = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    assert compare(args, db=whole).ok and compare(args, db=whole).ok  # two runs in one file
    assert compare(args, db=cut).ok
    with sqlite3.connect(cut) as db:  # stopped half way
        db.execute("DELETE FROM tasks WHERE task_id >= 5")
        db.execute("UPDATE runs SET status = 'interrupted'")

    def seen(path) -> tuple:
        with Store(path, create=False) as store:
            reports = [build_report(store, run_id) for run_id in (1, 2)]
            texts = [(render_table(r, width=100), render_json(r)) for r in reports]
            return _stored(store.db, "puzzles", "run_id, position"), texts

    before = seen(whole)
    _as_version_3(whole)
    _as_version_3(cut)
    with sqlite3.connect(whole) as db:
        indexes = {r[1]: r[2] for r in db.execute("PRAGMA index_list(puzzles)")}
    assert indexes == {"puzzles_in_order": 0, "sqlite_autoindex_puzzles_1": 1}  # (version 3's)
    assert seen(whole) == before
    with sqlite3.connect(whole) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        indexes = {r[1]: r[2] for r in db.execute("PRAGMA index_list(puzzles)")}
        assert indexes == {"puzzles_by_position": 1}
    resumed = compare(args, db=cut, resume=1)
    assert resumed.ok and resumed.run.status == "complete"

    def answers(path) -> list[tuple]:
        with sqlite3.connect(path) as db:
            return db.execute(
                "SELECT task_id, puzzle_id, puzzle, backend, status, count, solutions, verdict, "
                "valid FROM tasks WHERE run_id = 1 ORDER BY task_id"
            ).fetchall()

    assert answers(cut) == answers(whole) and len(answers(cut)) == 2 * (len(lines) + 2)
    with Store(cut, create=False) as one, Store(whole, create=False) as other:
        assert one.puzzles(1) == other.puzzles(1) == other.puzzles(2)
        assert len(one.puzzles(1)) == len(lines) + 2
