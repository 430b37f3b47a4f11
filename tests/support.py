"""Shared test data and helpers, imported by the test modules (fixtures live in conftest.py).

The one place for the puzzles the tests use by name and for the pattern formula of a valid
complete grid of any shape, so no test module imports another.
"""

from __future__ import annotations

import gc
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sudokubench.formats import PuzzleRecord, collection_path, read_puzzles
from sudokubench.grid import Grid, Shape

#: A 9x9 puzzle with one solution, `TELEGRAM_SOLUTION`.
TELEGRAM = "8.9.....7...5.9....35.7.89..2.7.8.1.7.......2.6.1.547..9785423....9.67..5.......6"
TELEGRAM_SOLUTION = (
    "819342567476589123235671894924768315751493682368125479697854231142936758583217946"
)
#: A 9x9 puzzle with exactly 28 solutions.
MULTIPLE = "8.9.....7.76.89....3..7.89..2.7.8.1.7.......2.6.12.47.6978.4231...9.67.......79.6"


def pattern_cells(shape: Shape) -> list[int]:
    """The cells of a valid complete grid: row r is 1..N shifted by
    box_cols * (r % box_rows) + r // box_rows."""
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    return [(bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n)]


def pattern_solution(shape: Shape) -> Grid:
    """A complete valid grid of any shape (the classic shifted-rows pattern)."""
    return Grid(shape, tuple(pattern_cells(shape)))


def collection(name: str, count: int | None = None, step: int = 1) -> list[PuzzleRecord]:
    """The first `count` puzzles (every `step`-th) of a shipped collection."""
    records = read_puzzles(collection_path(name), label=name)  # ids as the CLI prints them
    return list(itertools.islice(records, 0, None if count is None else count * step, step))


#: This folder: on PYTHONPATH for the commands the tests run, so workers import the fakes.
TESTS = Path(__file__).resolve().parent


