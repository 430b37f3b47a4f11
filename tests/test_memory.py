"""Memory flat in the number of tasks: the plan and the pool take tasks lazily, a report writes
what is per task as it reads it back, and the parent of `compare` (a real process) peaks at
about the same RSS on a run four times larger, and whether its errors have one message or a
different one each."""

from __future__ import annotations

import io
import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TESTS

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.plan import plan
from sudokubench.harness.pool import DEFAULT_BATCH_SIZE, LocalPool, Task
from sudokubench.harness.pool.handle import SEND_BUFFER, WRITE_BYTES, tasks_pickle
from sudokubench.harness.pool.local import WINDOW
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.report.render import render, write_json
from sudokubench.harness.report.tally import KEPT_MESSAGES
from sudokubench.harness.report.tasks import render_tasks, task_rows
from sudokubench.output import finite_json


def relabelled(count: int) -> Iterator[str]:
    """`count` different valid puzzles: 17clue's, each later round with its digits relabelled."""
    base = [str(r.puzzle) for r in read_puzzles(collection_path("17clue"))]
    for k in itertools.count():
        digits = list("123456789")
        random.Random(k).shuffle(digits)
        table = str.maketrans("123456789", "".join(digits) if k else "123456789")
        for line in base:
            if count == 0:
                return
            yield line.translate(table)
            count -= 1


def test_the_plan_is_made_as_it_is_taken() -> None:
    args = CompareArgs(files=("x",), backends=("fast", "dlx"), repeat=2, warmup=1)

    def endless() -> Iterator[PuzzleRow]:
        for i in itertools.count():
            yield PuzzleRow(f"x:{i}", i, "x", TELEGRAM)

    tasks = list(itertools.islice(plan(args, endless()), 13))
    assert [t.task_id for t in tasks] == list(range(13))
    assert [(t.puzzle_id, t.backend, t.sample) for t in tasks[:7]] == [
        ("x:0", "fast", -1), ("x:0", "fast", 0), ("x:0", "fast", 1),
        ("x:0", "dlx", -1), ("x:0", "dlx", 0), ("x:0", "dlx", 1),
        ("x:1", "fast", -1),
    ]  # fmt: skip


def test_the_local_pool_takes_tasks_a_window_at_a_time() -> None:
    taken = 0

    def endless() -> Iterator[Task]:
        nonlocal taken
        for i in itertools.count():
            taken += 1
            yield Task(i, f"p:{i}", TELEGRAM, None, "fast", 2, 10.0, 0)

    with LocalPool(jobs=1, preload=("fast",)) as pool:
        outcomes = pool.run(endless())
        first = [next(outcomes) for _ in range(300)]
        outcomes.close()
    assert [o.task.task_id for o in first] == list(range(300))
    assert all(o.count == 1 and o.solutions[0] for o in first)
    # The window, the batches in flight and those read at the last look (at most as many), and
    # never the whole (endless) plan. A fast worker gets batches beyond two while they last
    # less than `ahead_for`'s seconds at its pace, so the rule that bounds them on any machine
    # is the bytes': a worker's batches in flight within its connection's room (`send_room`,
    # at most `SEND_BUFFER`), each batch counted `WRITE_BYTES` more than its pickle.
    batch = [tuple(Task(i, f"p:{i}", TELEGRAM, None, "fast", 2, 10.0, 0)) for i in range(128)]
    flying = (SEND_BUFFER // (len(tasks_pickle(batch)) + WRITE_BYTES) + 1) * DEFAULT_BATCH_SIZE
    assert 300 < taken <= 300 + WINDOW + 2 * flying


def test_tasks_put_back_after_a_crash_do_not_stop_the_window(monkeypatch) -> None:
    # A dead worker's tasks in flight go back to the queue, over the window: the pool must
    # still take every task after them (it once took that for the end of the plan).
    from sudokubench.harness.pool import local

    monkeypatch.setattr(local, "WINDOW", 4)
    four = "1.3..2.4...3.4.1"  # a 4x4 puzzle: the plug-in's worker dies on it
    puzzles = [TELEGRAM] * 3 + [four] + [TELEGRAM] * 56
    tasks = [
        Task(i, f"p:{i}", p, None, "fake_backends:DieOn4x4", 1, 10.0, 0)
        for i, p in enumerate(puzzles)
    ]
    with LocalPool(jobs=1, batch_size=4, warm_up=False) as pool:  # a window of 16 tasks
        outcomes = list(pool.run(iter(tasks)))
    assert sorted(o.task.task_id for o in outcomes) == list(range(len(tasks)))
    died = [o for o in outcomes if o.task.task_id == 3]
    assert died[0].status == "error" and "worker died" in died[0].message
    assert all(o.count == 1 for o in outcomes if o.task.task_id != 3)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("small")
    puzzles = folder / "p.txt"
    puzzles.write_text(f"{TELEGRAM}\n{MULTIPLE}\n", encoding="utf-8")
    with LocalPool(jobs=1, preload=("fast", "dlx")) as pool:
        return compare(
            CompareArgs(files=(str(puzzles),), backends=("fast", "dlx"), repeat=2, warmup=1),
            db=folder / "r.sqlite",
            executor=pool,
        )


def test_streamed_json_is_the_text_of_the_whole(small_run) -> None:
    whole = finite_json(small_run.to_json())
    assert len(whole["results"]) == 2 * 2 * 3
    assert render(small_run, "json") == json.dumps(whole, indent=2, allow_nan=False)
    one_line = io.StringIO()
    write_json(small_run, one_line, indent=None)
    assert one_line.getvalue() == json.dumps(whole, allow_nan=False)
    rows = list(task_rows(small_run))
    assert render_tasks(small_run, "json") == json.dumps(finite_json(rows), indent=1)
    assert [r["consensus"] for r in rows] == ["=1"] * 6 + [">=2"] * 6


def test_report_views_read_back_what_the_run_stored(small_run) -> None:
    assert len(small_run.tasks) == 12 and len(small_run.puzzles) == 2
    assert [t.task_id for t in small_run.tasks] == list(range(12))
    source = min(small_run.verdicts).rsplit(":", 1)[0]  # the file as it was given
    assert source.endswith("p.txt")
    assert {pid: v.consensus for pid, v in small_run.verdicts.items()} == {
        f"{source}:1": "=1",
        f"{source}:2": ">=2",
    }
    assert [len(p.times) for p in small_run.pairs["fast"]] == [2, 2]
    assert small_run.collection_of == {f"{source}:1": "p", f"{source}:2": "p"}


#: Run in a subprocess: `sudokubench ARGS` in-process, then its own peak RSS (kB) on stdout:
#: VmHWM, the high-water mark of this program's memory (`ru_maxrss` would also count pytest's,
#: which Linux keeps across the exec of a child).
_MEASURED = """
import contextlib, os, sys
from sudokubench.cli import main
code = 0
with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
    try:
        main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
sys.exit(code)
"""


def peak_mb(*args: str, code: int = 0) -> float:
    """The peak RSS of the process running `sudokubench ARGS` (its workers apart), in MB; the
    command must exit with `code`."""
    env = dict(os.environ)  # (tests/ importable: the plug-ins of hostile_plugins.py)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=TESTS,
        env=env,
    )
    assert done.returncode == code, done.stderr
    return int(done.stdout.split()[-1]) / 1024


