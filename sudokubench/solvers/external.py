"""Users' own solvers written in Python: `adapt` and `FunctionBackend`.

`adapt(obj, name)` turns what `module:attr` or an entry point of the group `sudokubench.backends`
names into a Backend:

- a Backend class: instantiated with no arguments;
- a Backend instance (anything with `solve(puzzle, *, limit, timeout)`): used as it is; missing
  `name`, `available` or `version` are supplied;
- a plain function `puzzle(Grid) -> Grid | None`: wrapped in `FunctionBackend`. A grid means
  SOLVED with one solution and a count that is not exhaustive (the function cannot say whether
  there are others); `None` means the function claims the puzzle has **no solution**, so it
  becomes UNSATISFIABLE and takes part in the vote like any other "no solution" answer. The
  function may also return the solution as a line string or a flat sequence of digits.

Programs in any language (`exec:COMMAND`) are `ExecBackend`, in `program.py` (re-exported
here, imported on first use: the worker pool's fork server imports this module for every
worker, and a worker runs a program only for an `exec:` backend).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sudokubench.backend import Backend, BaseBackend, Deadline, SolveResult, Status, make_result
from sudokubench.formats import parse_grid
from sudokubench.grid import Grid

if TYPE_CHECKING:
    from sudokubench.solvers.program import ExecBackend

__all__ = ["ExecBackend", "FunctionBackend", "adapt"]


def __getattr__(name: str) -> Any:
    """`ExecBackend`, from `program.py`, imported now (PEP 562)."""
    if name == "ExecBackend":
        from sudokubench.solvers.program import ExecBackend

        return ExecBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def adapt(obj: object, name: str) -> Backend:
    """The Backend for a class, an instance or a plain function named `name` (see module doc).

    UnknownBackendError when `obj` is none of those or the class needs constructor arguments.
    """
    from sudokubench.errors import UnknownBackendError

    if isinstance(obj, type):
        try:
            obj = obj()
        except TypeError as exc:
            raise UnknownBackendError(
                f"backend {name!r}: cannot instantiate {obj.__name__}: {exc}"
            ) from None
    solve = getattr(obj, "solve", None)
    if callable(solve):
        if isinstance(obj, Backend):
            return obj
        return _Completed(obj, name)
    if callable(obj):
        return FunctionBackend(obj, name)  # type: ignore[arg-type]
    raise UnknownBackendError(
        f"backend {name!r}: {type(obj).__name__} is neither a Backend nor a function puzzle -> grid"
    )


def _module_version(obj: object) -> str | None:
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    top = sys.modules.get((getattr(module, "__name__", "") or "").partition(".")[0])
    version = getattr(module, "__version__", None) or getattr(top, "__version__", None)
    return str(version) if version is not None else None


class _Completed:
    """An object with `solve` that lacks the rest of the Backend protocol."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", None) or name

    def available(self) -> bool:
        """What the object says, else True."""
        probe = getattr(self.inner, "available", None)
        return bool(probe()) if callable(probe) else True

    def unavailable_reason(self) -> str:
        """What the object says, else a generic reason when it is not available."""
        probe = getattr(self.inner, "unavailable_reason", None)
        if callable(probe):
            return str(probe())
        return "" if self.available() else "the plug-in says it is not available"

    def version(self) -> str | None:
        """What the object says, else its module's `__version__`."""
        probe = getattr(self.inner, "version", None)
        return probe() if callable(probe) else _module_version(self.inner)

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """The object's own answer."""
        return self.inner.solve(puzzle, limit=limit, timeout=timeout)


def _as_grid(answer: object, puzzle: Grid) -> Grid:
    """A function's or program's answer as a grid of the puzzle's shape."""
    if isinstance(answer, Grid):
        return answer
    if isinstance(answer, str):
        return parse_grid(answer, puzzle.shape)
    if isinstance(answer, Sequence):
        return Grid(puzzle.shape, tuple(int(d) for d in answer))
    raise TypeError(f"returned {type(answer).__name__}, expected a Grid, a line or None")


class FunctionBackend(BaseBackend):
    """A plain function puzzle -> solution (None = no solution) as a Backend.

    The function runs to its end even past `timeout` (a Python call cannot be interrupted from
    inside its own thread); an answer that comes late is returned as TIMEOUT, keeping the
    solution if there was one. Under the harness the worker is killed at timeout + grace.
    Conflicting givens are passed to the function too: what it says about them is part of what
    a comparison checks.
    """

    def __init__(self, function: Callable[[Grid], object], name: str) -> None:
        self.function = function
        self.name = name

    def version(self) -> str | None:
        """The `__version__` of the function's module or package, if any."""
        return _module_version(self.function)

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Call the function once; see the class docstring for how its answer is read."""
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        deadline = Deadline(timeout)
        start = time.perf_counter()
        try:
            answer = self.function(puzzle)
            solutions = [] if answer is None else [_as_grid(answer, puzzle)]
        except Exception as exc:
            return SolveResult(self.name, Status.ERROR, message=f"{type(exc).__name__}: {exc}")
        solve_s = time.perf_counter() - start
        late = deadline.expired()
        message = f"answered after {solve_s:.2f} s, past the timeout" if late else ""
        return make_result(
            self.name,
            solutions,
            finished=answer is None,
            timed_out=late,
            solve_s=solve_s,
            message=message,
        )
