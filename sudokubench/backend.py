"""The backend contract: `Backend`, `SolveResult`, `Status`, and the shared limit/timeout helper.

Every backend answers `solve(puzzle, limit=..., timeout=...)` with a frozen `SolveResult`:

- `status`: SOLVED (at least one solution found), UNSATISFIABLE (proved none), TIMEOUT (the
  deadline stopped the search before it ended or reached `limit`; the solutions found so far are
  kept), ERROR (the backend failed; `message` says how).
- `solutions`: at most `limit` grids, at least one when `count >= 1`; `count` is the number
  found, usually `len(solutions)`, more when the backend keeps fewer grids than it counts (a
  `lib:` library gives the first grid only).
- `exhaustive`: the search ran to its end, so `count` is the exact number of solutions. Reaching
  `limit` stops the search, so the count is then only a lower bound (`>= count`).
- `limit=1` solves, `limit=2` proves uniqueness, `limit=N` counts up to N.
- A puzzle whose givens conflict is UNSATISFIABLE without any search.
- `encode_s` / `solve_s`: measured by `timed_call`, never by the backend (the timing rule below);
  a backend's or library's self-reported times go into `stats` only.

**The timing rule**, one for every backend. A solve has three phases, and only the middle one
is timed:

1. `prepare(puzzle, limit)`, untimed: argument checks, the conflicting-givens check, and the
   puzzle turned into exactly what the solving call takes (a model, arrays, a C string). It may
   return a `SolveResult` to end there (conflicting givens: UNSATISFIABLE, nothing timed).
2. `run(prepared, timeout)`, **the timed region**: the solving call and nothing else; the
   deadline starts here. It returns a raw answer in whatever form is cheapest.
3. `answer(prepared, raw)`, untimed: the raw answer turned into a `SolveResult`.

`timed_call` applies the rule: `perf_counter` and `process_time` around `run` only; prepare's
time becomes `encode_s`, run's `solve_s` (the harness's `wall_s`), its CPU time the harness's
`cpu_s`. A backend may also have `bind(prepared, timeout) -> (function, arguments)`, untimed:
the timed region is then exactly `function(*arguments)` (`BaseBackend.bind` gives `run` and
`(prepared, timeout)`); `lib:` binds its C function and its ready C arguments, so its region
is the foreign call alone, with no Python frame of the backend's around it.
`BaseBackend.solve` is `timed_solve`, so a Python caller and the harness get the same numbers.
A backend with `bind` may also have `answer_timed(prepared, raw, encode_s, solve_s)`, untimed:
`answer` with the rule's times in the result, which `timed_solve` then calls instead of copying
`answer`'s result through `stamp` (`native`, whose solve is a few microseconds). A subclass
may write those steps out in its own `solve`, marked `applies_the_rule` (`native`, for its
common call): the harness still times it around `run`.
A backend that only has `solve` (a plug-in instance or function, `exec:`) is timed
around that `solve`: its prepare is the identity. Times a backend puts into its result are kept
in `stats` as `reported_encode_s` / `reported_solve_s`.

Hand-written backends subclass `SearchBackend` and write one generator, `search`, that yields
solutions and calls `deadline.check()` now and then; `collect` turns it into a result. Model
backends that enumerate natively build the result with `make_result` so the invariants are kept
in one place.
"""

from __future__ import annotations

import copy
import enum
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

from sudokubench.grid import Grid

__all__ = [
    "MAX_TIMEOUT",
    "Backend",
    "BaseBackend",
    "ContractError",
    "Count",
    "Deadline",
    "DeadlineExceeded",
    "Phased",
    "SearchBackend",
    "SolveResult",
    "Status",
    "Streaming",
    "Timed",
    "applies_the_rule",
    "check_arguments",
    "collect",
    "make_result",
    "package_version",
    "stamp",
    "timed_call",
    "timed_solve",
]

Stats = Mapping[str, int | float]

#: The `stats` keys that keep the times a backend put into its own result (never the timing).
REPORTED_ENCODE = "reported_encode_s"
REPORTED_SOLVE = "reported_solve_s"

