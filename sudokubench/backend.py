"""The backend contract: `Backend`, `SolveResult`, `Status`, and the shared limit/timeout helper.

Every backend answers `solve(puzzle, limit=..., timeout=...)` with a frozen `SolveResult`:

- `status`: SOLVED (at least one solution found), UNSATISFIABLE (proved none), TIMEOUT (the
  deadline stopped the search before it ended or reached `limit`; the solutions found so far are
  kept), ERROR (the backend failed; `message` says how).
- `solutions`: at most `limit` grids; `count == len(solutions)`.
- `exhaustive`: the search ran to its end, so `count` is the exact number of solutions. Reaching
  `limit` stops the search, so the count is then only a lower bound (`>= count`).
- `limit=1` solves, `limit=2` proves uniqueness, `limit=N` counts up to N.
- A puzzle whose givens conflict is UNSATISFIABLE without any search.
- `encode_s` / `solve_s`: the backend's own `perf_counter` split between building its model and
  searching; a library's self-reported times go into `stats` only.

Hand-written backends subclass `SearchBackend` and write one generator, `search`, that yields
solutions and calls `deadline.check()` now and then; `collect` turns it into a result. Model
backends that enumerate natively build the result with `make_result` so the invariants are kept
in one place.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Protocol, runtime_checkable

from sudokubench.grid import Grid

__all__ = [
    "Backend",
    "BaseBackend",
    "ContractError",
    "Deadline",
    "DeadlineExceeded",
    "SearchBackend",
    "SolveResult",
    "Status",
    "collect",
    "make_result",
    "package_version",
]

Stats = Mapping[str, int | float]


class Status(enum.StrEnum):
    """How a solve ended. Whether the search finished is `SolveResult.exhaustive`, not a status.

    A `StrEnum`: a status read back from storage or JSON is its value, and equal to it.
    """

    SOLVED = "solved"
    UNSATISFIABLE = "unsatisfiable"
    TIMEOUT = "timeout"
    ERROR = "error"


class ContractError(AssertionError):
    """A backend built a result that breaks the contract's invariants (a bug in the backend)."""


@dataclass(frozen=True)
class SolveResult:
    """What one backend said about one puzzle."""

    backend: str
    status: Status
    solutions: tuple[Grid, ...] = ()
    count: int = 0
    exhaustive: bool = False
    encode_s: float = 0.0
    solve_s: float = 0.0
    stats: Stats = field(default_factory=lambda: MappingProxyType({}))
    message: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            raise ContractError(f"{self.backend}: status {self.status!r} is not a Status")
        if self.count != len(self.solutions):
            raise ContractError(
                f"{self.backend}: count {self.count} != {len(self.solutions)} solutions"
            )
        if self.status is Status.UNSATISFIABLE and not (self.count == 0 and self.exhaustive):
            raise ContractError(f"{self.backend}: UNSATISFIABLE needs count 0 and exhaustive")
        if self.status is Status.SOLVED and self.count == 0:
            raise ContractError(f"{self.backend}: SOLVED with no solution")
        if self.count == 0 and self.exhaustive and self.status is not Status.UNSATISFIABLE:
            raise ContractError(f"{self.backend}: exhaustive with no solution is UNSATISFIABLE")
        if self.status in (Status.TIMEOUT, Status.ERROR) and self.exhaustive:
            raise ContractError(f"{self.backend}: {self.status.name} cannot be exhaustive")
        if not isinstance(self.stats, MappingProxyType):
            object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))

    @property
    def time_s(self) -> float:
        """Encode plus solve time, as the backend measured it."""
        return self.encode_s + self.solve_s

    @property
    def solution(self) -> Grid | None:
        """The first solution, if any."""
        return self.solutions[0] if self.solutions else None


