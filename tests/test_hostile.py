"""The hostile sweep: plug-ins that break the contract on purpose (`tests/hostile_plugins.py`),
runs stopped while they start, damaged databases. Each case runs through real processes (the
`sudokubench` command, real workers) and asserts what is stored and reported, checked here
independently of the harness (`is_solution`, the known answers of the inputs).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support import HANG_S, TELEGRAM, cli

from sudokubench.formats import parse_grid
from sudokubench.grid import is_solution

TESTS = Path(__file__).resolve().parent
EASY = [  # from easy50, each with exactly one solution
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
    "48...69.2..2..8..19..37..6.84..1.2....37.41....1.6..49.2..85..77..9..6..6.92...18",
    TELEGRAM,
]


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


@pytest.mark.parametrize("plugin", ["NanTiming", "BadTypes"])
def test_a_plugins_own_times_are_not_the_timing_and_junk_never_reaches_the_store(
    tmp_path: Path, puzzles: Path, plugin: str
) -> None:
    db = tmp_path / "r.sqlite"
    name = f"hostile_plugins:{plugin}"
    result = cli("compare", str(puzzles), "--backends", f"fast,{name}", "--db", str(db))
    assert "Traceback" not in result.stderr, result.stderr
    rows = tasks(db)
    assert len(rows) == 2 * len(EASY)  # nothing lost
    assert run_status(db) == [(1, "complete")]
    for row in rows:
        assert row["status"] == "solved" and row["valid"] == 1, row
        (solution,) = json.loads(str(row["solutions"]))
        puzzle = parse_grid(str(row["puzzle"]))
        assert is_solution(parse_grid(solution, puzzle.shape), puzzle)
        if row["backend"] == name:
            # The timing rule: the harness's clock around `solve`, not the plug-in's NaN or
            # text; what the plug-in said would be kept in stats, were it a finite number.
            assert row["encode_s"] == 0.0 and 0 < row["solve_s"] == row["wall_s"], row
            assert "reported_encode_s" not in json.loads(str(row["stats"]))
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


class _Text(str):
    """A str subclass, as a plug-in may return (it may not pickle in another process)."""


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"exhaustive": 1},
        {"count": True},
        {"solutions": [TELEGRAM]},
        {"solutions": (_Text(TELEGRAM),)},
        {"solutions": ("9" * 5000,)},
        {"wall_s": 1},
        {"stats": {"big": 2**70, "ok": 3}},
        {"stats": {"ok": 3, "n": float("nan")}},
        {"message": _Text("m")},
        {"problem": "p" * 5000},
        {"verdict": _Text("=1")},
    ],
)
def test_sanitize_gives_plain_values_and_keeps_a_plain_outcome_as_it_is(change: dict) -> None:
    import pickle

    from sudokubench.backend import Status
    from sudokubench.harness.pool.guard import ANSWER_CHARS, sanitize
    from sudokubench.harness.pool.task import Outcome, Task

    task = Task(0, "p:1", TELEGRAM, None, "x:y", 2, 1.0, 0)
    plain = Outcome(task, Status.SOLVED, 1, True, (TELEGRAM,), 0.0, 0.1, 0.2, {"ok": 3}, "")
    outcome = plain._replace(**change)
    clean = sanitize(outcome)
    if not change:
        assert clean is outcome  # nothing to copy
    assert sanitize(clean) is clean  # what it gives back is plain
    for value in (clean.message, clean.verdict, *clean.solutions):
        assert type(value) is str
    assert type(clean.count) is int and type(clean.exhaustive) is bool
    assert type(clean.wall_s) is float
    assert type(clean.solutions) is tuple and all(len(s) <= ANSWER_CHARS for s in clean.solutions)
    if change == {"count": True}:  # not a count: the task is an ERROR that says why
        assert clean.status is Status.ERROR and "count 'True' is not a count" in clean.message
    else:
        assert clean.status is Status.SOLVED and set(clean.stats) == {"ok"}
    assert clean.problem is None or len(clean.problem) <= 1000
    assert pickle.loads(pickle.dumps(clean)) == clean


def _plain_stats_literally(stats: dict) -> bool:
    """The rule `sanitize` keeps a stats dict by, read off one entry at a time."""
    import math

    from sudokubench.harness.pool.guard import STAT_KEY_CHARS

    for key, value in stats.items():
        if type(key) is not str or len(key) > STAT_KEY_CHARS:
            return False
        if type(value) is int:
            if not -(2**62) <= value <= 2**62:
                return False
        elif type(value) is not float or not math.isfinite(value):
            return False
    return True


@pytest.mark.parametrize(
    "stats",
    [
        {},
        {"nodes": 6, "cpu_s": 3.3e-05, "cpu_wait_s": 0.0},
        {"a": 2**62, "b": -(2**62)},  # at the bounds: plain
        {"a": 2**62 + 1},
        {"a": -(2**62) - 1},
        {"a": 2**62 + 1, "b": 0.5},  # (the sum rounds to 2**62 as a float)
        {"a": 2**62 - 1, "b": 1},
        {"a": 2**2000, "b": 0.5},  # (an int a float cannot hold, summed with a float)
        {"a": 1e300, "b": 1e300},
        {"a": 1, "b": float("nan"), "c": 2},
        {"a": float("inf")},
        {"a": -float("inf"), "b": 1.0},
        {"a": True},
        {"a": "1"},
        {"a": None},
        {1: 2},
        {"k" * 64: 1},
        {"k" * 65: 1},
    ],
)
def test_sanitize_keeps_as_they_are_exactly_the_plain_stats(stats: dict) -> None:
    from sudokubench.backend import Status
    from sudokubench.harness.pool.guard import sanitize
    from sudokubench.harness.pool.task import Outcome, Task

    task = Task(0, "p:1", TELEGRAM, None, "x:y", 2, 1.0, 0)
    outcome = Outcome(task, Status.SOLVED, 1, True, (TELEGRAM,), 0.0, 0.1, 0.2, stats, "")
    assert (sanitize(outcome) is outcome) == _plain_stats_literally(stats)


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


def test_a_plugin_imported_never_runs_in_the_compare_process(tmp_path: Path, puzzles: Path) -> None:
    db = tmp_path / "r.sqlite"
    result = cli(
        "compare", str(puzzles), "--backends", "fast,hostile_import:wrong", "--db", str(db)
    )
    assert result.returncode == 1, result.stderr
    for row in tasks(db):
        assert bool(row["valid"]) == (row["backend"] == "fast"), row


def test_a_plugin_that_hangs_while_loading_is_one_line_and_exit_2(
    tmp_path: Path, puzzles: Path
) -> None:
    db = tmp_path / "r.sqlite"
    os.environ["SUDOKUBENCH_LOAD_TIMEOUT"] = "2"
    try:
        result = cli(
            "compare", str(puzzles), "--backends", "fast,hostile_hang:solve", "--db", str(db),
            timeout=2 * HANG_S,
        )  # fmt: skip
    finally:
        del os.environ["SUDOKUBENCH_LOAD_TIMEOUT"]
    line = one_error_line(result)
    assert "'hostile_hang:solve' did not load within 2 s" in line
    assert "sudokubench backends --warm" in line and "SUDOKUBENCH_LOAD_TIMEOUT=" in line
    assert not db.exists()


# -- 6. what reaches the tool's output -----------------------------------------------------------


def test_a_plugins_prints_never_reach_compare_json(tmp_path: Path, puzzles: Path) -> None:
    db = tmp_path / "r.sqlite"
    result = cli(
        "compare", str(puzzles), "--backends", "fast,hostile_plugins:Chatty", "--json",
        "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # the whole of stdout is the one JSON object
    assert report["ok"] and report["summary"]["hostile_plugins:Chatty"]["solved"] == len(EASY)
    assert "chatty plug-in says hello" in result.stderr


# -- 3. sizes and processes of exec: programs -----------------------------------------------------


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not count)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(") ")[-1][0] not in "ZX"
    except (OSError, IndexError):
        return False


def test_a_line_without_end_is_cut_and_charged(tmp_path: Path, puzzles: Path) -> None:
    program = tmp_path / "flood.py"
    program.write_text(
        "import sys\nfor line in sys.stdin:\n"
        "    for _ in range(100):\n        sys.stdout.write('1' * 1_000_000)\n"
        "    sys.stdout.flush()\n"
    )
    name = f"exec:{sys.executable} {program}"
    db = tmp_path / "r.sqlite"
    result = cli("compare", str(puzzles), "--backends", f"fast,{name}", "--db", str(db))
    assert "Traceback" not in result.stderr, result.stderr
    rows = [r for r in tasks(db) if r["backend"] == name]
    assert len(rows) == len(EASY)
    for row in rows:
        assert row["status"] == "error" and "a line longer than 65536 bytes" in str(row["message"])
        assert len(str(row["message"])) < 200


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; prctl")
def test_a_programs_detached_children_are_killed(tmp_path: Path, puzzles: Path) -> None:
    program = tmp_path / "detach.py"
    program.write_text(  # (it tells its child's pid as its answer: it may not write files)
        "import os, subprocess, sys\n"
        "if os.fork() == 0:  # a double fork into a session of its own\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.execvp('sleep', ['sleep', '300.17'])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "kid = subprocess.Popen(['sleep', '301.17'], start_new_session=True)\n"
        "for line in sys.stdin:\n"
        "    print(f'pid{kid.pid}', flush=True)\n"
    )
    name = f"exec:{sys.executable} {program}"
    db = tmp_path / "r.sqlite"
    result = cli("compare", str(puzzles), "--backends", f"fast,{name}", "--db", str(db))
    assert "Traceback" not in result.stderr, result.stderr
    assert len(tasks(db)) == 2 * len(EASY)
    assert all("pid" in str(r["message"]) for r in tasks(db) if r["backend"] == name)  # it ran
    assert not _sleepers("300.17") + _sleepers("301.17")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; prctl")
@pytest.mark.parametrize("kind", ["program", "plug-in"])
def test_what_a_backend_detached_dies_when_it_times_out(tmp_path: Path, kind: str) -> None:
    # The plug-in's worker is killed by the parent (the plug-in never answers): what it
    # detached must not outlive the worker (init would adopt it, out of reach). The program is
    # stopped by its backend's own timeout in the worker, which reaps what it left.
    program = tmp_path / "hang.py"
    program.write_text(
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        null = os.open(os.devnull, os.O_RDWR)\n"
        "        for fd in (0, 1, 2):\n"
        "            os.dup2(null, fd)\n"
        "        os.closerange(3, 4096)\n"
        "        os.execvp('sleep', ['sleep', '302.17'])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "for line in sys.stdin:\n"
        "    time.sleep(3600)\n"
    )
    name = {
        "program": f"exec:{sys.executable} {program}",
        "plug-in": "hostile_plugins:DetachAndHang",
    }[kind]
    puzzles = tmp_path / "one.txt"
    puzzles.write_text(f"{TELEGRAM}\n", encoding="utf-8")
    db = tmp_path / "r.sqlite"
    try:
        result = cli(
            "compare",
            str(puzzles),
            "--backends",
            f"fast,{name}",
            "--timeout",
            "1",
            "--db",
            str(db),
            "--no-warmup",
        )
        assert "Traceback" not in result.stderr, result.stderr
        rows = {r["backend"]: r for r in tasks(db)}
        assert rows[name]["status"] == "timeout", rows[name]
        assert rows["fast"]["status"] == "solved"
        assert not _sleepers("302.17"), "a detached process outlived its killed worker"
    finally:
        for pid in _sleepers("302.17"):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _sleepers(seconds: str) -> list[int]:
    """The living `sleep SECONDS` processes of this machine."""
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and _cmdline(int(p)) == f"sleep\x00{seconds}\x00" and _alive(int(p))
    ]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


# -- 5. damaged databases: one line and exit 2; stored checks never trusted ----------------------


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of one complete run: fast and a plug-in with wrong answers."""
    folder = tmp_path_factory.mktemp("stored")
    puzzles = folder / "easy.txt"
    puzzles.write_text("".join(f"{p}\n" for p in EASY), encoding="utf-8")
    db = folder / "r.sqlite"
    result = cli(
        "compare", str(puzzles), "--backends", "fast,fake_backends:WrongSolution", "--db", str(db)
    )
    assert result.returncode == 1, result.stderr
    return db


