"""`lib:PATH[:SYMBOL]` backends: a small C solver with tdoku's ABI (tests/c/tdoku_abi.c),
compiled here by the `c_library` fixture, and its variants that fill the grid only at limit 1,
answer a wrong grid, crash on the n-th call, spin forever, or export another name.

Answers are checked against known counts and with the independent checker, and cross-checked
with `fast` through `compare`."""

from __future__ import annotations

import contextlib
import ctypes
import sqlite3
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, cli, collection, pattern_solution

from sudokubench.backend import BaseBackend, Phased, Status, timed_call
from sudokubench.errors import UnknownBackendError
from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.harness.plan import CompareArgs
from sudokubench.harness.pool.guard import trusted
from sudokubench.harness.pool.probe import worker_info
from sudokubench.harness.run import UntrustedBackends, compare
from sudokubench.solvers import get_backend
from sudokubench.solvers.lib import DEFAULT_SYMBOL, LibBackend, split_spec

#: Unsatisfiable without a repeated given: the telegram grid with r1c2 = 4 (its solution has 1).
UNSAT = TELEGRAM[:1] + "4" + TELEGRAM[2:]
#: The telegram grid with a second 8 in row 1.
CONFLICT = TELEGRAM[:1] + "8" + TELEGRAM[2:]


def lib(path: Path, symbol: str | None = None, *, contained: bool = False) -> LibBackend:
    """A fresh backend for the library at `path` (not `get_backend`'s cached one)."""
    return LibBackend(f"{path}:{symbol}" if symbol else str(path), contained=contained)


def one_error_line(done) -> str:
    """The command's one `sudokubench: error:` line, exit 2, no traceback."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudokubench: error: "), done.stderr
    return lines[0]


# -- answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fill", [(), ("-DFILL_AT_LIMIT_1",)], ids=["fills", "fills-at-limit-1"])
def test_the_28_solution_grid_is_counted_exhaustively_with_a_checked_grid(c_library, fill):
    backend = lib(c_library(*fill))
    puzzle = Grid.parse(MULTIPLE)
    result = backend.solve(puzzle, limit=100)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 28, True)
    assert len(result.solutions) == 1 and is_solution(result.solutions[0], puzzle)
    assert result.stats["guesses"] > 0


@pytest.mark.parametrize("fill", [(), ("-DFILL_AT_LIMIT_1",)], ids=["fills", "fills-at-limit-1"])
def test_a_unique_puzzle_has_one_solution_at_limit_2(c_library, fill):
    result = lib(c_library(*fill)).solve(Grid.parse(TELEGRAM), limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)
    assert str(result.solutions[0]) == TELEGRAM_SOLUTION


def test_reaching_the_limit_is_a_lower_bound(c_library):
    result = lib(c_library()).solve(Grid.parse(MULTIPLE), limit=5)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 5, False)


def test_an_unsatisfiable_puzzle_without_repeated_givens(c_library):
    result = lib(c_library()).solve(Grid.parse(UNSAT), limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


def test_conflicting_givens_and_other_sizes_are_never_sent(c_library):
    backend = lib(c_library("-DCRASH_ON_CALL=1"))  # any call would end this process
    result = backend.solve(Grid.parse(CONFLICT), limit=2)
    assert result.status is Status.UNSATISFIABLE
    for shape in (Shape(2, 2), Shape(4, 4)):
        assert shape not in backend.shapes
        result = backend.solve(pattern_solution(shape), limit=1)
        assert result.status is Status.ERROR and "9x9" in result.message


def test_easy_puzzles_match_their_known_solutions(c_library):
    backend = lib(c_library("-DFILL_AT_LIMIT_1"))
    for record in collection("easy50", 10):
        result = backend.solve(record.puzzle, limit=2)
        assert result.exhaustive and result.count == 1
        assert is_solution(result.solutions[0], record.puzzle)


def test_the_timed_call_is_the_one_c_call_and_the_grid_is_fetched_apart(c_library):
    backend = lib(c_library("-DFILL_AT_LIMIT_1"))
    prepared = backend.prepare(Grid.parse(MULTIPLE), 100)
    count = backend.run(prepared, None)
    assert count == 28 and prepared.solution.raw[0] == 0  # no grid at limit 100
    result = backend.answer(prepared, count)
    assert result.count == 28 and is_solution(result.solutions[0], Grid.parse(MULTIPLE))
    # the timing rule times `run` alone: the backend keeps BaseBackend's solve (timed_solve)
    assert isinstance(backend, Phased) and type(backend).solve is BaseBackend.solve
    timed = timed_call(backend, Grid.parse(MULTIPLE), 100)
    assert timed.answer.count == 28 and timed.encode_s > 0


def test_the_timed_region_is_the_c_function_on_ready_c_values(c_library):
    backend = lib(c_library())
    prepared = backend.prepare(Grid.parse(TELEGRAM), 2)
    function, arguments = backend.bind(prepared, None)
    assert function is backend._function  # no Python frame of the backend's in the region
    carg = type(ctypes.byref(ctypes.c_int()))  # what ctypes passes without converting
    assert type(arguments[0]) is bytes and all(type(a) is carg for a in arguments[1:])
    prepared.guesses.value = 12345  # the library writes its count of guesses over it
    assert function(*arguments) == 1 and prepared.guesses.value != 12345
    result = backend.answer(prepared, 1)
    assert result.count == 1 and result.solutions[0] == Grid.parse(TELEGRAM_SOLUTION)
    # with a timeout, the region is the call in a forked child
    assert backend.bind(prepared, 5.0) == (backend._in_child, (prepared, 5.0))


def test_prepared_calls_have_buffers_of_their_own(c_library):
    backend = lib(c_library())
    first = backend.prepare(Grid.parse(TELEGRAM), 1)
    second = backend.prepare(Grid.parse(MULTIPLE), 100)
    counts = backend.run(second, None), backend.run(first, None)  # out of order
    assert counts == (28, 1)
    assert backend.answer(first, 1).solutions[0] == Grid.parse(TELEGRAM_SOLUTION)
    many = backend.answer(second, 28)
    assert many.count == 28 and is_solution(many.solutions[0], Grid.parse(MULTIPLE))


def test_a_timeout_in_python_runs_the_call_in_a_child_killed_in_time(c_library):
    backend = lib(c_library("-DSPIN"))
    result = backend.solve(Grid.parse(TELEGRAM), timeout=0.2)
    assert result.status is Status.TIMEOUT and "killed" in result.message


def test_a_contained_call_that_crashes_is_an_error_naming_the_signal(c_library):
    backend = lib(c_library("-DCRASH_ON_CALL=1"), contained=True)
    result = backend.solve(Grid.parse(TELEGRAM))
    assert (result.status, result.message) == (Status.ERROR, "crashed: SIGSEGV")


# -- names and loading -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("./libtdoku.so", ("./libtdoku.so", DEFAULT_SYMBOL)),
        ("./libtdoku.so:OtherSolver", ("./libtdoku.so", "OtherSolver")),
        ("/a:b/libx.so", ("/a:b/libx.so", DEFAULT_SYMBOL)),
        ("/a:b/libx.so:f_2", ("/a:b/libx.so", "f_2")),
    ],
)
def test_the_symbol_is_split_at_the_last_colon_when_it_is_an_identifier(spec, expected):
    assert split_spec(spec) == expected


def test_a_named_symbol_is_called(c_library):
    path = c_library("-DSYMBOL=other_solver")
    result = get_backend(f"lib:{path}:other_solver").solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)


def bad_libraries(c_library, tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (backend, what its one error line says)."""
    text = tmp_path / "notes.so"
    text.write_text("not a library\n")
    elf = bytearray(c_library().read_bytes())
    elf[18:20] = (0xB7 if elf[18:20] != b"\xb7\x00" else 0x3E).to_bytes(2, "little")
    other = tmp_path / "other-machine.so"  # the same library, its header's machine changed
    other.write_bytes(elf)
    return {
        "missing symbol": (f"lib:{c_library('-DSYMBOL=other_solver')}", "has no function"),
        "not a library": (f"lib:{text}", "cannot load"),
        "another architecture": (f"lib:{other}", "built for another architecture"),
        "missing file": (f"lib:{tmp_path / 'absent.so'}", "does not exist"),
        "a folder": (f"lib:{tmp_path}", "is not a file"),
    }


