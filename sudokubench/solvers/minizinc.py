"""`minizinc:SOLVER`: the MiniZinc model `encodings/sudoku.mzn` run by the `minizinc` tool.

Library: the `minizinc` executable (a system package: Debian's `minizinc` brings Gecode), one
process per solve. The model is data: integer cells, a given fixes its cell, `alldifferent`
per row, column and box; each solver's MiniZinc library decides how `alldifferent` is
compiled (Gecode propagates it natively). The puzzle is passed as data on the command line
(`-D`), so nothing is written to disk.

Variants: `gecode` is declared (it is what Debian's package brings); every other solver that
`minizinc --solvers-json` lists here joins as `minizinc:<last part of its id>` at run time
(`solvers()`; the registry asks it through its `discover` hook). Left out: GUI programs
(Gecode Gist), the MIP wrappers that need a vendor library's path (`requiredFlags`: CPLEX,
Gurobi, Xpress, SCIP in Debian's build), and anything tagged neither `cp` nor `mip` (MiniZinc's
own tools such as findMUS). A solver nobody measured here declares `practical_n` 9.

Statuses (MiniZinc's `--json-stream`): ALL_SOLUTIONS ends an exhaustive search; UNSATISFIABLE
proves none; no status line after the solutions means a stop criterion fired: the solution
limit (`-n limit`) when `limit` solutions came (also when the backstop killed a run that had
printed them and not yet exited), else the time limit (TIMEOUT); UNKNOWN after the time limit
is a TIMEOUT with none. SATISFIED is read like no status line. ERROR, an `error`
message, UNKNOWN without a time limit, or any other status (OPTIMAL_SOLUTION, UNBOUNDED,
UNSAT_OR_UNBOUNDED: a satisfaction model never gives them) raise, naming it.

Timeout: native, `--time-limit` in milliseconds (at least 1: 0 means none to MiniZinc), which
covers compiling the model too; the process group is killed at the deadline plus `GRACE`
(0.1 s) as a backstop, and the solutions printed by then are kept (its statistics are lost).

Stats: what MiniZinc and the solver report, under their own names: `flatTime` (compiling the
model to FlatZinc, seconds), `flatIntVars`, `flatIntConstraints`, and the solver's (Gecode:
`nodes`, `failures`, `propagations`, `peakDepth`, `restarts`, `initTime`, `solveTime`); plus
`killed` (1 when the backstop fired).

Limits: one process (compiling the model, then the solver's) per solve: about 0.1 s CPU a
9x9 puzzle whatever its difficulty, so this backend measures a modelling tool chain, not a
search. Any shape; the 25x25 test grid takes 0.4-0.55 s CPU, nearly all of it compiling.

Roads not taken: the `minizinc` Python package (a wrapper that starts the same executable);
compiling once per shape to FlatZinc and passing the givens to the solver directly (faster,
but then it is Gecode's FlatZinc interpreter being measured, not MiniZinc).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from sudokubench.backend import BaseBackend, Deadline, SolveResult, make_result
from sudokubench.grid import Grid

__all__ = ["GRACE", "MiniZinc", "SolverInfo", "solvers", "usable"]

#: Seconds past the deadline before the process group is killed. MiniZinc stops itself at
#: its time limit, but at load 10 on 2 cores it ended 0.15-0.25 s late and a killed group took
#: up to 0.24 s more to close its pipes, so waiting longer overran a 0.3 s timeout by 0.5 s.
GRACE = 0.1
#: Seconds a timed-out run's solutions are read for at least, once the run has ended.
MIN_READ = 0.05
#: The solvers measured here, with their `practical_n`.
MEASURED = {"gecode": 25}
INSTALL_HINT = "apt-get install minizinc (Debian, Ubuntu), or the bundle from minizinc.org"


@dataclass(frozen=True)
class SolverInfo:
    """A solver `minizinc --solvers-json` lists: its id, name, version, and flags it takes."""

    id: str
    name: str
    version: str
    flags: tuple[str, ...] = ()


@cache
def solvers() -> dict[str, SolverInfo]:
    """The solvers the installed `minizinc` can run here, by variant name; {} without it."""
    executable = shutil.which("minizinc")
    if executable is None:
        return {}
    try:
        done = subprocess.run(
            [executable, "--solvers-json"], capture_output=True, text=True, timeout=30, check=True
        )
        listed = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}
    return usable(listed)


def usable(listed: list[dict[str, Any]]) -> dict[str, SolverInfo]:
    """The solvers of `minizinc --solvers-json` this backend runs, by variant (module doc)."""
    found = {}
    for entry in listed:
        tags = set(entry.get("tags", ()))
        if entry.get("isGUIApplication") or entry.get("requiredFlags") or not tags & {"cp", "mip"}:
            continue
        variant = entry["id"].rsplit(".", 1)[-1]
        flags = tuple(entry.get("stdFlags", ()))
        found[variant] = SolverInfo(entry["id"], entry["name"], entry["version"], flags)
    return found


def discover() -> tuple[str, ...]:
    """The variant names for the registry: every solver `solvers()` finds."""
    return tuple(solvers())


@dataclass
class _Outcome:
    """What one run of `minizinc` gave back."""

    solutions: list[Grid] = field(default_factory=list)
    status: str | None = None
    stats: dict[str, int | float] = field(default_factory=dict)


@dataclass(frozen=True)
class _Command:
    """A `minizinc` command line and the solution limit it was made for."""

    argv: list[str]
    limit: int


class MiniZinc(BaseBackend):
    """The MiniZinc model on one FlatZinc solver, through the `minizinc` executable."""

    install_hint: ClassVar[str] = INSTALL_HINT
    handles_hard: ClassVar[bool] = True

    def __init__(self, solver: str = "gecode") -> None:
        self.solver = solver
        self.name = f"minizinc:{solver}"
        self.practical_n = MEASURED.get(solver, 9)

    def available(self) -> bool:
        """Whether `minizinc` is installed and lists this solver."""
        return self.solver in solvers()

    def unavailable_reason(self) -> str:
        """Why the backend cannot run, with the fix."""
        if self.available():
            return ""
        if shutil.which("minizinc") is None:
            return f"needs the minizinc executable; install it with: {INSTALL_HINT}"
        return f"minizinc here does not list the solver {self.solver!r} (minizinc --solvers)"

    def version(self) -> str | None:
        """The solver's version as MiniZinc lists it ("6.2.0"; the compiler's own is what
        `minizinc --version` says)."""
        info = solvers().get(self.solver)
        return None if info is None else info.version

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        start = time.perf_counter()
        command = self._model(puzzle, limit)
        built = time.perf_counter()
        timeout = deadline.remaining()
        outcome = self._search(puzzle, command, timeout)
        searched = time.perf_counter()
        finished, timed_out = _ending(outcome, limit, timeout is not None)
        return make_result(
            self.name,
            outcome.solutions[:limit],
            finished=finished,
            timed_out=timed_out,
            encode_s=built - start,
            solve_s=searched - built,
            stats=outcome.stats,
        )

    def _model(self, puzzle: Grid, limit: int) -> _Command:
        """The `minizinc` command line for `puzzle` (the model, the puzzle as data, the limit)."""
        info = solvers().get(self.solver)
        if info is None:
            raise RuntimeError(self.unavailable_reason())
        shape = puzzle.shape
        givens = ",".join(map(str, puzzle.cells))
        data = (
            f"box_rows = {shape.box_rows}; box_cols = {shape.box_cols}; "
            f"givens = array2d(1..{shape.n}, 1..{shape.n}, [{givens}]);"
        )
        model = resources.files("sudokubench.encodings").joinpath("sudoku.mzn")
        command = ["minizinc", "--solver", info.id, "--json-stream", "--statistics"]
        if limit > 1:
            many = "-n" in info.flags and limit < 2**31
            command += ["-n", str(limit)] if many else ["-a"]
        return _Command([*command, str(model), "-D", data], limit)

    def _search(self, puzzle: Grid, command: _Command, timeout: float | None) -> _Outcome:
        """Run `command` within `timeout` seconds and read what it printed."""
        argv = command.argv
        if timeout is not None:
            argv = [*argv, "--time-limit", str(max(1, round(timeout * 1000)))]
        start = time.perf_counter()
        process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so the solver MiniZinc starts is killed with it
        )
        killed = False
        try:
            out, err = process.communicate(timeout=None if timeout is None else timeout + GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            killed = True
        finally:
            if process.poll() is None:  # interrupted: leave no solver running
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        stop_at = None
        if timeout is not None:
            stop_at = max(start + timeout + GRACE, time.perf_counter() + MIN_READ)
        outcome = _read(puzzle, out, command.limit, partial=killed, stop_at=stop_at)
        outcome.stats["killed"] = int(killed)
        if killed:
            outcome.status = "KILLED"
        elif outcome.status is None and process.returncode and not outcome.solutions:
            raise RuntimeError(f"minizinc failed: {err.strip() or process.returncode}")
        return outcome


def _read(
    puzzle: Grid, out: str, limit: int, *, partial: bool, stop_at: float | None = None
) -> _Outcome:
    """The solutions (at most `limit`), final status and statistics in MiniZinc's JSON stream.

    A run that stopped early with fewer than `limit` solutions timed out: its solutions are
    read only until `stop_at`, since a timed-out result keeps those found so far and reading
    thousands more (some 100 us each) overran the deadline by most of a second under load.
    """
    outcome = _Outcome()
    lines = [line for line in out.splitlines() if line.strip()]
    solutions = []
    for i, line in enumerate(lines):
        try:
            message = json.loads(line)
        except ValueError:
            if partial and i == len(lines) - 1:  # cut off by the kill
                break
            raise RuntimeError(f"minizinc printed {line[:80]!r}, not JSON") from None
        kind = message.get("type")
        if kind == "solution":
            solutions.append(message["output"]["default"])
        elif kind == "status":
            outcome.status = message["status"]
        elif kind == "statistics":
            outcome.stats.update(
                (key, value)
                for key, value in message["statistics"].items()
                if isinstance(value, int | float) and not isinstance(value, bool)
            )
        elif kind == "error":
            raise RuntimeError(f"minizinc: {message.get('message', message)}")
    ended = outcome.status in ("ALL_SOLUTIONS", "UNSATISFIABLE") or len(solutions) >= limit
    for text in solutions[:limit]:
        if not ended and stop_at is not None and time.perf_counter() > stop_at:
            break
        outcome.solutions.append(Grid(puzzle.shape, tuple(int(d) for d in text.split(","))))
    return outcome


def _ending(outcome: _Outcome, limit: int, timed: bool) -> tuple[bool, bool]:
    """(finished, timed_out) for every status MiniZinc gives a satisfaction model."""
    status, found = outcome.status, len(outcome.solutions)
    if status in ("ALL_SOLUTIONS", "UNSATISFIABLE"):
        return True, False
    if status in (None, "SATISFIED", "KILLED") and found >= limit:  # the limit stopped it
        return False, False
    if status in (None, "SATISFIED", "UNKNOWN", "KILLED") and timed:
        return False, True
    raise RuntimeError(f"minizinc ended with the status {status or 'none'} ({found} solutions)")
