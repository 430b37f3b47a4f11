"""A plug-in's worker against the parent: what it writes up its pipe (`tests/hostile_wire.py`)
is read as data only, bounded in size, never blocks the parent nor moves its clock, and costs
only the plug-in's own tasks. Each case runs `compare` in real processes and checks what is
stored against the true answers (`is_solution`)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, TESTS, cli

from sudokubench.confine import unconfined
from sudokubench.formats import parse_grid
from sudokubench.grid import is_solution

EASY = [
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
    TELEGRAM,
]


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    path = tmp_path / "easy.txt"
    path.write_text("".join(f"{p}\n" for p in EASY), encoding="utf-8")
    return path


def compare(db: Path, puzzles: Path, plugin: str, **env: str) -> tuple[int, str, int]:
    """`compare` of `fast` and `plugin`: its exit code, its stderr and the most memory its
    process held (VmHWM, in kB, sampled while it ran; it only grows)."""
    environ = {**os.environ, **env}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), environ.get("PYTHONPATH")]))
    args = [sys.executable, "-m", "sudokubench", "compare", str(puzzles), "--db", str(db)]
    args += ["--backends", f"fast,{plugin}", "--jobs", "1", "--timeout", "2"]
    with subprocess.Popen(args, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as process:  # fmt: skip
        peak = 0
        deadline = time.monotonic() + 240  # a hang fails the test, it does not hold the suite
        while process.poll() is None and time.monotonic() < deadline:
            peak = max(peak, _hwm(process.pid))
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
            pytest.fail(f"compare with {plugin} did not end")
        return process.returncode, process.stderr.read(), peak


def _hwm(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines()
                 if line.startswith("VmHWM:")), 0)  # fmt: skip


def rows(db: Path) -> list[sqlite3.Row]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return list(conn.execute("SELECT * FROM tasks ORDER BY task_id"))


def assert_charged_alone(db: Path, plugin: str, status: str, says: str) -> None:
    """Every task stored; `fast`'s right; the plug-in's of `status`, their message `says`."""
    stored = rows(db)
    assert len(stored) == 2 * len(EASY)
    for row in stored:
        if row["backend"] == plugin:
            assert row["status"] == status and says in row["message"], dict(row)
            continue
        (solution,) = json.loads(row["solutions"])
        puzzle = parse_grid(row["puzzle"])
        assert row["status"] == "solved" and is_solution(parse_grid(solution), puzzle)


@pytest.mark.slow
def test_a_crafted_pickle_from_a_plugin_never_runs_in_compare(
    tmp_path: Path, puzzles: Path
) -> None:
    marker = tmp_path / "unpickled"
    plugin = "hostile_wire:PickleBomb"
    code, err, _ = compare(tmp_path / "r.sqlite", puzzles, plugin, HOSTILE_MARKER=str(marker))
    assert not marker.exists()  # the pickle's call never ran (in any process that read it)
    assert code == 3 and "Traceback" not in err, err
    assert_charged_alone(tmp_path / "r.sqlite", plugin, "error", "bytes that are not a message")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("plugin", "status", "says"),
    [
        ("HalfMessage", "timeout", "killed after"),  # the parent never waits for the rest
        ("Endless", "error", "announced ready 3 times"),  # nor restarts its clock for it
        ("WrongTask", "error", "an outcome for task"),
        ("Garbage", "error", "bytes that are not a message"),
        ("DeepJson", "error", "bytes that are not a message (RecursionError)"),
        ("Exits", "error", "the backend raised SystemExit: 3"),
        ("GenExit", "error", "the backend raised GeneratorExit: closed"),
        ("BareBase", "error", "the backend raised BaseException: past every except"),
        ("CloseStdio", "solved", ""),
    ],
)
def test_what_a_plugin_does_in_its_worker_costs_its_own_tasks(
    tmp_path: Path, puzzles: Path, plugin: str, status: str, says: str
) -> None:
    code, err, _ = compare(tmp_path / "r.sqlite", puzzles, f"hostile_wire:{plugin}")
    assert code == (3 if status == "error" else 0) and "Traceback" not in err, err
    assert_charged_alone(tmp_path / "r.sqlite", f"hostile_wire:{plugin}", status, says)


@pytest.mark.slow
def test_a_600_mb_message_never_takes_the_parents_memory(tmp_path: Path, puzzles: Path) -> None:
    from sudokubench.harness.pool.wire import MESSAGE_BYTES

    plugin = "hostile_wire:Oversized"
    code, err, peak_kb = compare(tmp_path / "r.sqlite", puzzles, plugin)
    assert code == 3 and "Traceback" not in err, err
    assert_charged_alone(tmp_path / "r.sqlite", plugin, "error", f"more than {MESSAGE_BYTES:,}")
    assert 0 < peak_kb * 1024 < 300 * 2**20, peak_kb  # (not the 600 MB it sent)


@pytest.mark.slow
@pytest.mark.skipif(unconfined() is not None, reason=f"cannot confine here: {unconfined()}")
def test_a_plugin_cannot_write_the_results_database(tmp_path: Path, puzzles: Path) -> None:
    db, plugin = tmp_path / "r.sqlite", "hostile_wire:Tamper"
    code, err, _ = compare(db, puzzles, plugin, HOSTILE_DB=str(db))
    assert code == 3 and "Traceback" not in err, err  # its tasks are errors, nothing is wrong
    assert_charged_alone(db, plugin, "error", "attempt to write a readonly database")


def test_half_a_line_waits_without_blocking_and_the_rest_completes_it() -> None:
    from sudokubench.backend import Status
    from sudokubench.harness.pool.task import Task, failed
    from sudokubench.harness.pool.wire import PlainReader, encode, to_wire

    parent, child = socket.socketpair()
    reader = PlainReader(parent.fileno())
    task = Task(7, "p:1", TELEGRAM, None, "x:y", 1, 1.0, 0)
    line = encode([to_wire(failed(task, Status.ERROR, "why"))])
    child.sendall(line[:5])
    assert list(reader.messages(lambda: select_readable(parent))) == []  # at once: no block
    child.sendall(line[5:])
    (message,) = reader.messages(lambda: select_readable(parent))
    assert message == [
        (7, "error", 0, False, (), 0.0, 0.0, 0.0, {}, "why", True, "?", None, "", None)
    ]


def test_an_answer_too_large_to_send_is_an_error_saying_so() -> None:
    from sudokubench.backend import Status
    from sudokubench.harness.pool.task import Outcome, Task
    from sudokubench.harness.pool.wire import MESSAGE_BYTES, PlainEnd, PlainReader, to_wire

    parent, child = socket.socketpair()
    task = Task(3, "p:1", MULTIPLE, None, "x:y", 10**6, 1.0, 0)
    line = "1" * 81
    huge = (line,) * (MESSAGE_BYTES // 80)
    small = Outcome(task._replace(task_id=2), Status.SOLVED, 1, False, (line,), 0, 0, 0.5, {})
    big = Outcome(task, Status.SOLVED, len(huge), False, huge, 0.0, 0.0, 0.5, {})
    sender = threading.Thread(
        target=PlainEnd(_Conn(child)).send, args=([to_wire(small), to_wire(big)],)
    )
    sender.start()
    reader, got = PlainReader(parent.fileno()), []
    while len(got) < 2:
        got += [w for m in reader.messages(lambda: select_readable(parent)) for w in m]
    sender.join()
    assert [w[0] for w in got] == [2, 3]
    assert got[0][1] == "solved" and got[1][1] == "error"
    assert "too large to send" in got[1][9] and got[1][4] == ()


class _Conn:
    """A socket dressed as the `Connection` `PlainEnd` wraps (it uses only its descriptor)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def fileno(self) -> int:
        return self._sock.fileno()