def damaged(stored_run: Path, tmp_path: Path, *sql: str) -> Path:
    db = tmp_path / "damaged.sqlite"
    with sqlite3.connect(stored_run) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
        for statement in sql:
            copy.execute(statement)
    return db


@pytest.mark.slow  # 12 damaged copies, three commands each
@pytest.mark.parametrize(
    ("sql", "commands", "says"),
    [
        ("UPDATE runs SET args = '{not json'", ["report", "runs"], "args is not JSON"),
        ("UPDATE runs SET args = '[1]'", ["report", "runs"], "args is not a JSON dict"),
        ("UPDATE runs SET status = 'exploded'", ["report", "runs"], "status 'exploded'"),
        ("UPDATE tasks SET stats = '{\"x\": NaN}'", ["report"], "stats is not JSON"),
        ("UPDATE tasks SET stats = 'oops' WHERE task_id = 1", ["report"], "stats is not JSON"),
        ("UPDATE tasks SET encode_s = 'fast'", ["report"], "encode_s is not a time"),
        ("UPDATE tasks SET count = 'many'", ["report"], "count is not an integer"),
        ("UPDATE tasks SET solutions = '[1, 2]'", ["report"], "a solution is not text"),
        # (one row: the positions of a run are unique, `puzzles_by_position`)
        (
            "UPDATE puzzles SET position = 'x' WHERE rowid = (SELECT min(rowid) FROM puzzles)",
            ["report"],
            "position is not an integer",
        ),
        ("UPDATE tasks SET puzzle_id = 'elsewhere:1'", ["report"], "does not hold"),
        ("DROP TABLE tasks", ["report", "runs"], "no such table: tasks"),
        ("DROP TABLE runs", ["report", "runs"], "no such table: runs"),
    ],
)
def test_a_damaged_database_is_one_line_and_exit_2(
    stored_run: Path, tmp_path: Path, sql: str, commands: list[str], says: str
) -> None:
    db = damaged(stored_run, tmp_path, sql)
    for command in commands:
        line = one_error_line(cli(command, "--db", str(db)))
        assert f"{db} is damaged" in line and says in line, line
    line = one_error_line(cli("compare", "--resume", "1", "--db", str(db), "--trust-backends"))
    assert f"{db} is damaged" in line, line


