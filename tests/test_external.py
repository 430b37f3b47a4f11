"""Users' own solvers: plain functions and objects (`adapt`), programs (`exec:`), entry points."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import support
from support import MULTIPLE, TELEGRAM, Stopwatch, collection

from sudokubench.backend import BaseBackend, SolveResult, Status, make_result
from sudokubench.grid import Grid, is_solution
from sudokubench.solvers import UnknownBackendError, get_backend
from sudokubench.solvers.external import ExecBackend, FunctionBackend, adapt

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PY_SOLVER = f"{sys.executable} {EXAMPLES / 'exec_solver.py'}"
CONFLICTING = "88" + TELEGRAM[2:]  # two 8s in row 1
TELEGRAM_SOLUTION = Grid.parse(support.TELEGRAM_SOLUTION)


def first_solution(puzzle: Grid) -> Grid | None:
    """A plain user function: the backtracking backend's first solution."""
    return get_backend("backtracking").solve(puzzle).solution


# -- adapt: functions, classes, instances -----------------------------------------------------


def test_a_function_that_returns_a_grid_is_solved_once_not_exhaustive():
    result = adapt(first_solution, "mine").solve(Grid.parse(TELEGRAM), timeout=5)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, False)
    assert result.solution == TELEGRAM_SOLUTION and result.backend == "mine"


def test_a_function_that_returns_none_claims_no_solution():
    result = adapt(first_solution, "mine").solve(Grid.parse(CONFLICTING))
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)


@pytest.mark.parametrize(
    "answer",
    [str(TELEGRAM_SOLUTION), list(TELEGRAM_SOLUTION.cells)],
    ids=["line", "digits"],
)
def test_a_function_may_answer_a_line_or_a_digit_list(answer):
    result = adapt(lambda puzzle: answer, "mine").solve(Grid.parse(TELEGRAM))
    assert result.status is Status.SOLVED and result.solution == TELEGRAM_SOLUTION


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (lambda puzzle: 42, "TypeError: returned int"),
        (lambda puzzle: "123", "expected 81 cells"),
        (lambda puzzle: 1 / 0, "ZeroDivisionError"),
    ],
    ids=["wrong type", "wrong size", "raises"],
)
def test_a_function_that_misbehaves_is_an_error(function, message):
    result = adapt(function, "mine").solve(Grid.parse(TELEGRAM))
    assert result.status is Status.ERROR and message in result.message


def test_a_function_that_answers_late_is_a_timeout_that_keeps_its_answer():
    def slow(puzzle: Grid) -> Grid | None:
        time.sleep(0.3)
        return first_solution(puzzle)

    result = FunctionBackend(slow, "slow").solve(Grid.parse(TELEGRAM), timeout=0.1)
    assert result.status is Status.TIMEOUT and result.solution == TELEGRAM_SOLUTION
    assert "past the timeout" in result.message


def test_a_backend_class_is_instantiated_and_an_instance_kept():
    class Mine(BaseBackend):
        name = "mine"

        def _solve(self, puzzle, limit, deadline):
            return make_result(self.name, [first_solution(puzzle)], finished=False)

    backend = adapt(Mine, "module:Mine")
    assert isinstance(backend, Mine)
    assert backend.solve(Grid.parse(TELEGRAM)).solution == TELEGRAM_SOLUTION
    instance = Mine()
    assert adapt(instance, "module:instance") is instance


def test_an_object_with_only_solve_gets_the_rest_of_the_protocol():
    class Bare:
        def solve(self, puzzle, *, limit=1, timeout=None):
            return SolveResult("bare", Status.UNSATISFIABLE, exhaustive=True)

    backend = adapt(Bare(), "pkg:bare")
    assert backend.name == "pkg:bare" and backend.available() and backend.version() is None
    assert backend.solve(Grid.parse(TELEGRAM)).status is Status.UNSATISFIABLE


def test_something_that_is_not_a_solver_is_refused():
    with pytest.raises(UnknownBackendError, match="neither a Backend nor a function"):
        adapt(42, "pkg:answer")

    class NeedsArguments:
        def __init__(self, size):
            self.size = size

        def solve(self, puzzle, *, limit=1, timeout=None):
            raise AssertionError("never called")

    with pytest.raises(UnknownBackendError, match="cannot instantiate NeedsArguments"):
        adapt(NeedsArguments, "pkg:NeedsArguments")