@runtime_checkable
class Backend(Protocol):
    """What the harness needs of a solver."""

    name: str

    def available(self) -> bool:
        """Whether the backend can run here (its library imports)."""
        ...

    def unavailable_reason(self) -> str:
        """Why `available()` is false, with the fix when there is one; "" when available."""
        ...

    def version(self) -> str | None:
        """The version of the library behind it, if any."""
        ...

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Find up to `limit` solutions of `puzzle` within `timeout` seconds."""
        ...


class DeadlineExceeded(Exception):
    """Raised by `Deadline.check` inside a search; `collect` turns it into a TIMEOUT result."""


class Deadline:
    """A wall-clock deadline that cooperative searches poll cheaply."""

    __slots__ = ("at",)

    def __init__(self, timeout: float | None, start: float | None = None) -> None:
        if timeout is not None and timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout}")
        now = time.perf_counter() if start is None else start
        self.at = float("inf") if timeout is None else now + timeout

    def remaining(self) -> float | None:
        """Seconds left, None when there is no deadline."""
        return None if self.at == float("inf") else max(0.0, self.at - time.perf_counter())

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return time.perf_counter() >= self.at

    def check(self) -> None:
        """Raise DeadlineExceeded once the deadline has passed."""
        if time.perf_counter() >= self.at:
            raise DeadlineExceeded


def make_result(
    backend: str,
    solutions: list[Grid] | tuple[Grid, ...],
    *,
    finished: bool,
    timed_out: bool = False,
    encode_s: float = 0.0,
    solve_s: float = 0.0,
    stats: Stats | None = None,
    message: str = "",
) -> SolveResult:
    """The result of a search that found `solutions` and did (`finished`) or did not end."""
    if timed_out:
        status = Status.TIMEOUT
    elif solutions:
        status = Status.SOLVED
    elif finished:
        status = Status.UNSATISFIABLE
    else:
        raise ContractError(f"{backend}: a search that stopped early must have a reason")
    return SolveResult(
        backend=backend,
        status=status,
        solutions=tuple(solutions),
        count=len(solutions),
        exhaustive=finished and not timed_out,
        encode_s=encode_s,
        solve_s=solve_s,
        stats=MappingProxyType(dict(stats or {})),
        message=message,
    )


def collect(
    backend: str,
    solutions: Iterator[Grid],
    limit: int,
    *,
    encode_s: float = 0.0,
    stats: Stats | None = None,
) -> SolveResult:
    """Draw up to `limit` solutions from a search generator; the one limit/timeout helper.

    The generator raises `DeadlineExceeded` (from `Deadline.check`) when time is up. `stats`
    may be the dict the generator updates: it is read after the search stops.
    """
    found: list[Grid] = []
    finished = timed_out = False
    start = time.perf_counter()
    try:
        for solution in solutions:
            found.append(solution)
            if len(found) >= limit:
                break
        else:
            finished = True
    except DeadlineExceeded:
        timed_out = True
    finally:
        close = getattr(solutions, "close", None)
        if close is not None:
            close()
    solve_s = time.perf_counter() - start
    return make_result(
        backend,
        found,
        finished=finished,
        timed_out=timed_out,
        encode_s=encode_s,
        solve_s=solve_s,
        stats=stats,
    )


def package_version(distribution: str) -> str | None:
    """The installed version of a distribution, None if it is not installed."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class BaseBackend:
    """Shared behaviour: argument checks, conflicting givens, errors turned into ERROR results.

    Subclasses set `name` and implement `_solve`. Class attributes declare capabilities that
    tests and the harness read instead of backend names:

    - `practical_n`: the largest N the backend solves typical puzzles of in about a second.
    - `handles_hard`: whether it solves hard 9x9 puzzles (top95) in about a second each.
    - `requires`: the distribution it needs (for `version` and the install hint).
    - `install_hint`: what to run when `available()` is false.
    - `forks_for_timeout`: honouring `timeout` costs a forked child process per solve (the
      library has no interruptible wall-clock limit). A caller that enforces the deadline from
      outside, as the harness does by killing its worker, then passes `timeout=None`.
    - `preload`: a module whose import readies the backend in a fresh process (compiled code
      loaded); the worker pool's fork server imports it once, so the workers forked from it
      start ready and no worker's load limit covers that work.
    """

    name: str = ""
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True
    requires: ClassVar[str | None] = None
    install_hint: ClassVar[str] = ""
    forks_for_timeout: bool = False
    preload: ClassVar[str | None] = None

    def available(self) -> bool:
        """Whether the backend's library imports here."""
        return self.requires is None or package_version(self.requires) is not None

    def unavailable_reason(self) -> str:
        """Why `available()` is false, with the fix."""
        if self.available():
            return ""
        hint = f"; install it with: {self.install_hint}" if self.install_hint else ""
        return f"needs the package {self.requires}{hint}"

    def version(self) -> str | None:
        """The version of the library behind the backend (sudokubench's for hand-written ones)."""
        if not self.requires:  # no need to look through the installed packages' metadata
            from sudokubench._version import __version__

            return __version__
        return package_version(self.requires)

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Find up to `limit` solutions of `puzzle` within `timeout` seconds."""
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        if timeout is not None and timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout!r}")
        if not puzzle.is_valid():
            return make_result(self.name, [], finished=True, message="conflicting givens")
        deadline = Deadline(timeout)
        try:
            return self._solve(puzzle, limit, deadline)
        except DeadlineExceeded:
            return make_result(self.name, [], finished=False, timed_out=True)
        except (ContractError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a backend failure is a result, the run goes on
            return SolveResult(self.name, Status.ERROR, message=f"{type(exc).__name__}: {exc}")

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        raise NotImplementedError


class SearchBackend(BaseBackend):
    """A backend written as one generator of solutions; `collect` applies limit and deadline."""

    def _solve(self, puzzle: Grid, limit: int, deadline: Deadline) -> SolveResult:
        stats: dict[str, int | float] = {}
        return collect(self.name, self.search(puzzle, deadline, stats), limit, stats=stats)

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield the solutions of `puzzle` (its givens do not conflict), updating `stats`."""
        raise NotImplementedError
