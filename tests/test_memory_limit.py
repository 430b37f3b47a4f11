"""Each task's peak memory (its worker's resident set during the call) is measured, stored and
reported, and `--memory-limit` costs a backend over it only its own tasks: ERROR "memory
limit", its worker replaced, every other backend's answers as without it."""

from __future__ import annotations

import csv
import io
import json
import shlex
import sqlite3
import sys

import pytest
from hostile_plugins import HOG_BYTES
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, cli

from sudokubench.backend import Status
from sudokubench.grid import Grid, is_solution
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import LocalPool, Task
from sudokubench.harness.pool.memory import parse_size
from sudokubench.harness.report import build_report
from sudokubench.harness.store import SCHEMA_VERSION, Store
from sudokubench.solvers import DEFAULT_BACKEND

LIMIT = "200M"


def task(task_id: int, backend: str) -> Task:
    return Task(task_id, f"t:{task_id}", TELEGRAM, None, backend, 1, 30.0, 0)


def test_each_task_carries_its_workers_peak_memory():
    """A plug-in that touches 600 MB peaks over it; the task after it in another lane, and
    the default backend's, stay far below: the mark is reset before each task."""
    names = ["hostile_plugins:BriefHog", DEFAULT_BACKEND, "hostile_plugins:BriefHog"]
    with LocalPool(jobs=1) as pool:
        found = {o.task.task_id: o for o in pool.run(task(i, b) for i, b in enumerate(names))}
    hog, plain = found[0].peak_memory_bytes, found[1].peak_memory_bytes
    assert found[0].status == found[1].status == Status.SOLVED
    assert hog is not None and hog >= HOG_BYTES
    assert found[2].peak_memory_bytes >= HOG_BYTES
    assert plain is not None and 1_000_000 < plain < HOG_BYTES // 4


def test_a_task_over_the_limit_is_an_error_and_its_worker_is_replaced():
    """Whether the parent catches the worker holding the memory (`Hog`) or only the task's
    own peak shows it (`BriefHog` lets go at once), the task is an ERROR "memory limit"; the
    same lane's next task runs in a fresh worker, and the default backend is untouched."""
    names = ["hostile_plugins:Hog", "hostile_plugins:BriefHog", DEFAULT_BACKEND]
    with LocalPool(jobs=1, memory_limit=parse_size(LIMIT)) as pool:
        found = {o.task.task_id: o for o in pool.run(task(i, b) for i, b in enumerate(names))}
        started = pool.started_workers
    for k in (0, 1):
        assert found[k].status == Status.ERROR
        assert found[k].message.startswith("memory limit: the worker resided in ")
        assert found[k].peak_memory_bytes > parse_size(LIMIT)
    assert found[2].status == Status.SOLVED
    assert is_solution(Grid.parse(found[2].solutions[0]), Grid.parse(TELEGRAM))
    assert started >= 3  # each hog's worker was replaced


def program(touch_mb: int, hold_s: float) -> str:
    """An `exec:` backend: a Python program that, for each puzzle, touches `touch_mb` MB,
    holds it `hold_s` seconds, lets go and answers TELEGRAM's solution."""
    code = (
        "import sys, time\n"
        "for line in sys.stdin:\n"
        f"    block = b'\\x01' * ({touch_mb} * 2**20)\n"
        f"    time.sleep({hold_s})\n"
        "    del block\n"
        f"    print({TELEGRAM_SOLUTION!r}, flush=True)\n"
    )
    return "exec:" + shlex.join([sys.executable, "-c", code])


def test_an_exec_programs_memory_is_counted_and_capped():
    """A program's memory is its process's, not its worker's: one that touches 100 MB peaks
    over it, under the 200M limit, and solves; one that holds 600 MB is killed by its worker
    while it holds them, one that lets go at once is caught by its peak: each an ERROR
    "memory limit" of its own task; the default backend's task is untouched."""
    names = [program(600, 30.0), program(600, 0.0), DEFAULT_BACKEND, program(100, 0.0)]
    with LocalPool(jobs=1, memory_limit=parse_size(LIMIT)) as pool:
        found = {o.task.task_id: o for o in pool.run(task(i, b) for i, b in enumerate(names))}
    held, brief, plain, small = (found[k] for k in range(4))
    for hog in (held, brief):
        assert hog.status == Status.ERROR, hog.message
        assert hog.message.startswith("memory limit: the program resided in "), hog.message
        assert hog.peak_memory_bytes > parse_size(LIMIT)
    assert held.message.endswith("; killed")  # by its worker, before its sleep ended
    assert plain.status == Status.SOLVED and plain.peak_memory_bytes < parse_size(LIMIT)
    assert small.status == Status.SOLVED, small.message
    assert 100 * 2**20 <= small.peak_memory_bytes < parse_size(LIMIT)