#: The longest timeout any command takes, in seconds (about 11 days): a finite number, so that
#: deadlines, PAR scores and stored JSON stay numbers.
MAX_TIMEOUT = 1e6


class Status(enum.StrEnum):
    """How a solve ended. Whether the search finished is `SolveResult.exhaustive`, not a status.

    A `StrEnum`: a status read back from storage or JSON is its value, and equal to it.
    """

    SOLVED = "solved"
    UNSATISFIABLE = "unsatisfiable"
    TIMEOUT = "timeout"
    ERROR = "error"


_SOLVED, _UNSATISFIABLE = Status.SOLVED, Status.UNSATISFIABLE  # (a global is read faster)
_TIMEOUT, _ERROR = Status.TIMEOUT, Status.ERROR


#: `object.__new__` and `object.__setattr__` as globals: a frozen dataclass's instance made in
#: one step (`SolveResult.checked`), each read a global load rather than an attribute's.
_new_object, _set_attribute = object.__new__, object.__setattr__


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
        status, count, solutions = self.status, self.count, self.solutions
        exhaustive = self.exhaustive
        if not isinstance(status, Status):
            raise ContractError(f"{self.backend}: status {status!r} is not a Status")
        if count < len(solutions) or (count and not solutions):
            raise ContractError(f"{self.backend}: count {count} with {len(solutions)} solutions")
        if status is _UNSATISFIABLE and not (count == 0 and exhaustive):
            raise ContractError(f"{self.backend}: UNSATISFIABLE needs count 0 and exhaustive")
        if status is _SOLVED and count == 0:
            raise ContractError(f"{self.backend}: SOLVED with no solution")
        if count == 0 and exhaustive and status is not _UNSATISFIABLE:
            raise ContractError(f"{self.backend}: exhaustive with no solution is UNSATISFIABLE")
        if exhaustive and (status is _TIMEOUT or status is _ERROR):
            raise ContractError(f"{self.backend}: {status.name} cannot be exhaustive")
        if not isinstance(self.stats, MappingProxyType):
            object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))

    @classmethod
    def checked(
        cls,
        backend: str,
        status: Status,
        solutions: tuple[Grid, ...],
        count: int,
        exhaustive: bool,
        stats: MappingProxyType[str, int | float],
        encode_s: float = 0.0,
        solve_s: float = 0.0,
    ) -> SolveResult:
        """`SolveResult(backend, status, solutions, count, exhaustive, encode_s, solve_s,
        stats)`, with the same checks, for a backend whose answer is on the clock of a Python
        caller (`native`): the dataclass's `__init__` sets each of the nine fields of a frozen
        class through `object.__setattr__`, most of the cost of a result; this sets them at
        once. With the rule's times (`answer_timed`) it is what `stamp` would have copied.

        A SOLVED result with solutions, no more of them than `count`, and its stats already a
        mapping proxy passes every check of `__post_init__` (it fails only an UNSATISFIABLE,
        TIMEOUT or ERROR one's, or one with no solution), so that one is tested inline."""
        result = _new_object(cls)
        _set_attribute(
            result,
            "__dict__",
            {
                "backend": backend,
                "status": status,
                "solutions": solutions,
                "count": count,
                "exhaustive": exhaustive,
                "encode_s": encode_s,
                "solve_s": solve_s,
                "stats": stats,
                "message": "",
            },
        )
        if not (
            status is _SOLVED
            and solutions
            and count >= len(solutions)
            and type(stats) is MappingProxyType
        ):
            result.__post_init__()
        return result

    @property
    def time_s(self) -> float:
        """Encode plus solve time, as the backend measured it."""
        return self.encode_s + self.solve_s

    @property
    def solution(self) -> Grid | None:
        """The first solution, if any."""
        return self.solutions[0] if self.solutions else None


@dataclass(frozen=True)
class Count:
    """A count that keeps only the first few solutions as grids (`count(..., keep=k)`,
    `native`'s `count_all`): `count` solutions found, exact when `exhaustive`; `status` as in
    `SolveResult` (TIMEOUT when the deadline stopped it, SOLVED when it reached its limit)."""

    backend: str
    count: int
    exhaustive: bool
    first: tuple[Grid, ...]
    solve_s: float
    stats: Stats
    status: Status
    message: str = ""


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