def select_readable(sock: socket.socket) -> bool:
    import select

    return bool(select.select([sock], [], [], 0)[0])


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("/no/such/program", "cannot find the program '/no/such/program'"),
        ("FOLDER", "is a folder"),
        ("NOT_EXECUTABLE", "is not executable"),
        ("''", "exec: needs a command"),
        ("python3 'unbalanced", "No closing quotation"),
    ],
)
def test_a_program_that_cannot_run_is_one_line_before_anything_runs(
    tmp_path: Path, command: str, says: str
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a program\n")
    plain.chmod(0o644)
    command = command.replace("FOLDER", str(tmp_path)).replace("NOT_EXECUTABLE", str(plain))
    db = tmp_path / "r.sqlite"
    result = cli("compare", TELEGRAM, "-b", f"fast,exec:{command}", "--db", str(db))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudokubench: error: "), result.stderr
    assert says in lines[0]
    assert not db.exists()  # nothing ran, nothing was stored


@pytest.mark.slow
def test_a_programs_stderr_stays_bounded_on_disk(tmp_path: Path) -> None:
    """The program writes 100 MB to stderr, then answers truly only if its stderr file holds
    at most `STDERR_BYTES` (it sees the file's size itself)."""
    from sudokubench.solvers.program import STDERR_BYTES

    program = tmp_path / "chatty.py"
    program.write_text(
        "import os, sys\n"
        "block = b'x' * 2**20\n"
        "for _ in range(100):\n"
        "    try:\n"
        "        os.write(2, block)\n"
        "    except OSError:\n"
        "        break\n"
        f"ok = os.fstat(2).st_size <= {STDERR_BYTES}\n"
        f"for line in sys.stdin:\n"
        f"    print({TELEGRAM_SOLUTION!r} if ok else 'too much', flush=True)\n"
    )
    db = tmp_path / "r.sqlite"
    name = f"exec:{sys.executable} {program}"
    result = cli("compare", TELEGRAM, "-b", name, "--db", str(db), "--no-warmup")
    assert result.returncode == 0, result.stderr
    (row,) = rows(db)
    assert (row["status"], row["valid"]) == ("solved", 1), dict(row)
