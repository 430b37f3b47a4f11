"""The results database as a file (`harness/dbfile.py`): a compare that fails never removes a
database another process uses or that stores a run; paths that are not files are one line."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import TELEGRAM, TESTS, cli, collection

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
