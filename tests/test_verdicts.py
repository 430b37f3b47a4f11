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
from support import TELEGRAM

TESTS = Path(__file__).resolve().parent
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def cli(*args: str, cwd: Path | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """`sudokubench ARGS` in a fresh process, with tests/ importable (for `fake_backends`)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "sudokubench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )


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
    labels = [line.get_label() for line in cactus(report).axes[0].get_lines()]
    assert labels == ["fast", "virtual best"]  # no curve for the late backend
    figure = scatter(report, "fast", late)
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert "one did not finish (drawn at the timeout)" in legend
    assert "both finished" not in legend or figure.axes[0].collections[0].get_offsets().size == 0
    text = cli("report", "--db", str(db), "--par", "10").stdout
    assert "PAR-10" in text and "virtual best" in text
