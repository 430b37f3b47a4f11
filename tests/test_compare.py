"""`compare` end to end: real worker processes, misbehaving backends, kill -9 and --resume.

The misbehaving backends are `tests/fake_backends.py`; CLI subprocesses get tests/ on their
PYTHONPATH so their workers can import them. Inputs are a few puzzles and timeouts are short.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from fake_backends import HELD_FREE
from support import HANG_S, MULTIPLE, TELEGRAM, Stopwatch, cli, stored, with_ctrl_c

from sudokubench.errors import InputError
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool.task import one_by_one
from sudokubench.harness.report import build_report
from sudokubench.harness.store import Store

TESTS = Path(__file__).resolve().parent
EASY = [  # from easy50, each with exactly one solution
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
    "48...69.2..2..8..19..37..6.84..1.2....37.41....1.6..49.2..85..77..9..6..6.92...18",
]
SHIDOKU_UNSAT = ".2.....42......3"


@pytest.fixture(autouse=True)
def _from_the_puzzles_folder(tmp_path, monkeypatch):
    """Run from the folder of the puzzle files: their ids are their paths from there
    (`p.txt:1`), as a user who gives `p.txt` sees them."""
    monkeypatch.chdir(tmp_path)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def popen(*args: str) -> subprocess.Popen[str]:
    """Start `sudokubench ARGS` in its own process group (so kill reaches its workers)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "sudokubench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=with_ctrl_c,  # (its SIGINT handled, even where this one's is ignored)
    )


def wait_for_rows(db: Path, n: int, proc: subprocess.Popen[str], limit: float = HANG_S) -> None:
    start = time.monotonic()
    while stored(db) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - start < limit, "no progress"
        time.sleep(0.05)


def answers(db: Path, run_id: int) -> list[tuple]:
    """Every stored answer of a run, without timings."""
    with Store(db, create=False) as store:
        return [
            (t.task_id, t.puzzle_id, t.backend, t.sample, t.status, t.count, t.solutions, t.verdict)
            for t in store.tasks(run_id)
        ]


# -- the Python API, real workers ---------------------------------------------------------------


def test_honest_backends_agree_and_every_answer_is_stored(tmp_path):
    puzzles = write(tmp_path / "p.txt", [f"{TELEGRAM}:1", f"{MULTIPLE}:28", SHIDOKU_UNSAT, *EASY])
    args = CompareArgs(files=(str(puzzles),), backends=("fast", "backtracking"), timeout=10)
    report = compare(args, db=tmp_path / "r.sqlite")
    assert report.ok and report.run.status == "complete"
    assert len(report.tasks) == 5 * 2
    consensus = {pid: v.consensus for pid, v in report.verdicts.items()}
    assert consensus == {
        "p.txt:1": "=1",
        "p.txt:2": "=28",  # limit 2 says >=2, the file's exact count fills it in
        "p.txt:3": "0",
        "p.txt:4": "=1",
        "p.txt:5": "=1",
    }
    fast = report.summary[0]
    assert (fast.solved, fast.unsatisfiable, fast.timeout, fast.error) == (4, 1, 0, 0)
    assert all(t.wall_s > 0 for t in report.tasks)


class Unchecked:
    """An executor of another kind (not a LocalPool) whose outcomes come without the workers'
    check: the backend's answers as returned, so compare must check them itself."""

    def __init__(self) -> None:
        from sudokubench.harness.pool import LocalPool

        self.pool = LocalPool(jobs=1)

    def prepare(self, backends):
        return self.pool.prepare(backends)

    def run(self, tasks):
        for outcome in self.pool.run(tasks):
            yield outcome._replace(checked=False, verdict="?", problem=None)

    def run_batches(self, tasks):
        return one_by_one(self.run(tasks))

    def close(self) -> None:
        self.pool.close()


