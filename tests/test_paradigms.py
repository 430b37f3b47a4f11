"""The SMT, ASP and MIP backends' own parts (z3, clingo, HiGHS).

The contract, known answers, counts and timeouts are checked for them as for every backend by
the registry-parametrised tests; here: their stats, the status mappings that a real puzzle
never reaches (faked solvers), a full grid (an empty no-good), the model files shipped in the
package, the missing-package message, and that HiGHS's banner stays off standard output.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench.backend import Deadline, Status
from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.solvers.clingo_backend import Clingo, program
from sudokubench.solvers.highs_backend import Highs
from sudokubench.solvers.z3_backend import Z3

#: Each backend's class, the distribution it needs and the extra that installs it.
BACKENDS = {
    "z3": (Z3, "z3-solver", "smt"),
    "clingo": (Clingo, "clingo", "asp"),
    "highs": (Highs, "highspy", "mip"),
}


def ready(cls: type) -> object:
    """An instance of the backend class, or a skip when its package is missing here."""
    backend = cls()
    if not backend.available():
        pytest.skip(backend.unavailable_reason())
    return backend


@pytest.mark.parametrize("name", BACKENDS)
def test_missing_package_says_which_extra(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    cls, distribution, extra = BACKENDS[name]
    monkeypatch.setattr("sudokubench.backend.package_version", lambda _: None)
    backend = cls()
    assert not backend.available()
    reason = backend.unavailable_reason()
    assert distribution in reason and f"pip install 'sudokubench[{extra}]'" in reason


@pytest.mark.parametrize("name", BACKENDS)
def test_a_full_grid_is_its_own_only_solution(name: str) -> None:
    backend = ready(BACKENDS[name][0])
    full = Grid.parse(TELEGRAM_SOLUTION)
    result = backend.solve(full, limit=3)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)
    assert result.solution == full


@pytest.mark.parametrize("name", BACKENDS)
def test_one_empty_cell(name: str) -> None:
    backend = ready(BACKENDS[name][0])
    puzzle = Grid.parse(TELEGRAM_SOLUTION).with_value(40, 0)
    result = backend.solve(puzzle, limit=2, timeout=30)
    assert (result.count, result.exhaustive) == (1, True)
    assert result.solution == Grid.parse(TELEGRAM_SOLUTION)


# -- z3 ------------------------------------------------------------------------------------------


def test_z3_stats_count_its_checks() -> None:
    result = ready(Z3).solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert result.stats["checks"] == 29  # 28 sat, then unsat
    assert {"conflicts", "decisions", "propagations"} <= set(result.stats)


def test_z3_solves_in_threads_each_with_its_own_context() -> None:
    from concurrent.futures import ThreadPoolExecutor

    backend = ready(Z3)
    puzzles = [Grid.parse(TELEGRAM), Grid.parse(MULTIPLE)] * 3
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda p: backend.solve(p, limit=30), puzzles))
    assert [r.count for r in results] == [1, 28] * 3
    assert all(r.exhaustive for r in results)
    assert results[0].solution == Grid.parse(TELEGRAM_SOLUTION)


@dataclass
class FakeZ3Solver:
    """Answers `unknown` for the given reason."""

    reason: str

    def set(self, *args: object) -> None: ...

    def check(self) -> object:
        import z3

        return z3.unknown

    def reason_unknown(self) -> str:
        return self.reason

    def statistics(self) -> object:
        import z3

        return z3.Solver().statistics()


@pytest.mark.parametrize(
    ("reason", "status"),
    [("timeout", Status.TIMEOUT), ("canceled", Status.TIMEOUT), ("smt tactic failed", None)],
)
def test_z3_unknown_is_a_timeout_only_for_the_time_limit(
    monkeypatch: pytest.MonkeyPatch, reason: str, status: Status | None
) -> None:
    backend = ready(Z3)
    real = backend._model

    def faked(puzzle: Grid, limit: int) -> object:
        model = real(puzzle, limit)
        model.handle = FakeZ3Solver(reason)
        return model

    monkeypatch.setattr(backend, "_model", faked)
    result = backend.solve(Grid.parse(TELEGRAM), timeout=30)
    if status is None:
        assert result.status is Status.ERROR and reason in result.message
    else:
        assert result.status is status and not result.exhaustive


# -- clingo --------------------------------------------------------------------------------------


def test_clingo_program_ships_in_the_package() -> None:
    text = program()
    assert "#show (R * n + C) * n + D - 1 : cell(R, C, D)." in text and "given(R, C, D)" in text


def test_clingo_stats_describe_the_ground_program() -> None:
    result = ready(Clingo).solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert result.stats["models"] == 28
    assert result.stats["atoms"] > 0 and result.stats["rules"] > 0
    assert {"choices", "conflicts", "vars", "constraints"} <= set(result.stats)


@dataclass
class FakeOutcome:
    """A clingo SolveResult that none of our solves produces."""

    interrupted: bool = False
    exhausted: bool = False
    satisfiable: bool = False


def test_clingo_an_unexplained_ending_is_an_error() -> None:
    from sudokubench.solvers.clingo_backend import _ending

    with pytest.raises(RuntimeError, match="clingo ended with"):
        _ending(FakeOutcome(), 0, 1)
    with pytest.raises(RuntimeError, match="1 of 2 models"):
        _ending(FakeOutcome(satisfiable=True), 1, 2)
    assert _ending(FakeOutcome(interrupted=True, satisfiable=True), 3, 10) == (False, True)
    assert _ending(FakeOutcome(exhausted=True), 0, 10) == (True, False)
    assert _ending(FakeOutcome(satisfiable=True), 10, 10) == (False, False)


# -- HiGHS ---------------------------------------------------------------------------------------


def test_highs_counts_by_one_solve_per_grid() -> None:
    result = ready(Highs).solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert result.stats["solves"] == 29  # 28 feasible, then infeasible
    assert result.stats["rows"] == 4 * 81 + 28  # exactly-one rows, then one cut per grid
    assert result.stats["columns"] == 729
    assert all(is_solution(s, Grid.parse(MULTIPLE)) for s in result.solutions)


def test_highs_time_limit_is_native() -> None:
    result = ready(Highs).solve(Grid.empty(Shape(4, 4)), limit=10**6, timeout=0.3)
    assert result.status is Status.TIMEOUT and not result.exhaustive
    assert result.stats["solves"] >= 1
    assert all(is_solution(s, Grid.empty(Shape(4, 4))) for s in result.solutions)


def test_highs_an_unexpected_model_status_is_an_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = ready(Highs)
    real = backend._model

    def node_limited(puzzle: Grid, limit: int) -> object:
        model = real(puzzle, limit)
        model.handle.setOptionValue("presolve", "off")
        model.handle.setOptionValue("mip_max_nodes", 0)  # HiGHS stops before any node
        return model

    monkeypatch.setattr(backend, "_model", node_limited)
    result = backend.solve(Grid.empty(Shape(3, 3)), limit=2)
    assert result.status is Status.ERROR, result
    assert "HiGHS ended with 'Solution limit reached'" in result.message


def test_highs_banner_stays_off_standard_output() -> None:
    ready(Highs)
    code = (
        "from sudokubench.grid import Grid\n"
        "from sudokubench.solvers import get_backend\n"
        f"result = get_backend('highs').solve(Grid.parse({TELEGRAM!r}))\n"
        "print(result.status.value)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == "solved\n"


def test_highs_search_takes_the_deadline_between_solves() -> None:
    backend = ready(Highs)
    model = backend._model(Grid.parse(MULTIPLE), 100)
    result = backend._search(model, Deadline(0.0))
    assert result.status is Status.TIMEOUT and result.count == 0
