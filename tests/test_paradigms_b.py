"""What is particular to the scip, choco and minizinc:SOLVER backends.

The contract, the known answers and the counts are checked for them through the registry
(test_contract.py, test_agreement.py, test_model_backends.py); here: the registry's variants
discovered at run time, MiniZinc's solver list, statuses and kill backstop, Choco's time-limit
text and counters, SCIP's counter against the recorded solutions.
"""

from __future__ import annotations

import sys

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench import Grid, Shape, Status
from sudokubench.errors import UnknownBackendError
from sudokubench.solvers import backend_names, get_backend
from sudokubench.solvers import minizinc as mzn

# -- the registry: variants found at run time ----------------------------------------------------


def _info(variant: str) -> mzn.SolverInfo:
    return mzn.SolverInfo(f"org.example.{variant}", variant.title(), "1.0", ("-a", "-n"))


def test_discovered_variants_follow_the_declared_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mzn, "solvers", lambda: {"chuffed": _info("chuffed")})
    names = backend_names()
    assert names.index("minizinc:gecode") + 1 == names.index("minizinc:chuffed")
    assert get_backend.__wrapped__("minizinc:chuffed").name == "minizinc:chuffed"
    with pytest.raises(
        UnknownBackendError, match=r"no variant 'nosuch' \(known: gecode, chuffed\)"
    ):
        get_backend.__wrapped__("minizinc:nosuch")


def test_without_minizinc_the_declared_variant_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mzn, "solvers", dict)
    monkeypatch.setattr(mzn.shutil, "which", lambda name: None)
    assert "minizinc:gecode" in backend_names()
    backend = mzn.MiniZinc("gecode")
    assert not backend.available() and backend.version() is None
    assert "apt-get install minizinc" in backend.unavailable_reason()
    result = backend.solve(Grid.parse(TELEGRAM))
    assert result.status is Status.ERROR and "minizinc" in result.message


SOLVERS_JSON = [
    {"id": "org.gecode.gecode", "name": "Gecode", "version": "6.2.0", "tags": ["cp", "int"],
     "stdFlags": ["-a", "-n"]},
    {"id": "org.gecode.gist", "name": "Gist", "version": "6.2.0", "tags": ["cp"],
     "isGUIApplication": True},
    {"id": "org.minizinc.mip.cplex", "name": "CPLEX", "version": "<unknown version>",
     "tags": ["mip"], "requiredFlags": ["--cplex-dll"]},
    {"id": "org.minizinc.findmus", "name": "findMUS", "version": "0.6", "tags": ["mus"]},
    {"id": "org.minizinc.mip.highs", "name": "HiGHS", "version": "1.6", "tags": ["mip", "api"]},
]  # fmt: skip


def test_only_solvers_that_run_without_more_set_up_are_used() -> None:
    found = mzn.usable(SOLVERS_JSON)
    assert set(found) == {"gecode", "highs"}
    assert found["gecode"] == mzn.SolverInfo("org.gecode.gecode", "Gecode", "6.2.0", ("-a", "-n"))


# -- MiniZinc's statuses and stream -------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "found", "limit", "timed", "expected"),
    [
        ("ALL_SOLUTIONS", 3, 10, False, (True, False)),
        ("UNSATISFIABLE", 0, 2, True, (True, False)),
        (None, 2, 2, False, (False, False)),  # the solution limit
        ("SATISFIED", 1, 1, True, (False, False)),
        (None, 1, 2, True, (False, True)),  # the time limit, after a solution
        ("UNKNOWN", 0, 2, True, (False, True)),
        ("KILLED", 0, 2, True, (False, True)),
        ("KILLED", 2, 2, True, (False, False)),  # printed its limit, then was slow to exit
    ],
)
def test_every_minizinc_ending_is_mapped(status, found, limit, timed, expected) -> None:
    outcome = mzn._Outcome([Grid.parse(MULTIPLE)] * found, status)
    assert mzn._ending(outcome, limit, timed) == expected


@pytest.mark.parametrize(
    ("status", "found", "limit", "timed"),
    [
        ("UNKNOWN", 0, 2, False),  # no time limit was set
        (None, 1, 2, False),
        ("OPTIMAL_SOLUTION", 1, 2, False),
        ("UNBOUNDED", 0, 2, True),
        ("ERROR", 0, 2, True),
    ],
)
def test_an_unexpected_minizinc_ending_raises_naming_it(status, found, limit, timed) -> None:
    outcome = mzn._Outcome([Grid.parse(MULTIPLE)] * found, status)
    with pytest.raises(RuntimeError, match=status or "none"):
        mzn._ending(outcome, limit, timed)


