"""The timing rule (`sudokubench.backend`): only `run` is timed, by the harness, for everyone.

The fakes here record their own clocks inside each phase and put them into `stats`, so the
tests compare the harness's numbers with what happened around them (no wall-clock bound):
the timed region lies between the end of `prepare` and the start of `answer`, and contains
the whole of `run`. Burned time is the thread's CPU time (`thread_time`), which load does not
inflate and which, unlike the process's, other threads cannot make run ahead of the wall clock.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench.backend import (
    REPORTED_ENCODE,
    REPORTED_SOLVE,
    BaseBackend,
    Deadline,
    SearchBackend,
    SolveResult,
    Status,
    make_result,
    timed_call,
    timed_solve,
)
from sudokubench.grid import Grid, is_solution
from sudokubench.harness.pool.task import Task
from sudokubench.harness.pool.worker import CPU_KEY, run_task

#: CPU seconds that `prepare` and `answer` of `Burner` burn: far above a trivial `run`.
BURN = 0.05
#: The telegram grid with a second 8 in row 1.
CONFLICT = TELEGRAM[:1] + "8" + TELEGRAM[2:]


def burn(seconds: float) -> None:
    """Spin until this process has used `seconds` more CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Burner(BaseBackend):
    """Three phases: `prepare` and `answer` burn `BURN` s of CPU each, `run` only looks the
    answer up; each phase notes its perf_counter so the test can place the timed region."""

    name = "burner"
    runs = 0

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        prepared = super().prepare(puzzle, limit)
        burn(BURN)
        return prepared if isinstance(prepared, SolveResult) else (puzzle, time.perf_counter())

    def run(self, prepared: Any, timeout: float | None) -> Any:
        type(self).runs += 1
        start = time.perf_counter()
        solution = Grid.parse(TELEGRAM_SOLUTION) if prepared[0] == Grid.parse(TELEGRAM) else None
        return solution, start, time.perf_counter()

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        answer_start = time.perf_counter()
        burn(BURN)
        solution, run_start, run_end = raw
        # `gap`: from prepare's end to answer's start; `inside`: run's own span
        stats = {"gap": answer_start - prepared[1], "inside": run_end - run_start}
        return make_result(self.name, [solution], finished=False, stats=stats)


def task(puzzle: str, backend: str = "burner", limit: int = 1, timeout: float = 5.0) -> Task:
    """A measured task of `backend` on `puzzle`."""
    return Task(1, "test:1", puzzle, None, backend, limit, timeout, 0)


def test_solve_times_run_only_and_prepare_as_encode() -> None:
    result = Burner().solve(Grid.parse(TELEGRAM))
    assert result.status is Status.SOLVED and result.solution == Grid.parse(TELEGRAM_SOLUTION)
    assert result.stats["inside"] <= result.solve_s <= result.stats["gap"]
    assert result.encode_s >= BURN  # a wall time that holds BURN s of CPU time


def test_the_harness_times_the_same_region_with_its_cpu_time() -> None:
    outcome = run_task(Burner(), task(TELEGRAM))
    assert outcome.status is Status.SOLVED and outcome.problem is None  # checked sound
    assert outcome.wall_s == outcome.solve_s
    assert outcome.stats["inside"] <= outcome.wall_s <= outcome.stats["gap"]
    assert outcome.encode_s >= BURN
    assert outcome.stats[CPU_KEY] < BURN  # neither prepare's nor answer's burn is in it


def test_solve_and_the_harness_give_the_same_answer() -> None:
    from sudokubench.solvers import get_backend

    backend = get_backend("fast")
    direct = backend.solve(Grid.parse(MULTIPLE), limit=30)
    outcome = run_task(backend, task(MULTIPLE, "fast", limit=30))
    assert (outcome.status, outcome.count, outcome.exhaustive) == (Status.SOLVED, 28, True)
    assert (direct.status, direct.count, direct.exhaustive) == (Status.SOLVED, 28, True)
    assert {Grid.parse(s) for s in outcome.solutions} == set(direct.solutions)