def test_a_bad_library_is_refused_when_named(c_library, tmp_path):
    for backend, says in bad_libraries(c_library, tmp_path).values():
        with pytest.raises(UnknownBackendError, match=says):
            get_backend(backend)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["solve", "count", "compare"])
def test_a_bad_library_is_one_line_and_exit_2_before_anything_runs(c_library, tmp_path, command):
    db = tmp_path / "r.sqlite"
    extra = ["--db", str(db)] if command == "compare" else []
    for backend, says in bad_libraries(c_library, tmp_path).values():
        line = one_error_line(cli(command, TELEGRAM, "-b", backend, *extra))
        assert says in line
    assert not db.exists() or not sqlite3.connect(db).execute("SELECT * FROM tasks").fetchall()


def test_the_dask_probe_says_which_worker_lacks_the_library(tmp_path):
    name = f"lib:{tmp_path / 'absent.so'}"
    info = worker_info([name, "fast"])
    assert "fast" in info["backends"] and name not in info["backends"]
    assert "does not exist" in info["missing"][name]


# -- the command line and the harness -----------------------------------------------------------


@pytest.mark.slow
def test_the_command_line_counts_and_flags_a_wrong_grid(c_library):
    done = cli("count", MULTIPLE, "-b", f"lib:{c_library('-DFILL_AT_LIMIT_1')}", "-n", "100")
    assert done.returncode == 0 and done.stdout.strip() == "28 solutions", done.stderr
    done = cli("count", MULTIPLE, "-b", f"lib:{c_library('-DWRONG_GRID')}", "-n", "100")
    assert done.returncode == 1 and "WRONG" in done.stdout


