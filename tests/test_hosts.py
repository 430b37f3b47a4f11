"""Where tasks ran: every task row names its host, the report warns when one backend's times
come from several hosts, and a results file of schema 1 (no hosts) is upgraded on open."""

from __future__ import annotations

import sqlite3

from support import MULTIPLE, TELEGRAM

from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import HOST
from sudokubench.harness.report import build_report
from sudokubench.harness.store import SCHEMA_VERSION, Store


def run_two(tmp_path):
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(f"{TELEGRAM}\n{MULTIPLE}\n")
    args = CompareArgs(files=(str(puzzles),), backends=("fast", "dlx"), repeat=2)
    return compare(args, db=tmp_path / "r.sqlite")


def host_warnings(report) -> list[str]:
    return [w for w in report.warnings if "hosts" in w]


def test_a_local_run_records_this_host_and_warns_of_nothing(tmp_path):
    report = run_two(tmp_path)
    assert {t.host for t in report.tasks} == {HOST}
    assert report.run.machine["host"] == HOST
    [pool] = report.run.machine["workers"]
    assert (pool["host"], pool["processes"]) == (HOST, 1)
    assert set(pool["backends"]) == {"fast", "dlx"} and pool["missing"] == {}
    assert host_warnings(report) == []


def test_one_backend_timed_on_two_hosts_is_warned_about(tmp_path):
    run_two(tmp_path)
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        db.execute("UPDATE tasks SET host = 'elsewhere' WHERE backend = 'dlx' AND task_id < 4")
    with Store(tmp_path / "r.sqlite", create=False) as store:
        report = build_report(store, 1)
    names = ", ".join(sorted({HOST, "elsewhere"}))
    assert host_warnings(report) == [
        f"dlx: timings come from 2 hosts ({names}): times measured on unlike machines are not "
        "comparable; run on one host to compare them"
    ]


def test_a_schema_1_file_is_upgraded_and_keeps_its_runs(tmp_path):
    run_two(tmp_path)
    with sqlite3.connect(tmp_path / "r.sqlite") as db:  # as an older sudokubench wrote it
        db.execute("ALTER TABLE tasks DROP COLUMN host")
        db.execute("ALTER TABLE tasks DROP COLUMN peak_memory_bytes")
        db.execute("UPDATE schema_version SET version = 1")
    with Store(tmp_path / "r.sqlite", create=False) as store:
        assert store.db.execute("SELECT version FROM schema_version").fetchall() == [
            (SCHEMA_VERSION,)
        ]
        rows = list(store.tasks(1))
        report = build_report(store, 1)
    assert len(rows) == 8 and {t.host for t in rows} == {""}
    assert report.ok and host_warnings(report) == []
    again = run_two(tmp_path)  # a new run in the upgraded file records its host
    assert again.run.id == 2 and {t.host for t in again.tasks} == {HOST}
