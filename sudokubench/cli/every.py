"""`solve --all`: every solution, printed as it is found.

A grid with few givens has more solutions than could ever be printed (the empty 9x9 grid has
6,670,903,752,021,072,936,960), and `backend.solve(limit=...)` returns its solutions only at the
end, so `solve --all` would grow its memory in silence. Here instead:

- **It says so first.** When the `native` backend runs here, Knuth's estimate of the number of
  solutions (`ESTIMATE_PROBES` random probes, a fraction of a second) is taken; above `MANY`,
  a warning on stderr says that `--all` cannot finish, with the estimate.
- **It streams.** A backend written as a search generator (`backend.Streaming`: `fast`,
  `backtracking`, `dlx`, ...) prints each solution as it comes, checked with the independent
  checker, and keeps none of them. Another backend keeps its solutions until it returns: with
  one, a grid over `MANY` is refused (exit 2) rather than filling the memory; use a streaming
  backend, `--limit N`, or `count --all` (counts without keeping).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sudokubench.backend import Backend, Deadline, DeadlineExceeded, Status, Streaming
from sudokubench.cli.app import UsageFailure
from sudokubench.formats import PuzzleRecord
from sudokubench.grid import Grid, solution_problem

__all__ = ["MANY", "Streamed", "stream_all", "too_many"]

#: Solutions past which `--all` cannot finish: a billion grids printed take hours and more
#: disk than any terminal holds.
MANY = 10**9
#: Probes of Knuth's estimator before `--all` (most are cut short: a few ms on a unique grid).
ESTIMATE_PROBES = 4000


def too_many(record: PuzzleRecord, backend: Backend) -> bool:
    """Whether the estimate says `record` has more than `MANY` solutions (False when the
    `native` backend cannot estimate here); warns on stderr, or refuses a backend that keeps
    its solutions (UsageFailure)."""
    from sudokubench.solvers import get_backend

    native = get_backend("native")
    if not native.available():
        return False
    estimate = native.estimate(record.puzzle, seconds=1.0, probes=ESTIMATE_PROBES)  # type: ignore[attr-defined]
    if estimate.mean <= MANY:
        return False
    about = f"{record.id}: about {estimate.mean:.3g} solutions (Knuth's estimate)"
    if not isinstance(backend, Streaming):
        raise UsageFailure(
            f"{about}: --all with {backend.name}, which keeps every solution until it "
            "returns, cannot finish: use --limit N, a streaming backend (fast), or count --all"
        )
    print(
        f"sudokubench: warning: {about}: --all cannot finish; printing them as they are "
        "found (Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    return True


class Streamed:
    """What `stream_all` printed: how many solutions, how many wrong, how it ended."""

    def __init__(self) -> None:
        self.count = 0
        self.wrong = 0
        self.status = Status.UNSATISFIABLE
        self.message = ""


def stream_all(
    backend: Streaming,
    record: PuzzleRecord,
    show: Callable[[int, Grid], None],
    timeout: float | None,
) -> Streamed:
    """Every solution of `record` (its givens do not conflict) from `backend.search`, each
    passed to `show` with its number and checked as it comes; none kept."""
    puzzle = record.puzzle
    done = Streamed()
    solutions = backend.search(puzzle, Deadline(timeout), {})
    try:
        while True:
            try:  # (only the backend's errors: a closed stdout in `show` is not one)
                solution = next(solutions)
            except StopIteration:
                done.status = Status.SOLVED if done.count else Status.UNSATISFIABLE
                return done
            except DeadlineExceeded:
                done.status = Status.TIMEOUT
                return done
            except Exception as exc:  # a backend failure ends this puzzle, as in `run_backend`
                done.status, done.message = Status.ERROR, f"{type(exc).__name__}: {exc}"
                return done
            done.count += 1
            show(done.count, solution)
            if (why := solution_problem(solution, puzzle)) is not None:
                done.wrong += 1
                print(
                    f"sudokubench: {record.id}: WRONG: solution #{done.count} of "
                    f"{backend.name}: {why}",
                    file=sys.stderr,
                )
    finally:
        solutions.close()
