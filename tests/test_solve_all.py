"""`solve --all` on a grid with more solutions than could ever be printed says so, and prints
what it finds as it finds them instead of holding them (`cli/every.py`)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys

import pytest
from support import TESTS, cli

from sudokubench.backend import Streaming
from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, get_backend

EMPTY_9X9 = "." * 81
needs_estimate = pytest.mark.skipif(
    not get_backend("native").available(), reason="the estimate needs the native backend"
)


def test_every_solution_of_a_small_grid_is_printed_and_checked() -> None:
    done = cli("solve", "--all", "." * 16, "-f", "line")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    puzzle = Grid.parse("." * 16, Shape(2, 2))
    assert len(lines) == len(set(lines)) == 288  # every 4x4 grid
    assert all(is_solution(Grid.parse(line, Shape(2, 2)), puzzle) for line in lines)
    pretty = cli("solve", "--all", "." * 16)
    assert pretty.stdout.count("Solution #") == 288
    assert pretty.stdout.rstrip().endswith("288 solutions (all found)")


@needs_estimate
def test_the_empty_grid_says_all_cannot_finish_and_streams() -> None:
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    args = [sys.executable, "-m", "sudokubench", "solve", "--all", EMPTY_9X9, "-f", "line"]
    proc = subprocess.Popen(
        [*args, "-b", DEFAULT_BACKEND, "-t", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    try:
        # solutions come long before the 300 s timeout: they are printed as they are found
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no solution printed within 60 s"
        first = proc.stdout.readline().decode().strip()  # type: ignore[union-attr]
        assert is_solution(Grid.parse(first), Grid.parse(EMPTY_9X9))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    warning = err.decode().splitlines()[0]
    assert warning.startswith("sudokubench: warning: argument: about ")
    assert "solutions (Knuth's estimate): --all cannot finish" in warning


@pytest.mark.slow
@needs_estimate
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, id=name)
        for name in backend_names()
        if get_backend(name).available() and not isinstance(get_backend(name), Streaming)
    ],
)
def test_a_backend_that_keeps_its_solutions_is_refused_all_of_the_empty_grid(name: str) -> None:
    done = cli("solve", "--all", EMPTY_9X9, "-b", name, timeout=120)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("sudokubench: error: argument: about ")
    assert f"--all with {name}, which keeps every solution until it returns" in line