def test_compare_under_a_memory_limit_charges_only_the_hog(tmp_path):
    """`compare -b fast,hostile_plugins:Hog --memory-limit 200M`: the hog's tasks are ERROR
    "memory limit" (exit 3), fast solves every puzzle right; the JSON summary, the table and
    the per-task export carry each backend's peak memory."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(f"{TELEGRAM}\n{MULTIPLE}\n")
    db = str(tmp_path / "r.sqlite")
    backends = f"{DEFAULT_BACKEND},hostile_plugins:Hog"
    args = ("compare", str(puzzles), "-b", backends, "--db", db, "--memory-limit", LIMIT)
    done = cli(*args, "--json", "--quiet")
    assert done.returncode == 3, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary[DEFAULT_BACKEND]["solved"] == 2 and summary[DEFAULT_BACKEND]["wrong"] == 0
    assert summary["hostile_plugins:Hog"]["error"] == 2
    assert 1_000_000 < summary[DEFAULT_BACKEND]["peak_memory_bytes"] < parse_size(LIMIT)
    assert summary["hostile_plugins:Hog"]["peak_memory_bytes"] > parse_size(LIMIT)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT backend, status, message, solutions FROM tasks").fetchall()
    hog = [r for r in rows if r[0] == "hostile_plugins:Hog"]
    assert len(hog) == 2 and all(r[1] == "error" and r[2].startswith("memory limit") for r in hog)
    assert TELEGRAM_SOLUTION in {json.loads(r[3])[0] for r in rows if r[0] == DEFAULT_BACKEND}

    table = cli("report", "--db", db)
    assert "peak memory" in table.stdout
    export = cli("report", "--db", db, "--per-task", "--format", "csv")
    tasks = list(csv.DictReader(io.StringIO(export.stdout)))
    assert all(int(t["peak_memory_bytes"]) > 1_000_000 for t in tasks)


@pytest.mark.parametrize("size", ["abc", "10K", "-1G", "1X", "1e9", ""])
def test_a_bad_memory_limit_is_one_line_and_exit_2(tmp_path, size):
    done = cli("compare", TELEGRAM, "--memory-limit", size, "--db", str(tmp_path / "r.sqlite"))
    assert done.returncode == 2
    assert done.stderr.startswith("sudokubench: error: --memory-limit ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "r.sqlite").exists()


@pytest.mark.parametrize(
    ("text", "value"),
    [("1G", 2**30), ("512M", 512 * 2**20), ("1.5g", 3 * 2**29), ("800MB", 800 * 2**20),
     ("2GiB", 2**31), ("100000000", 100_000_000)],
)  # fmt: skip
def test_sizes_read_as_written(text, value):
    assert parse_size(text) == value


def test_a_version_2_file_is_upgraded_and_its_tasks_read_as_not_measured(tmp_path):
    """A file written before peaks were stored (schema 2) opens, reads (peaks None, shown as
    `-`), and a new run in it stores its peaks."""
    db = tmp_path / "r.sqlite"
    args = CompareArgs(files=(TELEGRAM,), backends=(DEFAULT_BACKEND,))
    compare(args, db=db)
    with sqlite3.connect(db) as conn:  # as the previous sudokubench wrote it
        conn.execute("ALTER TABLE tasks DROP COLUMN peak_memory_bytes")
        conn.execute("UPDATE schema_version SET version = 2")
    with Store(db, create=False) as store:
        assert store.db.execute("SELECT version FROM schema_version").fetchall() == [
            (SCHEMA_VERSION,)
        ]
        assert {t.peak_memory_bytes for t in store.tasks(1)} == {None}
        report = build_report(store, 1)
    assert report.ok and report.summary[0].peak_memory_bytes is None
    again = compare(args, db=db)
    assert all(t.peak_memory_bytes and t.peak_memory_bytes > 1_000_000 for t in again.tasks)