def test_module_attr_names_a_plain_function():
    backend = get_backend("fake_backends:solve_function")
    assert backend.solve(Grid.parse(TELEGRAM)).solution == TELEGRAM_SOLUTION


def test_module_attr_that_does_not_exist_is_unknown():
    with pytest.raises(UnknownBackendError, match="no 'Missing'"):
        get_backend("fake_backends:Missing")


# -- exec: programs ---------------------------------------------------------------------------


def script(tmp_path: Path, body: str) -> str:
    """An exec: command running a small Python program."""
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {path}"


@pytest.fixture
def program(tmp_path):
    """Makes ExecBackends running small Python programs; every one is stopped afterwards."""
    made: list[ExecBackend] = []

    def make(body: str) -> ExecBackend:
        made.append(ExecBackend(script(tmp_path, body)))
        return made[-1]

    yield make
    for backend in made:
        backend.close()


@pytest.fixture
def python_example() -> ExecBackend:
    """The standalone Python example through exec:, stopped after the test."""
    backend = ExecBackend(PY_SOLVER)
    yield backend
    backend.close()


def test_python_example_solves_and_says_none(python_example):
    puzzle = Grid.parse(TELEGRAM)
    result = python_example.solve(puzzle, timeout=10)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, False)
    assert result.solution == TELEGRAM_SOLUTION
    unsat = python_example.solve(Grid.parse(CONFLICTING), timeout=10)
    assert (unsat.status, unsat.exhaustive) == (Status.UNSATISFIABLE, True)
    assert python_example.starts == 1  # one program for every puzzle


def test_python_example_answers_one_solution_when_asked_to_count(python_example):
    puzzle = Grid.parse(MULTIPLE)
    result = python_example.solve(puzzle, limit=10, timeout=10)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, False)
    assert is_solution(result.solution, puzzle)


def test_python_example_on_4x4_and_16x16(python_example):
    for record in collection("shidoku4x4"):
        result = python_example.solve(record.puzzle, timeout=10)
        if result.status is Status.SOLVED:
            assert is_solution(result.solution, record.puzzle)
        else:
            assert record.id.endswith(":9") and result.status is Status.UNSATISFIABLE
    [hexadoku] = collection("hexadoku1500", 1)
    result = python_example.solve(hexadoku.puzzle, timeout=30)
    assert result.solution == hexadoku.expected_solution


def test_exec_name_resolves_through_the_registry():
    backend = get_backend(f"exec:{PY_SOLVER}")
    assert isinstance(backend, ExecBackend) and backend.name == f"exec:{PY_SOLVER}"
    assert backend.available()
    assert not ExecBackend("no-such-program-here --fast").available()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) here")
def test_c_example_builds_with_its_one_command_and_solves_hard_puzzles(tmp_path):
    binary = tmp_path / "solver"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(EXAMPLES / "solver.c")], check=True)
    backend = ExecBackend(str(binary))
    try:
        for record in collection("top95", 10, step=9):
            result = backend.solve(record.puzzle, timeout=10)
            assert result.status is Status.SOLVED and is_solution(result.solution, record.puzzle)
        [hexadoku] = collection("hexadoku1500", 1)
        assert backend.solve(hexadoku.puzzle, timeout=10).solution == hexadoku.expected_solution
        conflict = backend.solve(Grid.parse(CONFLICTING), timeout=10)
        assert conflict.status is Status.UNSATISFIABLE
        assert backend.starts == 1
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import sys\nfor line in sys.stdin:\n    print('123', flush=True)\n", "expected 81 cells"),
        ("import sys\nfor line in sys.stdin:\n    print('x' * 81, flush=True)\n", "unexpected"),
        ("import sys\nfor line in sys.stdin:\n    print('', flush=True)\n", "an empty line"),
        (
            "import sys\nsys.stdin.readline()\nsys.exit('boom: cannot parse')\n",
            "exited (1) without answering; stderr: 'boom: cannot parse'",
        ),
    ],
    ids=["wrong size", "garbage", "empty line", "crash"],
)
def test_a_program_that_misbehaves_is_an_error_and_restarted(program, body, message):
    backend = program(body)
    for starts in (1, 2):
        result = backend.solve(Grid.parse(TELEGRAM), timeout=10)
        assert result.status is Status.ERROR and message in result.message
        assert backend.starts == starts


