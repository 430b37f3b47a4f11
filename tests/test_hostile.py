"""The hostile sweep: plug-ins that break the contract on purpose (`tests/hostile_plugins.py`),
runs stopped while they start, damaged databases. Each case runs through real processes (the
`sudokubench` command, real workers) and asserts what is stored and reported, checked here
independently of the harness (`is_solution`, the known answers of the inputs).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support import TELEGRAM

from sudokubench.formats import parse_grid
from sudokubench.grid import is_solution

TESTS = Path(__file__).resolve().parent
EASY = [  # from easy50, each with exactly one solution
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
    "48...69.2..2..8..19..37..6.84..1.2....37.41....1.6..49.2..85..77..9..6..6.92...18",
    TELEGRAM,
]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `sudokubench ARGS` in a fresh process with tests/ importable (for the plug-ins)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.run(
        [str(Path(sys.executable).with_name("sudokubench")), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    path = tmp_path / "easy.txt"
    path.write_text("".join(f"{p}\n" for p in EASY), encoding="utf-8")
    return path


def tasks(db: Path) -> list[dict[str, object]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM tasks ORDER BY task_id")]


def run_status(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT id, status FROM runs ORDER BY id"))


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one `sudokubench: error:` line of a bad-input exit (asserts the exit and the form)."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudokubench: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# -- 1. what a plug-in returns never crashes the store ------------------------------------------


@pytest.mark.parametrize(
    ("plugin", "why"),
    [("NanTiming", "encode_s nan is not a finite time"), ("BadTypes", "encode_s fast is not")],
)
def test_malformed_results_are_errors_and_everyone_else_is_stored(
    tmp_path: Path, puzzles: Path, plugin: str, why: str
) -> None:
    db = tmp_path / "r.sqlite"
    name = f"hostile_plugins:{plugin}"
    result = cli("compare", str(puzzles), "--backends", f"fast,{name}", "--db", str(db))
    assert "Traceback" not in result.stderr, result.stderr
    rows = tasks(db)
    assert len(rows) == 2 * len(EASY)  # nothing lost
    assert run_status(db) == [(1, "complete")]
    for row in rows:
        if row["backend"] == name:
            assert row["status"] == "error" and why in str(row["message"]), row
            assert row["encode_s"] == 0.0 and row["solve_s"] == 0.0
        else:
            assert row["status"] == "solved" and row["valid"] == 1
            (solution,) = json.loads(str(row["solutions"]))
            puzzle = parse_grid(str(row["puzzle"]))
            assert is_solution(parse_grid(solution, puzzle.shape), puzzle)
    report = cli("report", "--db", str(db), "--format", "json")
    assert report.returncode == 0, report.stderr
    json.loads(report.stdout)  # strict JSON
    assert "NaN" not in report.stdout and "Infinity" not in report.stdout


def test_stats_are_bounded_and_finite(tmp_path: Path, puzzles: Path) -> None:
    """Stats are cut to finite numbers under text keys, `STATS_ENTRIES` of them; a message of a
    megabyte to 1,000 characters; the rest of the outcome stands."""
    from sudokubench.backend import Status
    from sudokubench.harness.pool.guard import STATS_ENTRIES, sanitize
    from sudokubench.harness.pool.task import Outcome, Task

    task = Task(0, "p:1", TELEGRAM, None, "x:y", 2, 1.0, 0)
    stats = {"ok": 1, "nan": float("nan"), "inf": float("inf"), "s": "x", "b": True, 3: 4}
    stats.update({f"k{i}": i for i in range(200)})
    outcome = Outcome(task, Status.TIMEOUT, 0, False, (), 0.1, 0.2, 0.3, stats, "m" * 10**6)
    clean = sanitize(outcome)
    assert clean.status is Status.TIMEOUT and clean.stats["ok"] == 1
    assert len(clean.stats) == STATS_ENTRIES
    assert not {"nan", "inf", "s", "b", 3} & set(clean.stats)
    assert len(clean.message) <= 1000


def test_a_resumed_run_without_puzzles_is_an_error(tmp_path: Path, puzzles: Path) -> None:
    db = tmp_path / "r.sqlite"
    assert cli("compare", str(puzzles), "--backends", "fast", "--db", str(db)).returncode == 0
    with sqlite3.connect(db) as conn:  # what a kill between the two writes used to leave
        conn.execute("DELETE FROM tasks")
        conn.execute("DELETE FROM puzzles")
        conn.execute("UPDATE runs SET status = 'running'")
    line = one_error_line(cli("compare", "--resume", "1", "--db", str(db)))
    assert "run 1" in line and "no stored puzzles" in line
    assert run_status(db) == [(1, "running")]


def test_a_run_is_created_with_its_puzzles_or_not_at_all(tmp_path: Path) -> None:
    from sudokubench.harness.records import PuzzleRow
    from sudokubench.harness.store import Store

    def rows_then_kill():
        yield PuzzleRow("a:1", 0, "a", TELEGRAM)
        raise KeyboardInterrupt  # a Ctrl-C while the puzzles are written

    with Store(tmp_path / "r.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            store.new_run({}, {}, rows_then_kill())
        assert store.runs() == []
        assert store.db.execute("SELECT COUNT(*) FROM puzzles").fetchone() == (0,)


# -- 2. answers from plug-ins are checked where the plug-in cannot reach ------------------------


def test_a_plugin_cannot_switch_the_check_off_or_blame_others(
    tmp_path: Path, puzzles: Path
) -> None:
    db = tmp_path / "r.sqlite"
    name = "hostile_plugins:SwitchOffCheck"
    result = cli(
        "compare", str(puzzles), "--backends", f"{name},fast", "--jobs", "1", "--db", str(db)
    )
    assert result.returncode == 1, result.stderr  # wrong answers found
    rows = tasks(db)
    assert len(rows) == 2 * len(EASY)
    for row in rows:
        (solution,) = json.loads(str(row["solutions"]))
        puzzle = parse_grid(str(row["puzzle"]))
        right = is_solution(parse_grid(solution, puzzle.shape), puzzle)
        assert bool(row["valid"]) == right, row  # the stored check is the true one
        assert right == (row["backend"] == "fast")
    report = json.loads(cli("report", "--db", str(db), "--format", "json").stdout)
    assert report["summary"][name]["wrong"] == len(EASY)
    assert report["summary"]["fast"]["wrong"] == 0  # the innocent is not blamed
    blamed = {side for d in report["disagreements"] for s in d["sides"].values() for side in s}
    assert blamed == {name}


def test_an_unpicklable_message_is_charged_to_its_backend_alone(
    tmp_path: Path, puzzles: Path
) -> None:
    db = tmp_path / "r.sqlite"
    name = "hostile_plugins:UnpicklableMessage"
    result = cli(
        "compare", str(puzzles), "--backends", f"fast,{name}", "--jobs", "1", "--db", str(db)
    )
    assert "Traceback" not in result.stderr, result.stderr
    rows = tasks(db)
    assert len(rows) == 2 * len(EASY)
    for row in rows:
        if row["backend"] == name:
            assert (row["status"], row["message"]) == ("error", "poisoned message"), row
        else:
            assert row["status"] == "solved" and row["valid"] == 1, row


@pytest.mark.parametrize("plugin", ["hostile_plugins:CloseFds", "fake_backends:KillSelf"])
def test_a_plugin_that_kills_its_worker_is_charged_alone(
    tmp_path: Path, puzzles: Path, plugin: str
) -> None:
    db = tmp_path / "r.sqlite"
    result = cli(
        "compare", str(puzzles), "--backends", f"fast,{plugin},dlx", "--jobs", "1",
        "--db", str(db), "--timeout", "5",
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    rows = tasks(db)
    assert len(rows) == 3 * len(EASY)
    for row in rows:
        if row["backend"] == plugin:
            assert row["status"] == "error" and "worker died" in str(row["message"]), row
        else:  # the built-in backends' tasks, which shared no worker with the plug-in
            assert (row["status"], row["valid"], row["message"]) == ("solved", 1, ""), row