@pytest.mark.slow  # two runs of 20,000 and 50,000 tasks (about 40 s on 2 cores)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_the_parent_memory_is_flat_in_the_number_of_tasks(tmp_path: Path) -> None:
    peaks, reports = [], []
    for n in (20_000, 50_000):  # both past the first chunk planned while reading (16,384)
        puzzles = tmp_path / f"p{n}.txt"
        with puzzles.open("w", encoding="utf-8") as out:
            out.writelines(f"{p}\n" for p in relabelled(n))
        db = tmp_path / f"r{n}.sqlite"
        peaks.append(peak_mb("compare", str(puzzles), "-b", "fast", "--jobs", "2", "--db", str(db)))
        reports.append(peak_mb("report", "--db", str(db), "--format", "json", "-o", str(db) + ".j"))
        data = json.loads(Path(str(db) + ".j").read_text(encoding="utf-8"))
        assert data["summary"]["fast"]["solved"] == n and len(data["results"]) == n
    # A run that kept every row grew by about 2 kB a task (65 MB from 20,000 to 50,000).
    assert peaks[0] > 20 and peaks[1] - peaks[0] < 15, peaks
    assert reports[1] - reports[0] < 15, reports


@pytest.mark.slow  # two runs of 12,000 failing tasks of a plug-in (about 20 s on 2 cores)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_distinct_error_messages_keep_the_parent_flat(tmp_path: Path) -> None:
    """A plug-in whose every task fails with a message of its own (1,000 characters) costs
    `compare` and `report` no more memory than one failing with the same message each time:
    every message is stored, the report keeps the first `KEPT_MESSAGES` texts and counts the
    rest."""
    n = 12_000
    puzzles = tmp_path / "p.txt"
    with puzzles.open("w", encoding="utf-8") as out:
        out.writelines(f"{p}\n" for p in relabelled(n))
    runs, reports, failures, stored = {}, {}, {}, {}
    for name in ("Repeater", "Babbler"):
        backend = f"hostile_plugins:{name}"
        db = tmp_path / f"{name}.sqlite"
        runs[name] = peak_mb("compare", str(puzzles), "-b", backend, "--db", str(db), code=3)
        out = tmp_path / f"{name}.json"
        reports[name] = peak_mb("report", "--db", str(db), "--json", "-o", str(out), code=3)
        failures[name] = json.loads(out.read_text(encoding="utf-8"))["failures"][backend]
        with sqlite3.connect(db) as conn:
            query = "SELECT count(DISTINCT message) FROM tasks"
            stored[name] = conn.execute(query).fetchone()[0]
    # Keeping every text cost compare 12 MB more here and report 48 MB (load 4, 2 cores).
    assert runs["Babbler"] - runs["Repeater"] < 3, runs
    assert reports["Babbler"] - reports["Repeater"] < 3, reports
    repeated, babbled = failures["Repeater"], failures["Babbler"]
    assert repeated["errors"] == babbled["errors"] == n
    assert stored["Repeater"] == len(repeated["messages"]) == 1 and repeated["unlisted"] == 0
    assert stored["Babbler"] == n  # every message is stored
    assert len(babbled["messages"]) == KEPT_MESSAGES
    assert {m["count"] for m in babbled["messages"]} == {1}
    assert babbled["unlisted"] == n - KEPT_MESSAGES