def test_a_program_that_closes_its_output_but_lives_on_is_an_error(program):
    body = "import os, sys, time\nos.close(1)\nsys.stdin.readline()\ntime.sleep(60)\n"
    backend = program(body)
    with Stopwatch() as watch:
        result = backend.solve(Grid.parse(TELEGRAM), timeout=10)
    assert result.status is Status.ERROR and "closed its input or output" in result.message
    watch.within(5)


def test_a_program_may_answer_in_numeric_tokens(program):
    body = """\
        import sys
        for line in sys.stdin:
            print("1 2 3 4 3 4 1 2 2 1 4 3 4 3 2 1", flush=True)
    """
    backend = program(body)
    puzzle = Grid.parse("1...............")
    result = backend.solve(puzzle, timeout=10)
    assert result.status is Status.SOLVED and is_solution(result.solution, puzzle)


def test_a_program_that_writes_two_lines_per_puzzle_is_caught(program):
    body = "import sys\nfor line in sys.stdin:\n    print('0\\n0', flush=True)\n"
    backend = program(body)
    assert backend.solve(Grid.parse(TELEGRAM), timeout=10).status is Status.UNSATISFIABLE
    time.sleep(0.2)  # let the stray line arrive
    second = backend.solve(Grid.parse(TELEGRAM), timeout=10)
    assert second.status is Status.ERROR
    assert "more lines than it was asked for: '0'" in second.message


def test_a_program_that_hangs_is_killed_at_the_timeout_and_restarted(program):
    # hangs on puzzles that start with a blank, answers "none" to the others
    body = """\
        import sys, time
        for line in sys.stdin:
            if line.startswith("."):
                time.sleep(60)
            print("none", flush=True)
    """
    backend = program(body)
    with Stopwatch() as watch:
        hung = backend.solve(Grid.parse("." + TELEGRAM[1:]), timeout=0.5)
    watch.within(1.5)
    assert hung.status is Status.TIMEOUT and "no answer within 0.5 s" in hung.message
    assert backend.solve(Grid.parse(TELEGRAM), timeout=5).status is Status.UNSATISFIABLE
    assert backend.starts == 2


def test_a_program_that_cannot_start_is_an_error():
    backend = ExecBackend("/no/such/solver")
    result = backend.solve(Grid.parse(TELEGRAM), timeout=1)
    assert result.status is Status.ERROR and "cannot start" in result.message


# -- entry points -----------------------------------------------------------------------------


def make_distribution(root: Path) -> None:
    """A real installed distribution `myplug` with two sudokubench.backends entry points."""
    (root / "myplug_mod.py").write_text(
        textwrap.dedent(
            """\
            from sudokubench.solvers import get_backend

            def solve(puzzle):
                return get_backend("backtracking").solve(puzzle).solution

            class Never:
                name = "never"
                def available(self):
                    return True
                def version(self):
                    return "9.9"
                def solve(self, puzzle, *, limit=1, timeout=None):
                    from sudokubench.backend import SolveResult, Status
                    return SolveResult(self.name, Status.ERROR, message="never solves")
            """
        )
    )
    info = root / "myplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sudokubench.backends]\nmyplug = myplug_mod:solve\nmyplug-never = myplug_mod:Never\n"
    )


def test_entry_points_are_listed_and_resolved(tmp_path):
    make_distribution(tmp_path)
    probe = f"""\
        import json
        from sudokubench.grid import Grid
        from sudokubench.solvers import backend_names, get_backend
        solved = get_backend("myplug").solve(Grid.parse({TELEGRAM!r}))
        never = get_backend("myplug-never")
        print(json.dumps({{
            "names": backend_names(),
            "solution": str(solved.solution),
            "never": [never.name, never.version(), never.solve(None).message],
        }}))
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(probe)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = json.loads(done.stdout)
    assert {"myplug", "myplug-never"} <= set(found["names"])
    assert found["solution"] == str(TELEGRAM_SOLUTION)
    assert found["never"] == ["never", "9.9", "never solves"]


def test_the_python_plug_in_example_as_a_function_and_as_a_class(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    puzzle = Grid.parse(TELEGRAM)
    assert get_backend("sudoku_plugin:solve").solve(puzzle).solution == TELEGRAM_SOLUTION
    counted = get_backend("sudoku_plugin:Counting").solve(Grid.parse(MULTIPLE), limit=100)
    assert (counted.status, counted.count, counted.exhaustive) == (Status.SOLVED, 28, True)
    assert get_backend("sudoku_plugin:solve").solve(Grid.parse(CONFLICTING)).status is (
        Status.UNSATISFIABLE
    )