@pytest.mark.slow
def test_a_crash_on_the_command_line_is_an_error_not_the_end_of_it(c_library):
    done = cli("solve", TELEGRAM, "-b", f"lib:{c_library('-DCRASH_ON_CALL=1')}")
    assert done.returncode == 3
    assert "crashed: SIGSEGV" in done.stderr and "Traceback" not in done.stderr


def run(tmp_path: Path, backends: tuple[str, ...], puzzles: list[str], **kw):
    """`compare` over `puzzles` written to a file, from tmp_path (so the ids are `p.txt:K`)."""
    (tmp_path / "p.txt").write_text("".join(f"{p}\n" for p in puzzles))
    args = CompareArgs(files=("p.txt",), backends=backends, jobs=1, **kw)
    with contextlib.chdir(tmp_path):
        return compare(args, db=tmp_path / "r.sqlite")


@pytest.mark.slow
def test_compare_cross_checks_a_library_with_fast(c_library, tmp_path):
    name = f"lib:{c_library('-DFILL_AT_LIMIT_1')}"
    puzzles = [MULTIPLE, TELEGRAM, UNSAT, *(str(r.puzzle) for r in collection("easy50", 5))]
    report = run(tmp_path, ("fast", name), puzzles, limit=100)
    assert report.ok and not trusted(name)
    assert report.verdicts["p.txt:1"].consensus == "=28"
    mine = [t for t in report.tasks if t.backend == name]
    assert [t.count for t in mine] == [28, 1, 0, 1, 1, 1, 1, 1] and all(t.valid for t in mine)


@pytest.mark.slow
def test_compare_flags_a_library_that_answers_a_wrong_grid(c_library, tmp_path):
    name = f"lib:{c_library('-DWRONG_GRID')}"
    report = run(tmp_path, ("fast", name), [TELEGRAM])
    assert not report.ok
    assert [t.valid for t in report.tasks if t.backend == name] == [False]


@pytest.mark.slow
def test_a_library_that_crashes_costs_only_its_own_tasks(c_library, tmp_path):
    name = f"lib:{c_library('-DCRASH_ON_CALL=3')}"  # the worker's first call is its warm-up
    puzzles = [str(r.puzzle) for r in collection("easy50", 4)]
    report = run(tmp_path, ("fast", name), puzzles, timeout=5)
    mine = [t for t in report.tasks if t.backend == name]
    assert {t.status for t in mine} == {"solved", "error"}
    assert all("SIGSEGV" in t.message for t in mine if t.status == "error")
    assert [t.status for t in report.tasks if t.backend == "fast"] == ["solved"] * 4


@pytest.mark.slow
def test_a_library_that_spins_times_out_and_the_run_goes_on(c_library, tmp_path):
    name = f"lib:{c_library('-DSPIN')}"
    report = run(tmp_path, ("fast", name), [TELEGRAM, MULTIPLE], timeout=0.5)
    assert [t.status for t in report.tasks if t.backend == name] == ["timeout", "timeout"]
    assert [t.status for t in report.tasks if t.backend == "fast"] == ["solved", "solved"]


@pytest.mark.slow
def test_a_stored_library_is_resumed_only_with_consent(c_library, tmp_path):
    name = f"lib:{c_library()}"
    run(tmp_path, ("fast", name), [TELEGRAM])
    db = tmp_path / "r.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM tasks WHERE backend != 'fast'")
        conn.execute("UPDATE runs SET status = 'interrupted'")
    with pytest.raises(UntrustedBackends):
        compare(CompareArgs(), db=db, resume=1)
    report = compare(CompareArgs(), db=db, resume=1, trust_backends=True)
    assert report.ok and [t.count for t in report.tasks if t.backend == name] == [1]


@pytest.mark.slow
def test_other_sizes_are_skipped_by_capability_and_a_resumed_run_skips_them_too(
    c_library, tmp_path
):
    name = f"lib:{c_library('-DCRASH_ON_CALL=3')}"  # the warm-up, then one puzzle: no other
    four = str(pattern_solution(Shape(2, 2))).replace("1", ".")
    sixteen = str(pattern_solution(Shape(4, 4))).replace("1", ".")
    report = run(tmp_path, ("fast", name), [four, TELEGRAM, sixteen], timeout=5)
    assert report.ok and report.planned == 4 == len(report.tasks)
    mine = [(t.puzzle_id, t.status) for t in report.tasks if t.backend == name]
    assert mine == [("p.txt:2", "solved")]
    assert f"{name}: 2 puzzles of a size it does not take were skipped" in " ".join(report.warnings)
    db = tmp_path / "r.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM tasks WHERE puzzle_id = 'p.txt:3'")
        conn.execute("UPDATE runs SET status = 'interrupted'")
    resumed = compare(CompareArgs(), db=db, resume=1, trust_backends=True)
    assert resumed.ok and resumed.run.status == "complete"
    assert sorted((t.puzzle_id, t.backend) for t in resumed.tasks) == sorted(
        [("p.txt:1", "fast"), ("p.txt:2", "fast"), ("p.txt:2", name), ("p.txt:3", "fast")]
    )