def cli(
    *args: str, cwd: Path | None = None, timeout: float = 180, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """`sudokubench ARGS` in a fresh process (the module next to this interpreter, never one
    found on PATH), with tests/ importable for the fake and hostile plug-ins; `stdin` its
    input when given."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "sudokubench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
        input=stdin,
    )


def with_ctrl_c() -> None:
    """A child's `preexec_fn`: Ctrl-C (SIGINT) does what it does to a terminal's foreground
    job, whatever this process inherited. A shell starts a job put in the background with `&`
    (a CI script, `nohup`) with SIGINT ignored; its children inherit that, Python then keeps
    it, and a test's SIGINT to the command it started was lost (it ran to its end, exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stored(db: Path) -> int:
    """Task rows committed so far (0 before the file or its tables exist)."""
    if not db.exists():
        return 0
    with sqlite3.connect(db, timeout=30) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def quiet_runs(db: Path | str) -> None:
    """Make every stored run read as taken on a quiet machine (no load at its start or end,
    no task that waited for a CPU), so a test of `report --fail-slower` judges its times
    alone, however loaded the machine that runs the test is."""
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE runs SET machine = json_set(machine, '$.noise.load_start', 0.0, "
            "'$.noise.load_end', 1.0)"
        )
        conn.execute("UPDATE tasks SET stats = json_set(stats, '$.cpu_wait_s', 0.0)")


# -- time bounds that load cannot break ------------------------------------------------------------

#: Wall-clock seconds that only a real hang reaches (a process never started or never ended, a
#: deadline slept through), however loaded or slow the machine that runs the test: every wait
#: of a test polls for its condition this long. How prompt a deadline was is measured in CPU
#: time (`Stopwatch.within`) or by what the product records (a timeout's message, its lower
#: bound), never by a wall-clock bound: other programs stretch every wall-clock interval of a
#: test, and the load average that could scale one lags a load that started within its minute.
HANG_S = 60.0


def wait_for(condition: Callable[[], object], what: str, seconds: float = HANG_S) -> None:
    """Poll `condition` until it holds; fail saying `what` did not happen within `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {seconds:g} s"
        time.sleep(0.02)


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process, and of the children it has waited for."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


class Stopwatch:
    """Wall and CPU seconds of a `with` block, for bounds that hold on a busy machine.

    `within(seconds)` asserts that the block used at most `seconds` of CPU (a search that
    ignores its deadline keeps computing, whatever the load; on a busy machine it computes
    less before a wall-clock deadline, never more) and at most `HANG_S` of wall clock (a
    sleep through a deadline, a wait for a process that never ends). A test of a deadline
    that a sleeper would miss checks what the product says about it besides (the status and
    message of the timeout, the wall time it records at least the deadline).
    """

    def __enter__(self) -> Stopwatch:
        self.wall = self.cpu = self.own = self.children = 0.0
        # The test process's own objects (thousands of tests' worth) are kept out of any
        # garbage collection the block triggers: a collection of them, started by the
        # block's allocations, is the test run's cost, not the code's under test (a 0.3 s
        # timeout measured 0.87 s of CPU with three million young objects around it, 0.34
        # s with them frozen). The block's own objects are collected as ever.
        gc.freeze()
        self._start = (time.perf_counter(), *_cpu())
        return self

    def __exit__(self, *exc: object) -> None:
        wall, own, children = self._start
        now_own, now_children = _cpu()
        gc.unfreeze()
        self.wall = time.perf_counter() - wall
        self.own, self.children = now_own - own, now_children - children
        self.cpu = self.own + self.children

    def within(self, seconds: float, *, cpu: float | None = None) -> None:
        """Assert the bounds (`cpu` replaces `seconds` for the CPU bound when given)."""
        cpu_bound = seconds if cpu is None else cpu
        assert self.cpu <= cpu_bound, f"used {self.cpu:.2f} s of CPU (bound {cpu_bound:g} s)"
        assert self.wall <= HANG_S, f"took {self.wall:.2f} s: a hang (bound {HANG_S:g} s)"


class Counting:
    """An executor (a `LocalPool`, a `DaskExecutor`) whose `run_columns` counts what it hands
    back: the batches as columns (`Batch`) and the lists of outcomes."""

    def __init__(self, executor) -> None:
        self.executor = executor
        self.batches = 0
        self.lists = 0

    def prepare(self, backends):
        return self.executor.prepare(backends)

    def run_batches(self, tasks):
        return self.executor.run_batches(tasks)

    def run_columns(self, tasks):
        from sudokubench.harness.pool.batch import Batch

        for item in self.executor.run_columns(tasks):
            if type(item) is Batch:
                self.batches += 1
            else:
                self.lists += 1
            yield item

    def close(self) -> None:
        self.executor.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def odd_outcomes(planned: list) -> list:
    """Sound outcomes of a real pool, with an error, a timeout, an answer after the limit and a
    wrong answer among them."""
    from sudokubench.backend import Status
    from sudokubench.harness.pool import LocalPool, failed

    with LocalPool(jobs=1) as pool:
        outcomes = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    assert all(o.texts for o in outcomes)
    outcomes[1] = failed(planned[1], Status.ERROR, "why", 0.25)
    outcomes[2] = failed(planned[2], Status.TIMEOUT, "killed", 11.0)
    outcomes[3] = outcomes[3]._replace(wall_s=12.5, texts=None)
    wrong = outcomes[4].solutions[0].replace("1", "x", 1)
    outcomes[4] = outcomes[4]._replace(solutions=(wrong,), problem="not a solution", texts=None)
    return outcomes


#: A task row's columns that differ from one run to the next: its times and memory.
TASK_TIMES = ("encode_s", "solve_s", "wall_s", "peak_memory_bytes")
#: The stats keys that are times.
TIMED_STATS = ("cpu_s", "cpu_wait_s")


def stored_tasks(db: Path, run_id: int | None = None) -> list[dict]:
    """Every task row of the run (of the file's only run without `run_id`), by task id, without
    its times (the stats' too: each checked to be a float, as both paths measure them)."""
    import json

    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    where, values = ("WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
    rows = []
    for row in con.execute(f"SELECT * FROM tasks {where} ORDER BY task_id", values):
        kept = {k: row[k] for k in row.keys() if k not in (*TASK_TIMES, "run_id")}  # noqa: SIM118
        stats = json.loads(kept["stats"])
        for key in TIMED_STATS:
            assert type(stats.pop(key)) is float
        kept["stats"] = stats
        rows.append(kept)
    con.close()
    return rows
