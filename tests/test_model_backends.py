"""The contract on hard cases for every registered backend, and the model backends' own parts.

Every backend: unsatisfiable puzzles without a conflict, conflicting givens, and a timeout
honoured on a slow case (counting the empty grid). Then what is particular to the model
backends: CP-SAT's statuses and stats, the pycosat paths (in-process, propagation-limited,
forked child), PySAT's interrupts and its missing-package message, and the child process.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator

import pytest
from support import MULTIPLE, TELEGRAM, Stopwatch, collection

from sudokubench.backend import Backend, Deadline, Status
from sudokubench.encodings.cnf import Encoding, encode
from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.solvers import REGISTRY
from sudokubench.solvers.child import collect_in_child
from sudokubench.solvers.constraint_backend import Constraint
from sudokubench.solvers.cpsat import CpSat
from sudokubench.solvers.pycosat_backend import Pycosat
from sudokubench.solvers.pysat_backend import PySat

#: r1c9 has no candidate (1..8 in its row, 9 below it) but no digit repeats in a unit.
NO_CANDIDATE = "12345678." + "........9" + "." * 63
#: 5 given twice in column 1.
CONFLICT = "5" + "." * 8 + "5" + "." * 71
TIMEOUT = 0.3
#: Slack over the timeout: a fork, killing a child, CP-SAT's stop, on a busy 2-core machine.
SLACK = 2.0


def _shidoku_unsat() -> Grid:
    record = collection("shidoku4x4")[8]  # line 9: unsatisfiable, no conflicting givens
    assert record.puzzle.is_valid()
    return record.puzzle


@pytest.mark.parametrize(
    "puzzle",
    [_shidoku_unsat(), Grid.parse(NO_CANDIDATE), Grid.parse(CONFLICT)],
    ids=["shidoku-line-9", "no-candidate", "conflicting-givens"],
)
@pytest.mark.parametrize("limit", [1, 10])
def test_unsatisfiable(backend: Backend, puzzle: Grid, limit: int) -> None:
    result = backend.solve(puzzle, limit=limit)
    assert result.status is Status.UNSATISFIABLE, result.message
    assert result.count == 0 and result.exhaustive


def test_unsatisfiable_with_a_timeout(backend: Backend) -> None:
    result = backend.solve(Grid.parse(NO_CANDIDATE), limit=2, timeout=30)
    assert result.status is Status.UNSATISFIABLE and result.exhaustive


def test_timeout_honoured_on_a_slow_count(backend: Backend) -> None:
    empty = Grid.empty(Shape.for_size(9))
    with Stopwatch() as watch:
        result = backend.solve(empty, limit=10**9, timeout=TIMEOUT)
    assert result.status is Status.TIMEOUT, result.message
    assert not result.exhaustive
    watch.within(TIMEOUT + SLACK)
    assert len(set(result.solutions)) == result.count
    assert all(is_solution(s, empty) for s in result.solutions[:200])


# -- CP-SAT ---------------------------------------------------------------------------------


@pytest.mark.parametrize("formulation", REGISTRY["cpsat"].variants)
def test_cpsat_counts_with_one_enumerating_worker(formulation: str) -> None:
    result = CpSat(formulation).solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert result.stats["enumerate"] == 1 and result.stats["num_workers"] == 1
    assert {"branches", "conflicts", "wall_time"} <= set(result.stats)
    stopped = CpSat(formulation).solve(Grid.parse(MULTIPLE), limit=5)
    assert (stopped.status, stopped.count, stopped.exhaustive) == (Status.SOLVED, 5, False)
    assert len(set(stopped.solutions)) == 5


@pytest.mark.parametrize("formulation", REGISTRY["cpsat"].variants)
def test_cpsat_solves_16x16_with_its_known_solution(formulation: str) -> None:
    record = collection("hexadoku1500", 1)[0]
    result = CpSat(formulation).solve(record.puzzle, timeout=60)
    assert result.status is Status.SOLVED
    assert result.solution == record.expected_solution
    assert result.stats["enumerate"] == 0


def test_cpsat_time_limit_is_native() -> None:
    result = CpSat("integer").solve(Grid.empty(Shape.for_size(16)), limit=10**9, timeout=0.2)
    assert result.status is Status.TIMEOUT
    assert "child_process" not in result.stats
    assert result.stats["wall_time"] < 0.2 + SLACK


def test_cpsat_invalid_model_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    from ortools.sat.python import cp_model

    def invalid(puzzle: Grid, formulation: object) -> cp_model.CpModel:
        model = cp_model.CpModel()
        model.proto.variables.add().domain.extend([5, 1])  # an empty domain: MODEL_INVALID
        return model

    monkeypatch.setattr("sudokubench.encodings.cpsat.build", invalid)
    result = CpSat("integer").solve(Grid.parse(TELEGRAM))
    assert result.status is Status.ERROR
    assert "invalid" in result.message


# -- pycosat --------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", REGISTRY["pycosat"].variants)
def test_pycosat_paths_agree(encoding: str) -> None:
    backend = Pycosat(encoding)
    puzzle = Grid.parse(MULTIPLE)
    cnf = encode(puzzle, Encoding(encoding))
    in_process = backend.solve(puzzle, limit=100)
    in_child = backend.solve(puzzle, limit=100, timeout=30)
    assert in_process.count == in_child.count == 28
    assert set(in_process.solutions) == set(in_child.solutions)
    assert in_child.stats["child_process"] == 1 and "child_process" not in in_process.stats
    assert in_process.stats["clauses"] == len(cnf.clauses)
    assert in_process.stats["variables"] == cnf.num_vars
    limited = backend.solve(Grid.parse(TELEGRAM), timeout=30)  # in-process, propagation limit
    assert limited.status is Status.SOLVED and limited.stats["prop_limit"] > 0
    assert "child_process" not in limited.stats
    assert limited.solution == backend.solve(Grid.parse(TELEGRAM)).solution


# -- PySAT ----------------------------------------------------------------------------------


@pytest.mark.parametrize("solver", REGISTRY["pysat"].variants)
def test_pysat_counts_with_and_without_a_timeout(solver: str) -> None:
    backend = PySat(solver)
    if not backend.available():
        pytest.skip(backend.unavailable_reason())
    puzzle = Grid.parse(MULTIPLE)
    plain = backend.solve(puzzle, limit=100)
    timed = backend.solve(puzzle, limit=100, timeout=30)
    assert plain.count == timed.count == 28 and plain.exhaustive and timed.exhaustive
    assert set(plain.solutions) == set(timed.solutions)
    assert all(is_solution(s, puzzle) for s in plain.solutions)


def test_pysat_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pysat", None)  # `import pysat...` now raises ImportError
    monkeypatch.setitem(sys.modules, "pysat.solvers", None)
    monkeypatch.setattr("sudokubench.backend.package_version", lambda name: None)
    backend = PySat("cadical195")
    assert not backend.available()
    reason = backend.unavailable_reason()
    assert "python-sat" in reason and "pip install 'sudokubench[sat]'" in reason


# -- python-constraint ----------------------------------------------------------------------


@pytest.mark.parametrize("solver", REGISTRY["constraint"].variants)
def test_constraint_counts_in_process_and_in_a_child(solver: str) -> None:
    puzzle = Grid.parse(MULTIPLE)
    plain = Constraint(solver).solve(puzzle, limit=100)
    timed = Constraint(solver).solve(puzzle, limit=100, timeout=30)
    assert plain.count == timed.count == 28 and plain.exhaustive and timed.exhaustive
    assert set(plain.solutions) == set(timed.solutions)


# -- the child process ----------------------------------------------------------------------

FOUR = Shape.for_size(4)
SQUARE = Grid.parse("1234341221434321")


def _slow(stats: dict[str, int | float]) -> Iterator[Grid]:
    stats["before"] = 1
    yield SQUARE
    time.sleep(60)
    yield SQUARE


def _failing(stats: dict[str, int | float]) -> Iterator[Grid]:
    yield SQUARE
    raise ValueError("broken search")


def _quick(stats: dict[str, int | float]) -> Iterator[Grid]:
    stats["seen"] = 2
    yield SQUARE
    yield SQUARE


def test_child_is_killed_at_the_deadline_keeping_what_it_found() -> None:
    with Stopwatch() as watch:
        result = collect_in_child("test", FOUR, _slow, 10, Deadline(0.3))
    watch.within(0.3 + SLACK)
    assert (result.status, result.count, result.exhaustive) == (Status.TIMEOUT, 1, False)


def _endless(stats: dict[str, int | float]) -> Iterator[Grid]:
    while True:
        yield SQUARE


def test_a_child_faster_than_its_parent_is_a_timeout_not_a_crash(monkeypatch) -> None:
    """A busy parent that reads slower than its child writes stops reading at the deadline
    (before, it read on while the pipe held solutions, until the child's own alarm killed it,
    and called that a dead child: an ERROR where the search had only timed out)."""
    from sudokubench.solvers import child

    made = Grid

    def slow_grid(shape: Shape, cells: tuple[int, ...]) -> Grid:
        time.sleep(0.002)  # a parent slower than its child, as on a loaded machine
        return made(shape, cells)

    monkeypatch.setattr(child, "Grid", slow_grid)
    # (the child's alarm, read after the fork: before, the parent read on until it fired; 0.2 s
    # was less than a loaded machine may pause the parent between the deadline and its kill)
    monkeypatch.setattr(child, "GRACE_S", 2.0)
    result = collect_in_child("test", FOUR, _endless, 10**9, Deadline(0.3))
    assert (result.status, result.exhaustive) == (Status.TIMEOUT, False), result.message
    assert 0 < result.count == len(result.solutions)


def test_child_reports_its_stats_limit_and_errors() -> None:
    done = collect_in_child("test", FOUR, _quick, 10, Deadline(30))
    assert (done.count, done.exhaustive, done.stats["seen"]) == (2, True, 2)
    stopped = collect_in_child("test", FOUR, _quick, 1, Deadline(30))
    assert (stopped.status, stopped.count, stopped.exhaustive) == (Status.SOLVED, 1, False)
    with pytest.raises(RuntimeError, match="ValueError: broken search"):
        collect_in_child("test", FOUR, _failing, 10, Deadline(30))


def test_child_ends_itself_when_nobody_kills_it() -> None:
    from multiprocessing.connection import Connection

    from sudokubench.solvers import child

    read_fd, write_fd = os.pipe()
    with Stopwatch() as watch:
        pid = os.fork()
        if pid == 0:  # plays the child of a parent that died: nobody will kill it
            os.close(read_fd)
            child._child(Connection(write_fd, readable=False), _slow, 10, 0.1)
        os.close(write_fd)
        _, status = os.waitpid(pid, 0)
    os.close(read_fd)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM
    watch.within(0.1 + child.GRACE_S + SLACK)
