"""The results database as a file (`harness/dbfile.py`): a compare that fails never removes a
database another process uses or that stores a run; paths that are not files are one line."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import TELEGRAM, TESTS, cli, collection, stored

from sudokubench.harness import dbfile
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.store import Store


def _opened_by(pid: int, path: Path) -> bool:
    """Whether process `pid` has `path` open (Linux: its /proc/PID/fd links)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    target = str(path.resolve())
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                return True
        except OSError:
            continue
    return False


def _wait_for(condition, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen")
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see open files")
def test_a_compare_failing_on_bad_input_never_removes_a_database_another_uses(
    tmp_path: Path,
) -> None:
    """B makes the new database and reads its input from a pipe; A opens the same file and
    waits for B's start transaction; then B's last line is bad: B fails, A's run is stored."""
    db = tmp_path / "r.sqlite"
    good = tmp_path / "good.txt"
    good.write_text(TELEGRAM + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    command = [sys.executable, "-m", "sudokubench", "compare", "--db", str(db), "-b", "fast"]
    with subprocess.Popen(
        [*command, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    ) as b:  # fmt: skip
        assert b.stdin is not None
        for record in collection("top95", 20):
            b.stdin.write(f"{record.puzzle}\n")
        b.stdin.flush()
        _wait_for(lambda: _opened_by(b.pid, db), "B opening the database")
        with subprocess.Popen(
            [*command, str(good)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env,
        ) as a:  # fmt: skip
            _wait_for(lambda: _opened_by(a.pid, db), "A opening the database")
            b.stdin.write(TELEGRAM[:80] + "A\n")  # B's input ends with a bad line
            b.stdin.close()
            b_err = b.stderr.read() if b.stderr else ""
            assert b.wait(120) == 2, b_err
            assert "unexpected character 'A'" in b_err
            a_out, a_err = a.communicate(timeout=120)
            assert a.returncode == 0, a_err
            assert f"stored as run 1 in {db}" in a_out
    assert db.exists()
    with sqlite3.connect(db) as conn:
        assert list(conn.execute("SELECT id, status FROM runs")) == [(1, "complete")]
        assert list(conn.execute("SELECT puzzle, status FROM tasks")) == [(TELEGRAM, "solved")]


def test_discard_removes_only_an_empty_database_nobody_holds(tmp_path: Path) -> None:
    empty, used, held = (tmp_path / f"{n}.sqlite" for n in ("empty", "used", "held"))
    Store(empty).close()
    with Store(used) as store:
        store.new_run({}, {}, [PuzzleRow("a:1", 0, "a", TELEGRAM)])
    Store(held).close()
    with Store(held, create=False):  # another process's store, as far as the lock goes
        assert not dbfile.discard(held)
    assert not dbfile.discard(used)  # it stores a run
    assert dbfile.discard(empty) and dbfile.discard(held)
    assert not empty.exists() and not held.exists() and used.exists()
    assert not list(tmp_path.glob("empty*")) and not list(tmp_path.glob("held*"))


@pytest.mark.parametrize("path", [os.devnull, "/dev/zero", "/dev/full", "FOLDER"])
@pytest.mark.parametrize("command", [("runs",), ("report",), ("compare", TELEGRAM, "-b", "fast")])
def test_a_database_path_that_is_not_a_file_is_one_line(
    tmp_path: Path, path: str, command: tuple[str, ...]
) -> None:
    if not Path(path).exists() and path != "FOLDER":
        pytest.skip(f"no {path} here")
    target = str(tmp_path) if path == "FOLDER" else path
    result = cli(*command, "--db", target)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("sudokubench: error: ") and result.stderr.count("\n") == 1
    assert "is not a results database" in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing made in the folder


def _slow_run(db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """`compare` of top95 with a backend that takes 50 ms a puzzle (about 5 s in all)."""
    command = [sys.executable, "-m", "sudokubench", "compare", "top95", "--db", str(db)]
    command += ["-b", "fake_backends:Sleepy", "--no-warmup"]
    environ = {**os.environ, "PYTHONPATH": str(TESTS), "SUDOKUBENCH_TEST_SLEEP": "0.05", **env}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environ)  # fmt: skip


def _resumed_completely(db: Path) -> None:
    """`--resume 1` completes the run: 95 tasks, each solved and valid, the run complete."""
    done = cli("compare", "--resume", "1", "--db", str(db), "--trust-backends")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert list(conn.execute("SELECT status FROM runs")) == [("complete",)]
        found = list(conn.execute("SELECT status, valid, COUNT(*) FROM tasks GROUP BY 1, 2"))
    assert found == [("solved", 1, 95)]


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("sudokubench: error: "), stderr
    return lines[0]


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 4 MB file system of its own (tmpfs: needs root), removed afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True
        ).returncode
    ):
        pytest.skip("needs root to mount a small file system")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.slow
def test_a_disk_that_fills_mid_run_is_one_line_keeps_what_was_stored_and_resume_completes(
    small_disk: Path,
) -> None:
    db, filler = small_disk / "r.sqlite", small_disk / "filler"
    with _slow_run(db, {}) as run:
        _wait_for(lambda: stored(db) > 0, "the first rows")
        # the disk fills up (the file's close may find its last bytes no room too)
        with contextlib.suppress(OSError), filler.open("wb") as out:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        _, err = run.communicate(timeout=120)
    assert run.returncode == 2, err
    line = _one_line(err)
    assert "the disk is full" in line and "--resume 1" in line, line
    kept = stored(db)
    assert kept > 0
    with sqlite3.connect(db) as conn:  # (marked interrupted if that write found room)
        assert list(conn.execute("SELECT status FROM runs")) != [("complete",)]
    filler.unlink()  # space is back
    _resumed_completely(db)


@pytest.mark.slow
def test_a_lock_held_for_40_s_is_one_line_and_the_run_is_not_left_running(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with _slow_run(db, {}) as run:
        _wait_for(lambda: stored(db) > 0, "the first rows")
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # what a process of the same user can do to the file
        time.sleep(40)
        holder.execute("COMMIT")
        holder.close()
        _, err = run.communicate(timeout=120)
    assert run.returncode == 2, err
    line = _one_line(err)
    assert "held its lock for 30 s" in line and "--resume 1" in line, line
    with sqlite3.connect(db) as conn:
        assert list(conn.execute("SELECT status FROM runs")) == [("interrupted",)]
    _resumed_completely(db)


@pytest.fixture
def one_run(tmp_path: Path) -> Path:
    """A database with one complete run of one puzzle and `fast`."""
    db = tmp_path / "r.sqlite"
    assert cli("compare", TELEGRAM, "-b", "fast", "--db", str(db), "-q").returncode == 0
    return db


def _dump(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT * FROM runs"), *conn.execute("SELECT * FROM tasks")]


@pytest.mark.parametrize(
    ("craft", "says"),
    [
        ("UPDATE runs SET args = json_set(args, '$.limit', 100000000000000000000), "
         "status = 'interrupted'", "limit"),
        ("CREATE TRIGGER t AFTER INSERT ON tasks BEGIN UPDATE tasks SET status = "
         "'unsatisfiable'; END", "holds a trigger 't'"),
        ("CREATE VIEW v AS SELECT * FROM tasks", "holds a view 'v'"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", [("report",), ("runs",), ("compare", "--resume", "1")])
def test_a_crafted_database_is_one_line_and_left_as_it_is(
    one_run: Path, craft: str, says: str, command: tuple[str, ...]
) -> None:
    with sqlite3.connect(one_run) as conn:
        conn.execute(craft)
    before = _dump(one_run)
    result = cli(*command, "--db", str(one_run))
    if command == ("runs",) and "limit" in says:  # (runs lists it: it reads no arguments)
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2, result.stderr
        assert _one_line(result.stderr).count(says) == 1
    assert _dump(one_run) == before


@pytest.mark.parametrize("suffix", ["", "-wal"])
@pytest.mark.parametrize("option", ["-o", "--plot"])
def test_report_refuses_to_write_over_the_results_database(
    one_run: Path, suffix: str, option: str
) -> None:
    before = _dump(one_run)
    target = one_run.with_name(one_run.name + suffix)
    result = cli("report", "--db", str(one_run), option, str(target))
    assert result.returncode == 2, result.stderr
    assert "is the results database" in _one_line(result.stderr)
    assert _dump(one_run) == before
    assert cli("runs", "--db", str(one_run)).returncode == 0


@pytest.mark.slow
def test_a_read_only_database_is_read_and_never_written(small_disk: Path, one_run: Path) -> None:
    db = small_disk / "r.sqlite"
    db.write_bytes(one_run.read_bytes())
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    before = db.read_bytes()
    for command in [("report",), ("runs",)]:
        result = cli(*command, "--db", str(db))
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    for command in [("compare", TELEGRAM, "-b", "fast"), ("compare", "--resume", "1")]:
        result = cli(*command, "--db", str(db))
        assert result.returncode == 2, result.stderr
        assert "it is read-only here" in _one_line(result.stderr)
    assert db.read_bytes() == before and [p.name for p in small_disk.iterdir()] == [db.name]


@pytest.mark.slow
def test_a_read_only_version_3_database_is_read_as_it_is(small_disk: Path, one_run: Path) -> None:
    """A file of schema version 3 that cannot be written (an archive, a read-only mount) is
    not upgraded: it is read as it is, its report the same as once upgraded, never written."""
    from test_store import _as_version_3

    _as_version_3(one_run)
    db = small_disk / "r.sqlite"
    db.write_bytes(one_run.read_bytes())
    upgraded = cli("report", "--db", str(one_run), "--json")  # (a writable copy: upgraded)
    assert upgraded.returncode == 0, upgraded.stderr
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    before = db.read_bytes()
    result = cli("report", "--db", str(db), "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout == upgraded.stdout
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(3,)]
    assert db.read_bytes() == before and [p.name for p in small_disk.iterdir()] == [db.name]


@pytest.mark.slow
def test_a_compare_behind_another_ones_start_waits_then_refuses_in_one_line(
    one_run: Path,
) -> None:
    """Another process holds the write lock (as a compare storing a large input does): a short
    hold is waited for, one past the 30 s busy timeout is one line, exit 2, nothing stored."""
    holder = sqlite3.connect(one_run, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with subprocess.Popen(
            [sys.executable, "-m", "sudokubench", "compare", TELEGRAM, "-b", "fast", "--db",
             str(one_run)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ) as late:  # fmt: skip
            _, err = late.communicate(timeout=120)
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert late.returncode == 2, err
    assert "held its lock for 30 s" in _one_line(err)
    holder = sqlite3.connect(one_run, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    waiting = subprocess.Popen(
        [sys.executable, "-m", "sudokubench", "compare", TELEGRAM, "-b", "fast", "--db",
         str(one_run), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # held a while once the command has the file open (it then waits for the lock): a sleep
    # alone could end before a loaded machine had even started the command
    if Path("/proc/self/fd").is_dir():
        _wait_for(lambda: _opened_by(waiting.pid, one_run), "the compare opening the database")
    time.sleep(3)
    holder.execute("COMMIT")
    holder.close()
    _, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    with sqlite3.connect(one_run) as conn:
        found = list(conn.execute("SELECT id, status FROM runs"))
    assert found == [(1, "complete"), (2, "complete")]


@pytest.mark.slow
def test_a_full_disk_at_the_start_is_one_line_and_leaves_no_file(small_disk: Path) -> None:
    with (small_disk / "filler").open("wb") as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 65536)
            out.flush()
    db = small_disk / "r.sqlite"
    result = cli("compare", TELEGRAM, "-b", "fast", "--db", str(db))
    assert result.returncode == 2, result.stderr
    assert "the disk is full" in _one_line(result.stderr)
    assert not db.exists()