def test_conflicting_givens_end_in_prepare_with_nothing_timed() -> None:
    before = Burner.runs
    timed = timed_call(Burner(), Grid.parse(CONFLICT), 1, None)
    assert timed.answer.status is Status.UNSATISFIABLE and timed.answer.exhaustive
    assert (timed.solve_s, timed.cpu_s) == (0.0, 0.0) and timed.encode_s >= BURN
    assert Burner.runs == before  # run was never called


class Forever(SearchBackend):
    """A search that never ends and polls its deadline; `prepare` burns `BURN` s first."""

    name = "forever"

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        burn(BURN)
        return super().prepare(puzzle, limit)

    def search(self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]) -> Any:
        while True:
            deadline.check()
            yield from ()


def test_the_deadline_starts_with_run_and_is_kept() -> None:
    result = Forever().solve(Grid.parse(TELEGRAM), timeout=0.02)
    assert result.status is Status.TIMEOUT and not result.exhaustive
    assert result.solve_s >= 0.02  # all of the deadline was run's: prepare did not eat it
    outcome = run_task(Forever(), task(TELEGRAM, "forever", timeout=0.02))
    assert outcome.status is Status.TIMEOUT and outcome.wall_s >= 0.02


class Raises(BaseBackend):
    """`run` raises."""

    name = "raises"

    def run(self, prepared: Any, timeout: float | None) -> Any:
        raise RuntimeError("kernel fault")


def test_a_phased_backend_that_raises_is_an_error_result() -> None:
    result = Raises().solve(Grid.parse(TELEGRAM))
    assert (result.status, result.message) == (Status.ERROR, "RuntimeError: kernel fault")


class SolveOnly:
    """A plug-in with only `solve`, reporting times of its own."""

    name = "solve-only"

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        if puzzle == Grid.parse(MULTIPLE):
            raise RuntimeError("plug-in fault")
        solution = Grid.parse(TELEGRAM_SOLUTION)
        return make_result(self.name, [solution], finished=False, encode_s=7.0, solve_s=9.0)


def test_a_solve_only_plugin_is_timed_around_solve_and_keeps_its_times_in_stats() -> None:
    result = timed_solve(SolveOnly(), Grid.parse(TELEGRAM))
    assert is_solution(result.solution, Grid.parse(TELEGRAM))
    assert result.encode_s == 0.0 and 0 < result.solve_s < 7.0
    assert (result.stats[REPORTED_ENCODE], result.stats[REPORTED_SOLVE]) == (7.0, 9.0)
    with pytest.raises(RuntimeError, match="plug-in fault"):  # its own exception, as it is
        timed_call(SolveOnly(), Grid.parse(MULTIPLE))
    outcome = run_task(SolveOnly(), task(MULTIPLE, "solve-only"))
    assert (outcome.status, outcome.message) == (Status.ERROR, "RuntimeError: plug-in fault")


@pytest.mark.parametrize(("limit", "timeout"), [(0, None), (1.5, None), (1, -1.0)])
def test_bad_arguments_are_value_errors(limit: Any, timeout: Any) -> None:
    with pytest.raises(ValueError, match="must be"):
        timed_call(Burner(), Grid.parse(TELEGRAM), limit, timeout)


class Bound(Burner):
    """`bind` gives a function of its own for the timed region (as `lib:` binds its C call):
    `run` is never called by `timed_call`, the bound function's raw answer goes to `answer`."""

    name = "bound"

    def bind(self, prepared: Any, timeout: float | None) -> tuple[Any, tuple]:
        burn(BURN)  # untimed, like prepare
        return self.region, (prepared[0], timeout)

    def region(self, puzzle: Grid, timeout: float | None) -> Any:
        self.called_with = (puzzle, timeout)
        start = time.perf_counter()
        return Grid.parse(TELEGRAM_SOLUTION), start, time.perf_counter()

    def run(self, prepared: Any, timeout: float | None) -> Any:
        raise AssertionError("timed_call must time what bind gives, not run")


def test_the_timed_region_is_what_bind_gives_and_bind_is_untimed() -> None:
    backend = Bound()
    timed = timed_call(backend, Grid.parse(TELEGRAM), 1, 3.0, cpu=True)
    assert backend.called_with == (Grid.parse(TELEGRAM), 3.0)
    result = timed.answer
    assert result.status is Status.SOLVED and result.solution == Grid.parse(TELEGRAM_SOLUTION)
    assert result.stats["inside"] <= timed.solve_s
    assert timed.cpu_s < BURN  # bind's burn is not in the timed region