def test_a_malformed_page_is_one_line_and_exit_2(stored_run: Path, tmp_path: Path) -> None:
    db = damaged(stored_run, tmp_path)
    data = bytearray(db.read_bytes())
    assert len(data) >= 4 * 4096
    data[2 * 4096 : 4 * 4096] = b"\xa5" * (2 * 4096)  # pages 3 and 4 overwritten
    db.write_bytes(bytes(data))
    for command in ("report", "runs"):
        line = one_error_line(cli(command, "--db", str(db)))
        assert str(db) in line, line


def test_a_tampered_verdict_is_not_trusted(stored_run: Path, tmp_path: Path) -> None:
    db = damaged(
        stored_run,
        tmp_path,
        "UPDATE tasks SET valid = 1, problem = NULL",  # every answer marked right
        "UPDATE runs SET disagreements = 0",
    )
    result = cli("report", "--db", str(db), "--format", "json")
    assert result.returncode == 1, result.stderr  # still wrong answers
    summary = json.loads(result.stdout)["summary"]
    assert summary["fake_backends:WrongSolution"]["wrong"] == len(EASY)
    assert summary["fast"]["wrong"] == 0


def test_resume_runs_stored_code_only_with_consent_and_honours_jobs(
    tmp_path: Path, puzzles: Path
) -> None:
    db = tmp_path / "r.sqlite"
    name = "fake_backends:SlowHonest"
    assert (
        cli("compare", str(puzzles), "--backends", f"fast,{name}", "--db", str(db)).returncode == 0
    )
    with sqlite3.connect(db) as conn:  # someone else's database, half done, asking for 10**6 jobs
        conn.execute(f"DELETE FROM tasks WHERE backend = '{name}'")
        conn.execute(
            "UPDATE runs SET status = 'interrupted', args = json_set(args, '$.jobs', 1000000)"
        )
    line = one_error_line(cli("compare", "--resume", "1", "--db", str(db)))
    assert repr(name) in line and "--trust-backends" in line
    assert len(tasks(db)) == len(EASY)  # nothing ran
    result = cli("compare", "--resume", "1", "--db", str(db), "--trust-backends", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    rows = tasks(db)
    assert len(rows) == 2 * len(EASY) and all(r["valid"] == 1 for r in rows)
    assert run_status(db) == [(1, "complete")]
    with sqlite3.connect(db) as conn:  # the run now says how its rest was run
        (stored,) = conn.execute("SELECT args FROM runs").fetchone()
    assert json.loads(stored)["jobs"] == 1


def test_repeat_is_capped(tmp_path: Path, puzzles: Path) -> None:
    line = one_error_line(cli("compare", str(puzzles), "--repeat", "1000000000", "-b", "fast"))
    assert "repeat must be 1 to 1000" in line


def test_jobs_are_capped(tmp_path: Path, puzzles: Path) -> None:
    # A thousand workers would be a thousand Python processes before anything is measured.
    line = one_error_line(
        cli("compare", str(puzzles), "--jobs", "1000", "-b", "fast", cwd=tmp_path)
    )
    assert "jobs must be 1 to 256" in line
    assert not (tmp_path / "sudokubench.sqlite").exists()


# -- 6. reports: no formulas in CSV, no raw HTML in Markdown, strict JSON -------------------------


def test_report_cells_are_never_formulas_or_markup(tmp_path: Path) -> None:
    files = []
    for k, stem in enumerate(["=HYPERLINK(1)", "+SUM(1)", "@SUM(1)"]):
        path = tmp_path / f"{stem}.txt"
        path.write_text(f"{EASY[k]}\n", encoding="utf-8")
        files.append(str(path))
    marked = tmp_path / "marked.txt"
    marked.write_text(f"# collection: <img/src=x/onerror=alert(1)>*x*\n{TELEGRAM}\n")
    db = tmp_path / "r.sqlite"
    result = cli("compare", *files, str(marked), "--backends", "fast", "--db", str(db))
    assert result.returncode == 0, result.stderr
    csv_text = cli("report", "--db", str(db), "--format", "csv").stdout
    import csv

    rows = list(csv.DictReader(csv_text.splitlines()))
    collections = {r["collection"] for r in rows}
    assert {"'=HYPERLINK(1)", "'+SUM(1)", "'@SUM(1)"} <= collections, collections
    for row in rows:
        for cell in row.values():
            assert not cell or (cell[0] not in "=+@" and not (cell[0] == "-" and not _number(cell)))
    markdown = cli("report", "--db", str(db), "--format", "markdown").stdout
    assert "<img" not in markdown and "&lt;img/src=x/onerror=alert\\(1\\)&gt;\\*x\\*" in markdown


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# -- 11. the bad inputs left from the first sweep -------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("report", "99999999999999999999999"),
        ("report", "--against", "99999999999999999999999"),
        ("compare", "--resume", "99999999999999999999999"),
    ],
)
def test_a_run_id_past_sqlites_integers_is_one_line(
    stored_run: Path, args: tuple[str, ...]
) -> None:
    line = one_error_line(cli(*args, "--db", str(stored_run)))
    assert "has no run 99999999999999999999999" in line


def test_a_database_that_is_not_a_file_is_one_line() -> None:
    line = one_error_line(cli("runs", "--db", os.devnull))
    assert "is not a results database" in line