def test_answers_are_checked_in_the_workers_and_else_by_compare(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, f"{MULTIPLE}:28"])
    backends = ("fast", "fake_backends:WrongSolution", "fake_backends:WrongCount")
    args = CompareArgs(files=(str(puzzles),), backends=backends, timeout=10)
    found = []
    for executor in (None, Unchecked()):
        report = compare(args, db=tmp_path / "r.sqlite", executor=executor)
        rows = {(t.puzzle_id, t.backend): (t.verdict, t.valid, t.problem) for t in report.tasks}
        assert rows[("p.txt:1", "fast")] == ("=1", True, None)
        assert rows[("p.txt:2", "fast")] == (">=2", True, None)
        verdict, valid, problem = rows[("p.txt:1", "fake_backends:WrongSolution")]
        assert verdict == ">=1"  # what it claims
        assert not valid and problem.startswith("solution 1 is wrong: ")
        assert rows[("p.txt:1", "fake_backends:WrongCount")] == ("0", True, None)  # sound alone
        assert {pid for pid, v in report.verdicts.items() if not v.agreed} == {"p.txt:1", "p.txt:2"}
        assert report.verdicts["p.txt:1"].blamed == {
            "fake_backends:WrongSolution",
            "fake_backends:WrongCount",  # says 0 where a verified solution exists
        }
        found.append(rows)
    assert found[0] == found[1]  # the same checks wherever they are made


def test_compare_leaves_an_executor_it_was_given_open(tmp_path):
    from sudokubench.harness.pool import LocalPool

    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    args = CompareArgs(files=(str(puzzles),), backends=("fast",), timeout=10)
    with LocalPool(jobs=1) as pool:
        first = compare(args, db=tmp_path / "a.sqlite", executor=pool)
        second = compare(args, db=tmp_path / "b.sqlite", executor=pool)  # the same workers
        assert pool.started_workers == 1
    assert first.ok and second.ok
    assert [t.solutions for t in first.tasks] == [t.solutions for t in second.tasks]


def test_the_garbage_collector_runs_rarely_during_a_run_and_as_before_after_it(tmp_path):
    import gc

    before = gc.get_threshold()
    seen = []
    args = CompareArgs(files=(str(write(tmp_path / "p.txt", EASY)),), backends=("fast",))
    compare(args, db=tmp_path / "r.sqlite", progress=lambda _: seen.append(gc.get_threshold()))
    assert seen and all(t[0] >= 70_000 for t in seen)
    assert gc.get_threshold() == before
    with pytest.raises(ValueError):  # a failed run puts them back too
        compare(
            replace(args, files=(str(write(tmp_path / "bad.txt", ["12x4"])),)),
            db=tmp_path / "r.sqlite",
        )
    assert gc.get_threshold() == before


def test_warmups_and_repeats_are_stored_apart(tmp_path):
    import sudokubench

    puzzles = write(tmp_path / "p.txt", EASY)
    args = sudokubench.CompareArgs(files=(str(puzzles),), backends=("fast",), warmup=1, repeat=3)
    report = sudokubench.compare(args, db=tmp_path / "r.sqlite")
    samples = sorted(t.sample for t in report.tasks if t.puzzle_id == "p.txt:1")
    assert samples == [-1, 0, 1, 2]
    assert [len(p.times) for p in report.pairs["fast"]] == [3, 3]


def test_a_backend_that_sleeps_forever_times_out_and_the_run_goes_on(tmp_path):
    puzzles = write(tmp_path / "p.txt", EASY)
    args = CompareArgs(
        files=(str(puzzles),), backends=("fake_backends:SleepForever", "fast"), timeout=0.5
    )
    with Stopwatch() as watch:
        report = compare(args, db=tmp_path / "r.sqlite")
    sleepy = [t for t in report.tasks if t.backend == "fake_backends:SleepForever"]
    assert [t.status for t in sleepy] == ["timeout", "timeout"]
    # killed at its own deadline (timeout + grace), which the message names; how late after
    # it depends on the machine's load, so no wall-clock bound but a hang's
    assert all(0.5 <= t.wall_s < HANG_S for t in sleepy), [t.wall_s for t in sleepy]
    assert all(t.message.endswith("(timeout 0.5 s)") for t in sleepy), [t.message for t in sleepy]
    watch.within(20)
    assert report.ok  # a timeout is a result, not a disagreement
    assert [t.status for t in report.tasks if t.backend == "fast"] == ["solved", "solved"]