def test_a_plugin_without_bind_is_timed_around_its_run() -> None:
    class Phases:  # the three phases of a Burner, no BaseBackend and no bind
        name = "phases"

        inner = Burner()

        def prepare(self, puzzle: Grid, limit: int) -> Any:
            return self.inner.prepare(puzzle, limit)

        def run(self, prepared: Any, timeout: float | None) -> Any:
            return self.inner.run(prepared, timeout)

        def answer(self, prepared: Any, raw: Any) -> SolveResult:
            return self.inner.answer(prepared, raw)

    before = Burner.runs
    result = timed_solve(Phases(), Grid.parse(TELEGRAM))
    assert Burner.runs == before + 1 and result.solution == Grid.parse(TELEGRAM_SOLUTION)
    assert result.stats["inside"] <= result.solve_s <= result.stats["gap"]


def test_checked_results_pass_and_fail_the_same_checks_as_the_dataclass() -> None:
    """`SolveResult.checked` (a backend's answer built in one step, with a SOLVED result
    tested inline) accepts exactly the results `SolveResult(...)` accepts, field for field."""
    from dataclasses import fields
    from types import MappingProxyType

    from sudokubench.backend import ContractError

    grid = Grid.parse(TELEGRAM_SOLUTION)
    proxy = MappingProxyType({"nodes": 3})
    cases = [
        (status, solutions, count, exhaustive, stats)
        for status in (*Status, "solved")
        for solutions in ((), (grid,), (grid, grid))
        for count in (0, 1, 2, 3)
        for exhaustive in (False, True)
        for stats in (proxy, {"nodes": 3})
    ]
    accepted = 0
    for status, solutions, count, exhaustive, stats in cases:
        try:
            expected = SolveResult("b", status, solutions, count, exhaustive, 0.5, 0.25, stats)
        except ContractError:
            with pytest.raises(ContractError):
                SolveResult.checked("b", status, solutions, count, exhaustive, stats, 0.5, 0.25)
            continue
        got = SolveResult.checked("b", status, solutions, count, exhaustive, stats, 0.5, 0.25)
        accepted += 1
        assert type(got.stats) is MappingProxyType
        for f in fields(SolveResult):
            assert getattr(got, f.name) == getattr(expected, f.name), f.name
    # SOLVED: 3 counts x 2 exhaustive x 2 stats with one solution, 2 x 2 x 2 with two;
    # UNSATISFIABLE: count 0, exhaustive, no solution (2 stats); TIMEOUT and ERROR: not
    # exhaustive, count 0 with none (2), 1-3 with one (6) or 2-3 with two (4) each.
    assert accepted == 12 + 8 + 2 + 2 * 12


class _SolveOnly:
    """A plug-in with `solve` only (no phases): the whole call is its timed region."""

    name = "solve-only"

    def solve(self, puzzle: Grid, limit: int = 1, timeout: float | None = None) -> SolveResult:
        from sudokubench.solvers import get_backend

        return get_backend("fast").solve(puzzle, limit=limit, timeout=timeout)


@pytest.mark.parametrize("name", ["fast", "solve-only"])
def test_the_wait_for_a_cpu_is_at_most_the_timed_region(name: str) -> None:
    """The wait clock is read just outside the timed region; a wait read there that the
    region's wall time cannot hold (the thread preempted between a read and the region's
    own clock) is cut to that wall time, and a shorter one is kept as read."""
    ticks = iter([0.0, 5.0, 0.0, 1e-9])  # a 5 s wait around the first call, none in the second

    def waited() -> float:
        return next(ticks)

    from sudokubench.solvers import get_backend

    backend = _SolveOnly() if name == "solve-only" else get_backend(name)
    long = timed_call(backend, Grid.parse(TELEGRAM), 2, None, waited=waited)
    assert long.answer.count == 1 and 0.0 < long.wait_s == long.solve_s < 5.0
    short = timed_call(backend, Grid.parse(TELEGRAM), 2, None, waited=waited)
    assert short.wait_s == 1e-9
