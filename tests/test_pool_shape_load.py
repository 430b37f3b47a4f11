"""A backend's load of a shape in the pool's workers (`load_shape`): done before the task's
clock starts, under the backend's load limit and never against the task's timeout; a load
past the limit is the task's ERROR saying so. And `native` on a mixed collection with a fresh
numba cache: the fork server loads the 9x9 kernel without numba, a worker's first 4x4 or 6x6
task loads numba's general kernel first, and no task times out for it."""

from __future__ import annotations

import math
import os
import sqlite3
import subprocess
import sys
import types
from collections import deque
from pathlib import Path

import pytest
from support import TELEGRAM

from sudokubench.backend import Status
from sudokubench.grid import Grid, is_solution
from sudokubench.harness.pool import LocalPool, Task
from sudokubench.harness.pool import handle as handle_module
from sudokubench.harness.pool import local as local_module
from sudokubench.harness.pool.handle import WorkerHandle
from sudokubench.harness.pool.wire import ProtocolError, decode

SHIDOKU = ["4.....4....3.2..", "4..3.2..2.4.....", ".2....2....34..."]
SIX = ["..4....2....1...3......2.....6.53.1.", "...3...1..4....5...236..2....6.3...."]


def shape_tasks(backend: str, timeout: float) -> list[Task]:
    """Two puzzles of each shape, the shapes in turn (4x4, 9x9, 6x6, 4x4, 9x9, 6x6)."""
    puzzles = [SHIDOKU[0], TELEGRAM, SIX[0], SHIDOKU[1], TELEGRAM, SIX[1]]
    return [Task(i, f"p:{i}", p, None, backend, 1, timeout, 0) for i, p in enumerate(puzzles)]


def test_the_parents_clock_while_a_worker_loads_a_shape() -> None:
    """("load", id) of the task at the head: its deadline is the load limit, and a kill then
    is a failed load; ("ready", id) after it starts the task's own clock (timeout + grace). A
    load of another task than the head is a protocol error; a plug-in's lane sends the two
    as JSON lines."""
    worker = WorkerHandle.__new__(WorkerHandle)
    worker.running = types.SimpleNamespace(value=-1)
    worker.tasks = deque(shape_tasks("native", 0.3)[:2])
    worker.loaded, worker.warm_up = {"native"}, False
    worker.deadline, worker.started, worker._readies, worker._mark = math.inf, 0.0, (-1, 0), None
    worker.loading(0, 100.0)
    assert worker.deadline == 100.0 + handle_module.LOAD_TIMEOUT
    assert "native" not in worker.loaded
    worker.ready(0, 130.0, lambda timeout: 0.5)
    assert worker.deadline == pytest.approx(130.8) and "native" in worker.loaded
    with pytest.raises(ProtocolError):
        worker.loading(1, 131.0)
    assert decode(b'["load", 7]\n') == ("load", 7)
    with pytest.raises(ProtocolError):
        decode(b'["load", "7"]\n')


def test_a_shapes_load_is_outside_the_tasks_timeout() -> None:
    """Each shape's load (1.5 s) is more than a task's timeout and grace (0.3 + 0.53 s): the
    worker loads it before the task's clock starts, so every task solves, checked (without
    that, each shape's first task loaded in its timed call and was killed at its deadline)."""
    tasks = shape_tasks("fake_backends:LoadsShapes", 0.3)
    with LocalPool(jobs=1, warm_up=False) as pool:
        outcomes = sorted(pool.run(tasks), key=lambda o: o.task.task_id)
    assert [o.task.task_id for o in outcomes] == list(range(len(tasks)))
    for outcome in outcomes:
        assert outcome.status == Status.SOLVED, outcome
        puzzle = Grid.parse(outcome.task.puzzle)
        assert outcome.checked and outcome.problem is None, outcome
        assert is_solution(Grid.parse(outcome.solutions[0], puzzle.shape), puzzle)


def test_a_shapes_load_past_the_load_limit_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A load of a shape that never ends is stopped at the backend's load limit (here 2 s):
    that task's ERROR says the backend did not load, the worker is replaced, and the tasks of
    the other shapes solve."""
    monkeypatch.setattr(handle_module, "LOAD_TIMEOUT", 2.0)
    monkeypatch.setattr(local_module, "LOAD_TIMEOUT", 2.0)
    tasks = shape_tasks("fake_backends:HangsLoading6x6", 0.3)
    with LocalPool(jobs=1, warm_up=False) as pool:
        outcomes = sorted(pool.run(tasks), key=lambda o: o.task.task_id)
    statuses = [o.status for o in outcomes]
    assert statuses == [Status.SOLVED, Status.SOLVED, Status.ERROR] * 2, outcomes
    for outcome in outcomes[2::3]:
        assert "did not load within 2 s" in outcome.message, outcome


def tasks_of(db: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as con:
        return con.execute(
            "SELECT puzzle_id, status, message FROM tasks ORDER BY task_id"
        ).fetchall()


@pytest.mark.slow
def test_native_on_mixed_shapes_with_a_fresh_cache_has_no_load_timeouts(tmp_path: Path) -> None:
    """The failure that once kept numba in the fork server: `compare` of 4x4, 9x9 and 6x6
    puzzles with `native` and a timeout of 50 ms (a task killed at 0.505 s, less than numba's
    import and set-up in a busy worker), on a fresh numba cache (the command compiles it
    first), then again on that cache (the fork server loads the 9x9 kernel's kept machine
    code without numba, and each worker loads numba's general kernel before its first 4x4 or
    6x6 task, outside that task's timeout): every task solves and checks out, both times."""
    puzzles = tmp_path / "mixed.txt"
    lines = [*SHIDOKU, TELEGRAM, *SIX, TELEGRAM, SHIDOKU[0], SIX[0]]
    puzzles.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    for run in ("fresh", "cached"):
        db = tmp_path / f"{run}.sqlite"
        command = [sys.executable, "-m", "sudokubench", "compare", str(puzzles), "-b", "native"]
        options = ["--jobs", "2", "--timeout", "0.05", "-q", "--db", str(db)]
        done = subprocess.run(
            [*command, *options], capture_output=True, text=True, env=env, timeout=1800
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert list((tmp_path / "numba").rglob("*.nbi")), "compiled into the fresh cache"
        rows = tasks_of(db)
        assert len(rows) == len(lines)
        assert all(status == "solved" for _, status, _ in rows), (run, rows)