def test_a_backend_that_kills_its_process_is_an_error_and_the_run_goes_on(tmp_path):
    puzzles = write(tmp_path / "p.txt", EASY)
    args = CompareArgs(files=(str(puzzles),), backends=("fake_backends:KillSelf", "fast"))
    report = compare(args, db=tmp_path / "r.sqlite")
    killed = [t for t in report.tasks if t.backend == "fake_backends:KillSelf"]
    assert [t.status for t in killed] == ["error", "error"]
    assert all(t.message for t in killed)
    assert [t.status for t in report.tasks if t.backend == "fast"] == ["solved", "solved"]
    assert report.summary[0].error == 2


# -- the command line ------------------------------------------------------------------------


def test_a_wrong_solution_is_flagged_and_exits_1(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    db = tmp_path / "r.sqlite"
    done = cli("compare", str(puzzles), "-b", "fast,fake_backends:WrongSolution", "--db", str(db))
    assert done.returncode == 1, done.stderr
    assert "WRONG p.txt:1: fake_backends:WrongSolution: solution 1 is wrong" in done.stdout
    with Store(db, create=False) as store:
        flags = {t.backend: t.valid for t in store.tasks(1)}
    assert flags == {"fast": True, "fake_backends:WrongSolution": False}


def test_a_wrong_count_is_flagged_with_both_sides_and_exits_1(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, EASY[0]])
    db = tmp_path / "r.sqlite"
    done = cli(
        "compare", str(puzzles), "-b", "fast,fake_backends:WrongCount", "-j", "2",
        "--db", str(db), "--json",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "--jobs 2: timings share the CPU" in done.stderr
    data = json.loads(done.stdout)
    # compare's report and report's (read back from the database) are the same
    again = cli("report", "--db", str(db), "--format", "json")
    assert again.returncode == 1 and json.loads(again.stdout) == data
    assert data["ok"] is False
    assert [d["puzzle_id"] for d in data["disagreements"]] == ["p.txt:1", "p.txt:2"]
    assert data["disagreements"][0]["sides"] == {"0": ["fake_backends:WrongCount"], "=1": ["fast"]}
    assert data["summary"]["fake_backends:WrongCount"]["wrong"] == 2
    assert data["summary"]["fast"]["wrong"] == 0


def test_an_annotated_count_that_a_backend_contradicts_is_flagged(tmp_path):
    puzzles = write(tmp_path / "p.txt", [f"{TELEGRAM}:2", f"{EASY[0]}:1"])
    done = cli("compare", str(puzzles), "-b", "fast", "--db", str(tmp_path / "r.sqlite"))
    assert done.returncode == 1
    assert "DISAGREE p.txt:1: =1 (fast) vs =2 (expected)" in done.stdout
    assert "p.txt:2" not in done.stdout.split("DISAGREE p.txt:1")[1]


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "{p}", "-b", "nosuchbackend"),
        ("compare", "{missing}", "-b", "fast"),
        ("compare", "{p}", "-b", "fast", "--baseline", "dlx"),
        ("compare", "--resume", "1"),
        ("report",),
        ("report", "--format", "pdf"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(tmp_path, capsys, args):
    from sudokubench.cli import main

    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    names = {"p": str(puzzles), "missing": str(tmp_path / "missing.txt")}
    argv = [a.format(**names) for a in args] + ["--db", str(tmp_path / "none.sqlite")]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert err.count("\n") == 1 and err.startswith("sudokubench: error:")
    assert not (tmp_path / "none.sqlite").exists()


def test_kill_9_then_resume_completes_without_duplicates(tmp_path):
    lines = [TELEGRAM, *EASY, SHIDOKU_UNSAT, MULTIPLE] * 2
    puzzles = write(tmp_path / "p.txt", lines)
    args = ["-b", "fake_backends:SlowHonest,fast", "--limit", "2"]
    whole_db, cut_db = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    whole = CompareArgs(files=(str(puzzles),), backends=("fake_backends:SlowHonest", "fast"))
    assert compare(whole, db=whole_db).ok

    proc = popen("compare", str(puzzles), *args, "--db", str(cut_db))
    wait_for_rows(cut_db, 6, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    partial = stored(cut_db)
    assert 6 <= partial < len(lines) * 2
    with Store(cut_db, create=False) as store:
        assert store.run(1).status == "running"

    # (the run names a plug-in, which a resume runs only when told to)
    resumed = cli("compare", "--resume", "1", "--db", str(cut_db), "--json", "--trust-backends")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "complete"
    assert answers(cut_db, 1) == answers(whole_db, 1)
    ids = [row[0] for row in answers(cut_db, 1)]
    assert ids == list(range(len(lines) * 2))


def test_ctrl_c_stops_cleanly_and_prints_the_resume_command(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, *EASY] * 4)
    db = tmp_path / "r.sqlite"
    proc = popen("compare", str(puzzles), "-b", "fake_backends:SlowHonest", "--db", str(db))
    wait_for_rows(db, 2, proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert f"resume with: sudokubench compare --resume 1 --db {db}" in err
    with Store(db, create=False) as store:
        assert store.run(1).status == "interrupted"
        kept = len(store.done_task_ids(1))
    assert 2 <= kept < 12
    resumed = cli("compare", "--resume", "1", "--db", str(db), "-q", "--trust-backends")
    assert resumed.returncode == 0, resumed.stderr
    assert stored(db) == 12


def test_report_reads_a_run_while_it_is_written(tmp_path, monkeypatch):
    assert TELEGRAM == HELD_FREE and TELEGRAM not in EASY
    # 21 tasks: the first five answered at once, the others held while `hold` exists, so the
    # run is still going when it is read, however slow the machine
    puzzles = write(tmp_path / "p.txt", [TELEGRAM] * 5 + [*EASY] * 8)
    db = tmp_path / "r.sqlite"
    hold = tmp_path / "hold"
    hold.touch()
    monkeypatch.setenv("SUDOKUBENCH_TEST_HOLD", str(hold))
    args = ("-b", "fake_backends:Held", "--jobs", "2", "--timeout", "300", "--db", str(db))
    proc = popen("compare", str(puzzles), *args)
    try:
        wait_for_rows(db, 2, proc)
        with Store(db, create=False) as reader:
            assert reader.run(1).status == "running"
            assert 0 < len(build_report(reader, 1).tasks) < 21
        seen = cli("report", "--db", str(db), "--format", "json")
        assert seen.returncode == 3, seen.stderr  # a run still going is not a clean one yet
        data = json.loads(seen.stdout)
        assert data["status"] == "running" and 0 < data["missing"] < 21 and not data["ok"]
        assert all(r["status"] == "solved" for r in data["results"])
    finally:
        hold.unlink()
        proc.wait(timeout=120)
    assert proc.returncode == 0, proc.communicate()
    final = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    assert final["status"] == "complete" and final["missing"] == 0 and len(final["results"]) == 21


def test_the_showcase_runs_when_no_file_is_given(tmp_path):
    db = tmp_path / "r.sqlite"
    done = cli("compare", "-b", "fast,dlx", "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] and data["args"]["timeout"] == 2.0
    assert {"easy", "hard", "multiple", "unsatisfiable", "invalid", "4x4", "16x16"} <= set(
        data["collections"]
    )
    assert data["summary"]["fast"]["unsatisfiable"] == 4
    runs = cli("runs", "--db", str(db))
    assert runs.returncode == 0 and "complete" in runs.stdout and "showcase" in runs.stdout


@pytest.mark.slow
def test_the_showcase_over_every_backend_agrees(tmp_path):
    done = cli("compare", "--db", str(tmp_path / "r.sqlite"), "--json", timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] and len(data["summary"]) >= 5


# -- the start: the first puzzles run while the rest of the input is read and stored --------------


class _Watching:
    """A LocalPool that notes, at the first task it takes, how much of the run is stored, and
    can stop there with a Ctrl-C."""

    def __init__(self, db: Path, interrupt: bool = False) -> None:
        from sudokubench.harness.pool import LocalPool

        self.pool = LocalPool(jobs=1, preload=("fast",))
        self.db = db
        self.interrupt = interrupt
        self.stored_at_first_task: int | None = None
        self.outcomes = 0

    def prepare(self, backends):
        return self.pool.prepare(backends)

    def run(self, tasks):
        def watched():
            for task in tasks:
                if self.stored_at_first_task is None:
                    self.stored_at_first_task = stored_puzzles(self.db)
                    if self.interrupt:
                        raise KeyboardInterrupt
                yield task

        for outcome in self.pool.run(watched()):
            self.outcomes += 1
            yield outcome

    def run_batches(self, tasks):
        return one_by_one(self.run(tasks))

    def close(self):
        self.pool.close()


def stored_puzzles(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:  # (a reader sees only what is committed)
        return conn.execute("SELECT COUNT(*) FROM puzzles").fetchone()[0]


def test_the_first_tasks_run_before_the_input_is_all_stored_and_a_run_is_whole(tmp_path):
    db = tmp_path / "r.sqlite"
    # (20,000 puzzles: the first task is taken within milliseconds, reading them all takes
    # about 0.4 s)
    args = CompareArgs(files=("17clue:1-20000",), backends=("fast",), jobs=1)
    executor = _Watching(db)
    try:
        report = compare(args, db=db, executor=executor)
    finally:
        executor.close()
    assert executor.stored_at_first_task == 0  # solving started while the input was read
    assert report.ok and len(report.tasks) == 20000
    with Store(db, create=False) as store:
        assert store.puzzle_count(1) == 20000
        rows = list(store.tasks(1))
    assert [r.task_id for r in rows] == list(range(20000))  # none lost, none twice
    assert all(r.valid and r.count == 1 for r in rows)


def test_bad_input_found_after_the_first_tasks_ran_stores_nothing(tmp_path):
    # (about a second to read: the worker starts and answers well before the last line)
    lines = [str(r.puzzle) for r in read_puzzles(collection_path("17clue"))]
    puzzles = write(tmp_path / "p.txt", [*lines, TELEGRAM[:80] + "A"])
    db = tmp_path / "r.sqlite"
    executor = _Watching(db)
    args = CompareArgs(files=(str(puzzles),), backends=("fast",), jobs=1)
    try:
        bad = r"p\.txt:49159: column 81 \(r9c9\): unexpected character 'A'"
        with pytest.raises(InputError, match=bad):
            compare(args, db=db, executor=executor)
    finally:
        executor.close()
    assert executor.outcomes >= 1  # tasks ran before the bad line was read, and were dropped
    assert not db.exists()


def test_ctrl_c_while_the_input_is_read_stores_nothing(tmp_path):
    db = tmp_path / "r.sqlite"
    executor = _Watching(db, interrupt=True)
    args = CompareArgs(files=("17clue",), backends=("fast",), jobs=1)
    try:
        with pytest.raises(KeyboardInterrupt):
            compare(args, db=db, executor=executor)
    finally:
        executor.close()
    assert executor.stored_at_first_task == 0  # stopped while the input was read
    assert not db.exists()  # the run had not started: nothing to resume
