"""An `exec:` program that ignores SIGTERM, SIGHUP and SIGINT and starts children that ignore
them too (a `sleep` and a forked copy of itself, in its own process group) is gone, with every
one of them, after its task's timeout: the harness kills the program's whole process group
(and what it detached) with SIGKILL, which no process can ignore.

No wall-clock bound: the test looks in /proc, after the timeout, for any process the program
started (polling a hang's length, `HANG_S`: a SIGKILL takes effect when the kernel next runs
its process, later on a busy machine)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from support import TELEGRAM, cli, wait_for

from sudokubench.backend import Status
from sudokubench.grid import Grid
from sudokubench.solvers.program import ExecBackend

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: The program: ignores the three signals, starts `sleep SECONDS` (which inherits the ignored
#: signals across exec; SECONDS about 303, its digits the test's own so that no other process,
#: another run of this test meanwhile included, has that command line) and a forked copy of
#: itself, then never answers.
STUBBORN = """
import os, signal, subprocess, sys, time
for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(sig, signal.SIG_IGN)
subprocess.Popen(["sleep", sys.argv[1]], stdin=subprocess.DEVNULL)
if os.fork() == 0:
    while True:
        time.sleep(1)
for line in sys.stdin:
    time.sleep(3600)
"""
#: Bits of SIGHUP, SIGINT and SIGTERM in /proc/PID/status's SigIgn mask.
IGNORED = (1 << (signal.SIGHUP - 1)) | (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))


def _living(marker: str) -> list[int]:
    """The pids of living processes (zombies left out) whose command line holds `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError, UnicodeDecodeError):
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(name))
    return found


def _gone(pids: list[int] | None, markers: list[str]) -> None:
    """Wait until no process of `pids` (None: none at all) is left among the living processes
    of `markers`; none would, were they not killed (they sleep or loop for minutes)."""

    def left() -> list[int]:
        living = [pid for marker in markers for pid in _living(marker)]
        return [pid for pid in living if pids is None or pid in pids]

    wait_for(lambda: not left(), f"the program's processes ending after its timeout ({left()})")


def _ignored(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(
        next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn")), 16
    )


@pytest.fixture
def program(tmp_path: Path):
    """The program's command (its file's path marks its processes) and its `sleep`'s command
    line; anything left is killed after."""
    path = tmp_path / "stubborn.py"
    path.write_text(STUBBORN, encoding="utf-8")
    seconds = f"303.{uuid.uuid4().int % 10**12:012d}"
    yield f"{sys.executable} {path} {seconds}", str(path), f"sleep {seconds}"
    for pid in _living(str(path)) + _living(f"sleep {seconds}"):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_program_ignoring_signals_is_gone_with_its_children_after_its_timeout(program):
    """In this process: the program and both children are up and ignore the three signals;
    after `solve` times out, none of them lives."""
    command, marker, sleep = program
    backend = ExecBackend(command)
    backend._start()  # (started as `solve` would; then looked at before the task)
    wait_for(lambda: len(_living(marker)) >= 2 and _living(sleep), "the program's children")
    started = _living(marker) + _living(sleep)
    assert len(started) == 3
    assert all(_ignored(pid) & IGNORED == IGNORED for pid in started)
    result = backend.solve(Grid.parse(TELEGRAM), timeout=0.5)
    assert result.status == Status.TIMEOUT
    _gone(started, [marker, sleep])
    backend.close()


def test_compare_leaves_nothing_of_such_a_program_after_its_timeout(program, tmp_path):
    """Through `compare` (the program in a worker of its own lane): its task is a TIMEOUT,
    `fast`'s is solved, and no process the program started is left."""
    command, marker, sleep = program
    name = f"exec:{command}"
    puzzles = tmp_path / "one.txt"
    puzzles.write_text(f"{TELEGRAM}\n", encoding="utf-8")
    db = tmp_path / "r.sqlite"
    done = cli(
        "compare", str(puzzles), "-b", f"fast,{name}", "--timeout", "1", "--no-warmup",
        "--db", str(db),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # a timeout is an answer, not an error
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT backend, status FROM tasks").fetchall())
    assert rows == {"fast": "solved", name: "timeout"}
    _gone(None, [marker, sleep])