@runtime_checkable
class Phased(Protocol):
    """The optional three phases of a solve (see the module docstring): a backend that has them
    is timed around `run` only (or around what its optional `bind` returns); one that has only
    `solve` is timed around `solve`."""

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: checks and the puzzle in the solving call's form, or a final SolveResult."""
        ...

    def run(self, prepared: Any, timeout: float | None) -> Any:
        """Timed: the solving call only, under a deadline that starts here; a raw answer."""
        ...

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        """Untimed: the raw answer as a SolveResult."""
        ...


@runtime_checkable
class Streaming(Protocol):
    """A backend that can hand out its solutions one at a time (`solve --all` streams them):
    every `SearchBackend`, and `fast`."""

    def search(
        self, puzzle: Grid, deadline: Deadline, stats: dict[str, int | float]
    ) -> Iterator[Grid]:
        """Yield the solutions of `puzzle` (its givens do not conflict), updating `stats`."""
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
    may be the dict the generator updates: it is read after the search stops. The search is
    timed by `timed_call` around the backend's `run`, not here.
    """
    found: list[Grid] = []
    finished = timed_out = False
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
    return make_result(
        backend, found, finished=finished, timed_out=timed_out, encode_s=encode_s, stats=stats
    )


def package_version(distribution: str) -> str | None:
    """The installed version of a distribution, None if it is not installed.

    `importlib.metadata.version`'s answer; read first the way it finds it in the usual case
    (`_dist_info_version`: without importing `importlib.metadata`, with `email` and
    `zipfile`, about 30 ms of CPU a command), and through it whenever that case does not
    hold."""
    found = _dist_info_version(distribution)
    if found is not None:
        return found or None
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except (metadata.PackageNotFoundError, KeyError):  # (KeyError: no Version, as the
        return None  # `importlib_metadata` backport, once imported, reads a dist-info)


def _dist_info_version(distribution: str) -> str | None:
    """The version `importlib.metadata.version(distribution)` returns, found as its path
    finder finds it, in the usual case only: "" when no folder of `sys.path` holds the
    distribution's metadata, its `METADATA`'s `Version` when the first folder that holds any
    holds one `.dist-info` of it alone; None (ask `importlib.metadata`) for anything else: an
    import finder of distributions besides the path's, a path entry that is not a folder (a
    zip), several matches in a folder, an `.egg-info` or egg, a header it does not read
    plainly."""
    import os
    import re
    import sys

    if any(
        hasattr(finder, "find_distributions") and finder.__name__ != "PathFinder"
        if isinstance(finder, type)
        else hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    ):
        return None
    # (`importlib.metadata.Prepared.normalize` and `Lookup`'s names)
    wanted = re.sub(r"[-_.]+", "-", distribution).lower().replace("-", "_")
    if not wanted:
        return None
    for root in sys.path:
        if not isinstance(root, str):
            return None
        try:
            children = os.listdir(root or ".")
        except FileNotFoundError:
            continue
        except OSError:
            return None  # (a zip, a file, a folder not readable: importlib's own rules)
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        found = []
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                name = low.rpartition(".")[0].partition("-")[0]
                if re.sub(r"[-_.]+", "-", name).lower().replace("-", "_") == wanted:
                    found.append(child)
        if not found:
            continue
        if len(found) > 1 or not found[0].lower().endswith(".dist-info"):
            return None
        return _metadata_version(os.path.join(root or ".", found[0], "METADATA"))
    return ""


def _metadata_version(where: str) -> str | None:
    """The `Version` header of a `METADATA` file as `email` reads it (the first, its value
    stripped), or None when the file is missing or the header is not a plain one line."""
    try:
        with open(where, encoding="utf-8") as source:
            lines = source.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    for at, line in enumerate(lines):
        if not line.strip():
            return None  # (the headers' end)
        name, colon, value = line.partition(":")
        if colon and name.lower() == "version":
            following = lines[at + 1] if at + 1 < len(lines) else ""
            version = value.strip()
            if following[:1] in (" ", "\t") or not version or value != f" {version}":
                return None
            return version
    return None


class BaseBackend:
    """Shared behaviour: argument checks, conflicting givens, errors turned into ERROR results.

    Subclasses set `name` and implement `_solve` (then all of it is timed, under a deadline
    made by `run`), or override `prepare`, `run` and `answer` to keep conversions out of the
    timed region; `solve` is `timed_solve`. A subclass that overrides `solve` itself is timed
    around it. Class attributes declare capabilities that tests and the harness read instead
    of backend names:

    - `practical_n`: the largest N the backend solves typical puzzles of in about a second.
    - `handles_hard`: whether it solves hard 9x9 puzzles (top95) in about a second each.
    - `practical_count`: about how many solutions it counts in a second. A backend that solves
      again after each solution (a no-good cut, a blocking clause) counts far fewer than one
      that enumerates in one search; tests give it no larger counts.
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
    practical_count: ClassVar[int] = 100_000
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
        """Find up to `limit` solutions of `puzzle` within `timeout` seconds: `timed_solve`,
        whose steps are written here (for any backend as `self`) so that a direct call runs
        no Python function between this one and the backend's phases.

        `stamp(timed_call(..., cpu=False))`; for a backend with `answer_timed` (`native`) the
        same region and the same result without the copy: `timed_call`'s steps inline, its
        clocks that `cpu=False` turns into no-ops left out, and the times handed to the
        backend's `answer_timed`, which builds the result with them (`stamp` would copy it
        only to write them). The timed region is `timed_call`'s: two `perf_counter` reads
        around `function(*arguments)` from `bind`.
        """
        backend = self
        if not _answers_timed(type(backend)):
            return stamp(timed_call(backend, puzzle, limit, timeout, cpu=False))
        if not (type(limit) is int and limit >= 1 and (timeout is None or timeout >= 0)):
            check_arguments(limit, timeout)
        perf_counter = time.perf_counter
        encode_s = solve_s = 0.0
        try:
            start = perf_counter()
            prepared = backend.prepare(puzzle, limit)
            encode_s = perf_counter() - start
            if isinstance(prepared, SolveResult):
                return stamp(_new_tuple(Timed, (prepared, encode_s, 0.0, 0.0, None)))
            function, arguments = backend.bind(prepared, timeout)
            start = perf_counter()
            try:
                raw = function(*arguments)
            finally:
                solve_s = perf_counter() - start
            return backend.answer_timed(prepared, raw, encode_s, solve_s)
        except (ContractError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a backend failure is a result, as in `timed_call`
            return _error(backend, exc, encode_s, solve_s)

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: UNSATISFIABLE for conflicting givens, else `(puzzle, limit)` for `run`."""
        if not puzzle.is_valid():
            return make_result(self.name, [], finished=True, message="conflicting givens")
        return puzzle, limit

    def run(self, prepared: Any, timeout: float | None) -> Any:
        """Timed: `_solve` under a deadline that starts now; a deadline it raises is TIMEOUT."""
        deadline = Deadline(timeout)
        puzzle, limit = prepared
        try:
            return self._solve(puzzle, limit, deadline)
        except DeadlineExceeded:
            return make_result(self.name, [], finished=False, timed_out=True)

    def bind(self, prepared: Any, timeout: float | None) -> tuple[Callable[..., Any], tuple]:
        """Untimed: the timed region as a function and its arguments, `(run, (prepared,
        timeout))` here; a backend overrides it to time a call more direct than `run` that
        gives the same raw answer."""
        return self.run, (prepared, timeout)

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        """Untimed: the result `run` returned, as it is."""
        return raw

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


def check_arguments(limit: int, timeout: float | None) -> None:
    """ValueError unless `limit` is a positive int and `timeout` None or >= 0."""
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    if timeout is not None and timeout < 0:
        raise ValueError(f"timeout must be >= 0, got {timeout!r}")


class Timed(NamedTuple):
    """One solve under the timing rule: what the backend answered, and the harness's clocks."""

    answer: Any  # a SolveResult, or whatever a solve-only plug-in returned
    encode_s: float  # `prepare` (0 for a solve-only backend)
    solve_s: float  # the timed region: `run`, or a solve-only backend's `solve`
    cpu_s: float  # this process's CPU time in the timed region
    wait_s: float | None = None  # seconds it waited for a CPU in the timed region (`waited`)


#: `tuple.__new__`: a `Timed` from all its fields without the named tuple's `__new__` (a
#: Python function: a few tenths of a microsecond a solve, on the clock of a Python caller).
_new_tuple = tuple.__new__


#: The clocks of a caller that reads no CPU time (`cpu=False`) or no wait: `float()` is 0.0 and
#: `NoneType()` is None, each a call into C (a Python function of our own costs a few times
#: as much, four times a solve, and `backend.solve` reads neither clock).
_no_clock = float
_no_wait = type(None)


def _waited(start: float | None, end: float | None, solve_s: float) -> float | None:
    """The wait for a CPU read around a timed region, at most the region's wall time: the
    clocks are read just outside it, and a wait between a read and the region's own clock
    (the thread preempted there, on a busy machine) was not the call's."""
    if start is None or end is None:
        return None
    waited = end - start
    return waited if waited < solve_s else solve_s


@cache
def _phased(kind: type) -> bool:
    """Whether backends of class `kind` are timed around `run` (else around `solve`).

    A `BaseBackend` that overrides `solve` (a program, a plain function) keeps its own path,
    unless its `solve` is marked `applies_the_rule` (the rule's steps written out).
    """
    if issubclass(kind, BaseBackend):
        return kind.solve is BaseBackend.solve or getattr(kind.solve, "applies_the_rule", False)
    return issubclass(kind, Phased)


def applies_the_rule(solve: Callable[..., SolveResult]) -> Callable[..., SolveResult]:
    """Marks a `BaseBackend` subclass's own `solve` as `BaseBackend.solve`'s steps written out
    (the same phases, the same timed region, the same result; `native`'s, for speed on the
    common call): the harness then still times backends of the class around `run` (`_phased`),
    as it would without the override."""
    solve.applies_the_rule = True  # type: ignore[attr-defined]
    return solve


def timed_call(
    backend: Any,
    puzzle: Grid,
    limit: int = 1,
    timeout: float | None = None,
    *,
    cpu: bool = True,
    waited: Any = None,
) -> Timed:
    """Solve `puzzle` with `backend` under the timing rule (module docstring); never times more
    than `run` (or what `bind` gives for it, or a solve-only backend's `solve`). Without `cpu`,
    `cpu_s` is 0 (it costs two system calls, outside the timed region). `waited`, a clock of
    the seconds this thread has waited for a CPU (None where unknown), read just outside the
    timed region, gives `wait_s`.

    The timed region holds `function(*arguments)` and the two clock reads around it, nothing
    else: `bind` and the CPU and wait clocks are read outside it (`python benchmarks/lib.py`
    measures the empty region, the two reads alone).

    ValueError for a bad `limit` or `timeout`. A phased backend's exception is an ERROR answer;
    a solve-only backend's propagates, as its own `solve` would raise it.
    """
    if not (type(limit) is int and limit >= 1 and (timeout is None or timeout >= 0)):
        check_arguments(limit, timeout)  # (which names the bad one; the test above is inline)
    perf_counter = time.perf_counter
    process_time = time.process_time if cpu else _no_clock
    wait = waited or _no_wait
    if not _phased(type(backend)):
        wait_start = wait()
        cpu_start = process_time()
        start = perf_counter()
        answer = backend.solve(puzzle, limit=limit, timeout=timeout)
        solve_s = perf_counter() - start
        cpu_s = process_time() - cpu_start
        return Timed(answer, 0.0, solve_s, cpu_s, _waited(wait_start, wait(), solve_s))
    encode_s = solve_s = cpu_s = 0.0
    try:
        start = perf_counter()
        prepared = backend.prepare(puzzle, limit)
        encode_s = perf_counter() - start
        if isinstance(prepared, SolveResult):
            return Timed(prepared, encode_s, 0.0, 0.0)
        # the timed region as (function, arguments): its `bind`'s, or its `run` with
        # `(prepared, timeout)` when it has no `bind` (a plug-in's own phases)
        bind = getattr(backend, "bind", None)
        function, arguments = (
            (backend.run, (prepared, timeout)) if bind is None else bind(prepared, timeout)
        )
        wait_start = wait()
        cpu_start = process_time()
        start = perf_counter()
        try:
            raw = function(*arguments)
        finally:
            solve_s = perf_counter() - start
            cpu_s = process_time() - cpu_start
            wait_end = wait()
        if wait_start is None or wait_end is None:  # (`_waited`, inline)
            wait_s = None
        else:
            wait_s = wait_end - wait_start
            if not wait_s < solve_s:
                wait_s = solve_s
        answer = backend.answer(prepared, raw)
        return _new_tuple(Timed, (answer, encode_s, solve_s, cpu_s, wait_s))
    except (ContractError, KeyboardInterrupt):
        raise
    except Exception as exc:  # a backend failure is a result, the run goes on
        return Timed(_error(backend, exc, 0.0, 0.0), encode_s, solve_s, cpu_s)


def stamp(timed: Timed) -> SolveResult:
    """The answer of `timed` with the rule's times: `encode_s` and `solve_s` from the harness's
    clocks, the backend's own (if any) kept in `stats` under `REPORTED_ENCODE`/`REPORTED_SOLVE`.

    ContractError when the answer is not a SolveResult.
    """
    result = timed.answer
    if not isinstance(result, SolveResult):
        raise ContractError(f"solve returned {type(result).__name__}, not a SolveResult")
    # A copy with the claims as they are: a lie past SolveResult's checks stays for the
    # harness's checker to name (a plain SolveResult copied without `copy.copy`'s protocol).
    if result.encode_s or result.solve_s:
        stats = {**result.stats, REPORTED_ENCODE: result.encode_s, REPORTED_SOLVE: result.solve_s}
        reported: Stats | None = MappingProxyType(stats)
    else:
        reported = None
    if type(result) is SolveResult:  # the frozen fields written at once, not one by one
        stamped = object.__new__(SolveResult)
        fields = result.__dict__.copy()
        fields["encode_s"] = timed.encode_s
        fields["solve_s"] = timed.solve_s
        if reported is not None:
            fields["stats"] = reported
        object.__setattr__(stamped, "__dict__", fields)
        return stamped
    stamped = copy.copy(result)
    if reported is not None:
        object.__setattr__(stamped, "stats", reported)
    object.__setattr__(stamped, "encode_s", timed.encode_s)
    object.__setattr__(stamped, "solve_s", timed.solve_s)
    return stamped


def _error(backend: Any, exc: Exception, encode_s: float, solve_s: float) -> SolveResult:
    """A phased backend's failure as an ERROR result with the rule's times."""
    message = f"{type(exc).__name__}: {exc}"
    return SolveResult(backend.name, _ERROR, encode_s=encode_s, solve_s=solve_s, message=message)


@cache
def _answers_timed(kind: type) -> bool:
    """Whether `timed_solve` may hand backends of class `kind` the rule's times: phased, with
    a `bind` and an `answer_timed(prepared, raw, encode_s, solve_s)` (module docstring)."""
    return (
        _phased(kind)
        and callable(getattr(kind, "bind", None))
        and (callable(getattr(kind, "answer_timed", None)))
    )


def timed_solve(
    backend: Any, puzzle: Grid, limit: int = 1, timeout: float | None = None
) -> SolveResult:
    """`backend`'s result for `puzzle`, timed by the rule: what `Backend.solve` returns.

    `BaseBackend.solve`'s steps, for any backend (a plug-in's `solve` may be this): `stamp(
    timed_call(..., cpu=False))`, or for a backend with `answer_timed` the same region and
    result without `stamp`'s copy (see there).
    """
    return BaseBackend.solve(backend, puzzle, limit=limit, timeout=timeout)
