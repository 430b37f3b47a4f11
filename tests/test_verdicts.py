"""Verdicts a user can trust, through real processes: a failed task is never a success, and the
exit code says which kind of failure it was (0 clean, 1 wrong, 3 errors; see `verify.exit_code`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import TELEGRAM, cli, quiet_runs

TESTS = Path(__file__).resolve().parent
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    path = tmp_path / "p.txt"
    path.write_text(f"{TELEGRAM}\n{EASY}\n", encoding="utf-8")
    return path


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_a_program_that_fails_is_an_error_not_a_success(tmp_path, puzzles):
    db = str(tmp_path / "r.sqlite")
    done = cli("compare", str(puzzles), "-b", "fast,exec:false", "--db", db, "-q")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "all answers check out" not in done.stdout
    assert "ERRORS exec:false: 2 tasks failed" in done.stdout
    assert "2x program exited (1) without answering" in done.stdout
    verdict = done.stdout.splitlines()[-2]  # the last line says where the run is stored
    assert verdict.startswith("no wrong answer or disagreement on 2 puzzles, but not every")
    assert "2 errors, 0 timeouts (exec:false 2 errors, 0 timeouts)" in verdict
    # the stored run says the same, and --allow-errors accepts it
    again = cli("report", "--db", db)
    assert again.returncode == 3 and last_line(again.stdout) == verdict
    assert cli("report", "--db", db, "--allow-errors").returncode == 0
    data = json.loads(cli("report", "--db", db, "--format", "json").stdout)
    assert data["errors"] == 2 and data["failures"]["exec:false"]["messages"] == [
        {"message": "program exited (1) without answering", "count": 2}
    ]
    assert "fast" not in data["failures"]


def test_a_plugin_that_raises_names_its_error_and_allow_errors_exits_0(tmp_path, puzzles):
    db = str(tmp_path / "r.sqlite")
    args = ["compare", str(puzzles), "-b", "fast,fake_backends:Crash", "--db", db, "-q"]
    done = cli(*args)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "2x RuntimeError: fake crash inside solve" in done.stdout
    assert cli(*args, "--allow-errors").returncode == 0


def test_a_wrong_answer_beats_errors_with_exit_1(tmp_path, puzzles):
    backends = "fast,fake_backends:Crash,fake_backends:WrongSolution"
    done = cli("compare", str(puzzles), "-b", backends, "--db", str(tmp_path / "r.sqlite"), "-q")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-2].startswith("2 of 2 puzzles have a wrong answer")


def test_count_with_several_backends_follows_the_same_rule(puzzles):
    done = cli("count", str(puzzles), "-b", "fast,fake_backends:Crash")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "(error: RuntimeError: fake crash inside solve)" in done.stdout
    assert "2 answers were errors (fake_backends:Crash 2)" in done.stderr
    assert (
        cli("count", str(puzzles), "-b", "fast,fake_backends:Crash", "--allow-errors").returncode
        == 0
    )
    assert cli("count", str(puzzles), "-b", "fast,dlx").returncode == 0
    wrong = cli("count", str(puzzles), "-b", "fast,fake_backends:WrongCount,fake_backends:Crash")
    assert wrong.returncode == 1


def test_solve_with_a_failing_backend_exits_3_and_says_why():
    done = cli("solve", TELEGRAM, "-b", "fake_backends:Crash")
    assert done.returncode == 3
    assert "backend error: RuntimeError: fake crash inside solve" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_program_whose_every_answer_is_wrong_is_never_faster(tmp_path, puzzles):
    """`cat` echoes the puzzle: every answer is wrong, and quick. It solves nothing, times
    nothing, has no ratio, scores the PAR penalty on every puzzle and draws no curve."""
    from sudokubench.harness.report import build_report
    from sudokubench.harness.report.plots import cactus
    from sudokubench.harness.store import Store

    db = tmp_path / "r.sqlite"
    done = cli("compare", str(puzzles), "-b", "fast,exec:cat", "--db", str(db), "--json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    cat = data["summary"]["exec:cat"]
    assert (cat["solved"], cat["wrong"], cat["timed"], cat["median_s"]) == (0, 2, 0, None)
    assert cat["ratio"] is None and cat["ratio_puzzles"] == 0
    assert cat["par_s"] == pytest.approx(2 * 10.0)
    assert data["virtual_best"]["median_s"] == data["summary"]["fast"]["median_s"]
    with Store(db, create=False) as store:
        report = build_report(store, 1)
    labels = [line.get_label() for line in cactus(report).axes[0].get_lines()]
    curves = [label for label in labels if not label.startswith("_")]  # "_": unlabelled
    assert curves == ["virtual best", "fast (2)"]  # exec:cat draws no curve


@pytest.mark.parametrize(
    ("lie", "why"),
    [
        ("SolvedWithoutSolution", "says solved but returned no solution"),
        ("UnsatisfiableWithoutProof", "says unsatisfiable but its search was not exhaustive"),
        ("CountAboveSolutions", "returned 5 solutions, more than the limit 2"),
        ("ExhaustiveError", "says error but also that its search was exhaustive"),
    ],
)
def test_a_plugin_that_contradicts_itself_is_wrong_never_solved(tmp_path, puzzles, lie, why):
    liar = f"lying_plugins:{lie}"
    done = cli("compare", "p.txt", "-b", f"fast,{liar}", "--db", "r.sqlite", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"WRONG p.txt:1: {liar}: {why}" in done.stdout
    data = json.loads(cli("report", "--db", str(tmp_path / "r.sqlite"), "--format", "json").stdout)
    summary = data["summary"][liar]
    assert (summary["solved"], summary["unsatisfiable"], summary["wrong"]) == (0, 0, 2)
    assert summary["timed"] == 0 and data["ok"] is False


def test_a_run_with_tasks_missing_is_never_ok(tmp_path, puzzles):
    """Rows deleted, a run interrupted or still running: `report` says how many tasks are
    missing and why, JSON `ok` is false, exit 3 (which --allow-errors does not lift)."""
    import sqlite3

    db = tmp_path / "r.sqlite"
    assert cli("compare", str(puzzles), "-b", "fast", "--db", str(db), "-q").returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM tasks WHERE task_id = 1")
    why = {
        "complete": "is complete, but rows were deleted from its database",
        "interrupted": "was interrupted",
        "running": "is still running (or its compare was killed)",
    }
    for status, said in why.items():
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE runs SET status = ?", (status,))
        done = cli("report", "--db", str(db), "--allow-errors")
        assert done.returncode == 3, done.stdout + done.stderr
        assert last_line(done.stdout) == (
            "no wrong answer or disagreement on 1 puzzles, but 1 of 2 tasks are missing: "
            f"run 1 {said}"
        )
        data = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
        assert (data["ok"], data["missing"]) == (False, 1)


# -- strict limits ---------------------------------------------------------------------------


def test_an_answer_after_the_timeout_is_a_timeout_in_stats_and_plots(tmp_path, puzzles):
    """LateHonest answers 0.3 s after a 1.5 s timeout; the worker is killed only at 2.15 s
    (grace 0.5 s + 10%), so the answer comes in, yet it counts as a TIMEOUT everywhere."""
    from sudokubench.harness.pool import default_grace
    from sudokubench.harness.report import build_report
    from sudokubench.harness.report.plots import cactus, scatter
    from sudokubench.harness.store import Store

    assert default_grace(1.5) > 0.3  # the answer (0.3 s late) beats the kill
    db = tmp_path / "r.sqlite"
    late = "fake_backends:LateHonest"
    done = cli(
        "compare", str(puzzles), "-b", f"fast,{late}", "-t", "1.5", "--db", str(db), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # a timeout is an answer, not a failure
    data = json.loads(done.stdout)
    summary = data["summary"][late]
    assert (summary["solved"], summary["timeout"], summary["timed"]) == (0, 2, 0)
    assert summary["median_s"] is None
    assert summary["par_s"] == pytest.approx(2 * 1.5)  # PAR-2: twice the limit per puzzle
    assert data["summary"]["fast"]["solved"] == 2
    best = data["virtual_best"]
    assert (best["solved"], best["timeout"]) == (2, 0)
    assert best["par_s"] == pytest.approx(data["summary"]["fast"]["par_s"])
    with Store(db, create=False) as store:
        rows = [t for t in store.tasks(1) if t.backend == late]
        report = build_report(store, 1)
        report10 = build_report(store, 1, par=10)
    # the raw time and the answer are kept: the worker was not killed
    assert [t.status for t in rows] == ["timeout", "timeout"]
    assert all(1.5 < t.wall_s < 1.5 + default_grace(1.5) for t in rows), [t.wall_s for t in rows]
    assert all(t.message.startswith("answered after") and t.count == 1 for t in rows)
    assert report.summary[1].par_s == pytest.approx(3.0)
    assert report10.summary[1].par_s == pytest.approx(15.0)
    lines = cactus(report).axes[0].get_lines()
    labels = [line.get_label() for line in lines if not line.get_label().startswith("_")]
    assert labels == ["virtual best", "fast (2)"]  # no curve for the late backend
    figure = scatter(report, "fast", late)
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert "one did not finish (drawn at the timeout)" in legend
    assert "both finished" not in legend or figure.axes[0].collections[0].get_offsets().size == 0
    text = cli("report", "--db", str(db), "--par", "10").stdout
    assert "PAR-10" in text and "virtual best" in text


# -- noise -----------------------------------------------------------------------------------


def test_each_workers_first_call_is_an_untimed_warm_up_unless_no_warmup(tmp_path, puzzles):
    slow = "fake_backends:SlowFirstCall"  # its first call in a process takes 1 s more
    for flag, db in (("--quiet", "warm.sqlite"), ("--no-warmup", "cold.sqlite")):
        done = cli("compare", str(puzzles), "-b", slow, "--db", str(tmp_path / db), flag, "--json")
        assert done.returncode == 0, done.stderr
        times = [r["time_s"] for r in json.loads(done.stdout)["results"]]
        if flag == "--quiet":
            assert max(times) < 0.9, times  # the 1 s went into the warm-up
        else:
            assert times[0] >= 1.0 and times[1] < 0.9, times
    clash = cli("compare", str(puzzles), "-b", "fast", "--no-warmup", "--warmup", "2")
    assert clash.returncode == 2 and "exclude each other" in clash.stderr


def test_the_load_warning_compares_the_load_with_the_cores_left_free():
    from sudokubench.harness.noise import load_warning

    assert load_warning(0.9, 2, 1) is None
    assert load_warning(5.5, 2, 1) == (
        "timings unreliable: load 5.5 with 2 cores and --jobs 1: other programs compete with "
        "the workers for the CPU; compare timings only from a quiet machine, or measured side "
        "by side in one run"
    )
    assert load_warning(0.5, 2, 2) is not None  # no core left free
    assert load_warning(None, 2, 1) is None and load_warning(3.0, None, 1) is None


def test_the_run_records_load_cpu_frequency_and_cpu_time(tmp_path, puzzles):
    from sudokubench.harness.store import Store

    db = tmp_path / "r.sqlite"
    done = cli("compare", str(puzzles), "-b", "fast,dlx", "--repeat", "3", "--db", str(db))
    assert done.returncode == 0, done.stderr
    with Store(db, create=False) as store:
        run = store.run(1)
        tasks = list(store.tasks(1))
    noise = run.machine["noise"]
    assert noise["load_start"] >= 0 and noise["load_end"] >= 0
    assert noise["wall_s"] > 0 and noise["parent_cpu_s"] >= 0
    assert all(t.stats["cpu_s"] >= 0 for t in tasks)  # the worker's CPU time in each call
    assert "machine: load " in done.stdout and " solving (" in done.stdout


@pytest.mark.slow
def test_a_high_load_warning_appears_under_synthetic_load(tmp_path, puzzles):
    """Busy processes raise the 1-minute load above the cores left free; then the warning must
    appear with the first outcome (stderr) and in the report. The busy processes are stopped
    after."""
    import time

    cores = os.cpu_count() or 1
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores + 3)]
    try:
        deadline = time.monotonic() + 150
        while os.getloadavg()[0] <= cores and time.monotonic() < deadline:
            time.sleep(2)
        assert os.getloadavg()[0] > cores, "the synthetic load did not show in the load average"
        done = cli("compare", str(puzzles), "-b", "fast", "--db", str(tmp_path / "r.sqlite"))
    finally:
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait()
    assert done.returncode == 0, done.stderr
    assert "warning: timings unreliable: load " in done.stderr
    assert f"with {cores} cores and --jobs 1" in done.stdout


# -- two runs --------------------------------------------------------------------------------


def test_a_run_with_duplicate_puzzles_against_itself_is_1x_for_every_backend(tmp_path):
    path = tmp_path / "dup.txt"  # the same grid on three lines, another one twice
    path.write_text(f"{TELEGRAM}\n{EASY}\n{TELEGRAM}\n{EASY}\n{TELEGRAM}\n", encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    assert cli("compare", str(path), "-b", "fast,dlx", "--db", db, "-q").returncode == 0
    done = cli("report", "1", "--against", "1", "--db", db, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["differences"] == []
    for row in data["backends"]:
        assert row["puzzles"] == 5 and row["ratio_puzzles"] == 5
        assert row["ratio"] == row["ratio_low"] == row["ratio_high"] == pytest.approx(1.0)
    quiet_runs(db)  # (the gate judges only runs taken on a quiet machine)
    gate = cli("report", "1", "--against", "1", "--db", db, "--fail-slower", "0")
    assert gate.returncode == 0 and "1.00x [1.00-1.00] n=5" in gate.stdout


def test_against_states_what_differs_and_pairs_only_the_common_part(tmp_path, puzzles):
    later = tmp_path / "later"
    later.mkdir()
    more = later / puzzles.name  # the same file name: puzzles 1 and 2 are common
    more.write_text(puzzles.read_text() + f"{TELEGRAM}\n", encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    assert cli("compare", str(puzzles), "-b", "fast,dlx", "--db", db, "-q").returncode == 0
    second = cli("compare", str(more), "-b", "fast", "-t", "5", "--repeat", "2", "--db", db, "-q")
    assert second.returncode == 0
    done = cli("report", "2", "--against", "1", "--db", db)
    assert done.returncode == 0, done.stderr
    for line in (
        "run 2 against run 1 (2 puzzles)",
        "warning: the runs differ: puzzles: 2 in common, 0 only in run 1, 1 only in run 2",
        "warning: the runs differ: backends: only in run 1: dlx; only in run 2: -",
        "warning: the runs differ: timeout: 10.0 -> 5.0",
        "warning: the runs differ: repeat: 1 -> 2",
        "warning: only the puzzles and backends both runs have are compared",
    ):
        assert line in done.stdout.splitlines(), done.stdout
    data = json.loads(cli("report", "2", "--against", "1", "--db", db, "-f", "json").stdout)
    assert [(r["backend"], r["puzzles"], r["finished_new"]) for r in data["backends"]] == [
        ("fast", 2, 2)
    ]


def test_against_refuses_runs_with_nothing_in_common(tmp_path, puzzles):
    other = tmp_path / "other.txt"
    other.write_text(f"{TELEGRAM}\n", encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    assert cli("compare", str(puzzles), "-b", "fast", "--db", db, "-q").returncode == 0
    assert cli("compare", str(other), "-b", "fast", "--db", db, "-q").returncode == 0
    done = cli("report", "2", "--against", "1", "--db", db)
    assert done.returncode == 2
    assert done.stderr == (
        "sudokubench: error: runs 1 and 2 have no puzzle in common: nothing to compare\n"
    )


def test_fail_slower_fails_a_run_made_slower_by_a_plugin_that_sleeps(tmp_path, monkeypatch):
    path = tmp_path / "p.txt"
    path.write_text(f"{TELEGRAM}\n{EASY}\n{TELEGRAM}\n{EASY}\n{TELEGRAM}\n", encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    args = ["compare", str(path), "-b", "fake_backends:Sleepy", "--db", db, "-q"]
    assert cli(*args).returncode == 0
    monkeypatch.setenv("SUDOKUBENCH_TEST_SLEEP", "0.2")  # the workers inherit it
    assert cli(*args).returncode == 0
    quiet_runs(db)  # (the gate judges only runs taken on a quiet machine)
    done = cli("report", "2", "--against", "1", "--db", db, "--fail-slower", "10")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "slower than run 1 by more than 10%: fake_backends:Sleepy" in done.stderr
    assert cli("report", "1", "--against", "2", "--db", db, "--fail-slower", "10").returncode == 0
    bad = cli("report", "2", "--db", db, "--fail-slower", "10")
    assert bad.returncode == 2 and "--fail-slower needs --against" in bad.stderr


# -- per-task export -------------------------------------------------------------------------


def test_the_per_task_export_has_one_row_per_task_in_csv_and_json(tmp_path, puzzles):
    import csv
    import io

    db = str(tmp_path / "r.sqlite")
    run = ["compare", str(puzzles), "-b", "fast,fake_backends:Crash", "--db", db, "-q"]
    assert cli(*run, "--warmup", "1", "--repeat", "2").returncode == 3
    rows = json.loads(cli("report", "--db", db, "--format", "json", "--per-task").stdout)
    table = list(
        csv.DictReader(io.StringIO(cli("report", "--db", db, "-f", "csv", "--per-task").stdout))
    )
    assert len(rows) == len(table) == 2 * 2 * 3  # puzzles x backends x (warm-up + 2 samples)
    assert [r["task_id"] for r in rows] == list(range(12))
    assert [int(r["task_id"]) for r in table] == list(range(12))
    assert sorted({r["sample"] for r in rows}) == [-1, 0, 1]
    assert all(r["warm_up"] == (r["sample"] < 0) for r in rows)
    fast = [r for r in rows if r["backend"] == "fast"]
    assert all((r["pair_spread"] is None) == (r["sample"] < 0) for r in fast)
    assert {(r["puzzle_id"], r["status"], r["verdict"], r["consensus"]) for r in fast} == {
        (f"{puzzles}:1", "solved", "=1", "=1"),  # a file outside the working directory: its path
        (f"{puzzles}:2", "solved", "=1", "=1"),
    }
    crashed = [r for r in table if r["backend"] == "fake_backends:Crash"]
    assert {(r["status"], r["message"]) for r in crashed} == {
        ("error", "RuntimeError: fake crash inside solve")
    }
    assert all(json.loads(r["stats"]) == row["stats"] for r, row in zip(table, rows, strict=True))
    bad = cli("report", "--db", db, "--per-task")
    assert bad.returncode == 2 and "--per-task goes with --format csv or json" in bad.stderr