def test_an_error_message_in_the_stream_raises() -> None:
    stream = '{"type": "error", "message": "cannot open file x.dzn"}\n'
    with pytest.raises(RuntimeError, match="cannot open file"):
        mzn._read(Grid.parse(MULTIPLE), stream, 2, partial=False)


needs_minizinc = pytest.mark.skipif(
    not mzn.MiniZinc("gecode").available(), reason="no minizinc with Gecode (.ci/run installs it)"
)


@needs_minizinc
def test_the_backstop_kills_a_run_past_its_deadline_and_keeps_what_it_printed() -> None:
    """A stand-in for minizinc that prints one solution and hangs, ignoring its time limit."""
    puzzle = Grid.parse(MULTIPLE)
    solution = get_backend("dlx").solve(puzzle).solutions[0]
    digits = ",".join(map(str, solution))
    line = '{"type": "solution", "output": {"default": "' + digits + '"}}'
    hang = f"import time; print({line!r}, flush=True); time.sleep(60)"
    command = mzn._Command([sys.executable, "-c", hang], 2)
    # a timeout long enough for a Python to start and print on a loaded machine (the backstop
    # fires at timeout + 0.1 s: before, at 0.3 s, a slow start printed nothing by then)
    outcome = mzn.MiniZinc("gecode")._search(puzzle, command, 2.0)
    assert outcome.status == "KILLED" and outcome.stats["killed"] == 1
    assert outcome.solutions == [solution]


@needs_minizinc
def test_minizinc_counts_with_gecode_statistics() -> None:
    result = mzn.MiniZinc("gecode").solve(Grid.parse(MULTIPLE), limit=100, timeout=60)
    assert (result.count, result.exhaustive) == (28, True)
    assert result.stats["nodes"] >= 28 and result.stats["flatTime"] > 0
    assert result.stats["killed"] == 0


# -- Choco --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "0.001s"), (0.0004, "0.001s"), (0.02, "0.020s"), (2.5, "2.500s"), (61.25, "61.250s")],
)
def test_choco_time_limit_text(seconds: float, text: str) -> None:
    from sudokubench.solvers.choco import choco_duration

    assert choco_duration(seconds) == text


def test_choco_reports_its_counters() -> None:
    pytest.importorskip("pychoco")
    result = get_backend("choco").solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    nodes = result.stats["nodes"]
    assert isinstance(nodes, int) and nodes >= 28  # a count, not pychoco's time by mistake
    assert {"fails", "backtracks", "restarts", "choco_time"} <= set(result.stats)


# -- SCIP ---------------------------------------------------------------------------------------


def two_solution_puzzle() -> Grid:
    """TELEGRAM's solution with the four cells of a rectangle a b / b a in two boxes emptied:
    each of them has only a and b left, so exactly two solutions."""
    grid = Grid.parse(TELEGRAM_SOLUTION)
    for r1 in range(9):
        for r2 in range(r1 + 1, (r1 // 3 + 1) * 3):  # the same band: two boxes, not four
            for c1 in range(9):
                for c2 in range((c1 // 3 + 1) * 3, 9):  # another stack
                    a, b = grid.value(r1, c1), grid.value(r1, c2)
                    if (grid.value(r2, c1), grid.value(r2, c2)) == (b, a):
                        for k in (r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2):
                            grid = grid.with_value(k, 0)
                        return grid
    raise AssertionError("no rectangle in the grid")  # pragma: no cover


def test_scip_counts_two_swappable_cells_one_by_one() -> None:
    """SCIP's counter would count the free swap as two solutions at once (a sparse solution);
    the backend turns that off so every counted solution is also a recorded grid."""
    pytest.importorskip("pyscipopt")
    puzzle = two_solution_puzzle()
    assert get_backend("dlx").solve(puzzle, limit=10).count == 2
    result = get_backend("scip").solve(puzzle, limit=10)
    assert (result.count, result.exhaustive, result.stats["counted"]) == (2, True, 2)
    first = get_backend("scip").solve(puzzle, limit=1)
    assert (first.status, first.count, first.exhaustive) == (Status.SOLVED, 1, False)


def test_scip_counter_and_recorded_solutions_agree() -> None:
    pytest.importorskip("pyscipopt")
    result = get_backend("scip").solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive, result.stats["counted"]) == (28, True, 28)


def test_scip_unknown_status_is_an_error_naming_it() -> None:
    pytest.importorskip("pyscipopt")
    from sudokubench.solvers.scip import Scip

    backend, puzzle = Scip(), Grid.empty(Shape(2, 2))
    built = backend._model(puzzle, 1000)
    built.scip.setParam("limits/nodes", 2)
    with pytest.raises(RuntimeError, match="nodelimit"):
        backend._search(puzzle, built, None)
