"""Puzzles dug out of complete grids: unique, optionally symmetric, minimal, or of a clue count.

Digging starts from a complete grid (its solution) and tries to empty the cells in a random
order, a whole symmetry orbit at a time (one cell, its 180° partner, its four 90° images, its
mirror image or its image across the main diagonal). A removal is kept only if the puzzle still
has exactly one solution, proved by a registered counting backend (`DEFAULT_BACKEND`, "fast",
unless told otherwise). Two proofs are available (`method`):

- `"exclude"` (the default): the puzzle before the removal has one solution S, so any other
  solution of the puzzle after it differs from S in a removed cell. For each removed cell and
  each of its candidates other than its digit in S, ask the backend for one solution of the
  puzzle with that digit placed there (`limit=1`); the removal is kept when every answer is
  UNSATISFIABLE. A removed cell whose only candidate is its own digit needs no solve at all
  (about a third of the removals on 9x9), and each solve, with one more digit placed, fails
  early, by propagation, instead of searching the whole tree as a count must.
- `"count"`: one `solve(puzzle, limit=2)` per removal, kept when the count is 1.

"exclude" is the default: it makes more solves than "count" (about 86 against 52 per 9x9
puzzle) but each is cheaper, and `benchmarks/generate.py`, which digs the same puzzles both
ways, measures it about 1.25x faster on 9x9 and 1.45x on 16x16.

Whatever the method, the finished puzzle is proved once more with `solve(limit=2)`: a backend
that wrongly answers UNSATISFIABLE would otherwise let the dig empty the grid unnoticed.

Fewer givens never remove solutions, so a clue that could not be removed at some point cannot
be removed later either: one pass over all cells without symmetry or a clue target gives a
**minimal** puzzle (every remaining clue is necessary). With a symmetry, whole orbits are
removed, so a single clue of an orbit may still be redundant; `is_minimal` checks each clue and
`make_puzzle(minimal=True)` draws new grids until the symmetric puzzle is also minimal. That is
rare: of 300 dug 9x9 grids, 3 were minimal with rot180, 3 with mirror, 12 with diagonal and none
with rot90 (one rot90 puzzle took 16 s; `MAX_TRIES` bounds the hunt with a GenerationError).
A repair step (swap a redundant orbit for another and dig again) doubled the rot180 rate at 20x
the cost per grid and still found no rot90 puzzle: a road not taken. With a
target clue count the dig stops once the puzzle has that many givens or fewer; with a target
and `minimal`, the dig goes to the end and grids are drawn until one has few enough givens.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable
from dataclasses import dataclass

from sudokubench.backend import Backend, Status
from sudokubench.generate.grids import make_rng, random_solution
from sudokubench.grid import Cell, Grid, Shape
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

__all__ = [
    "METHODS",
    "DigCounters",
    "GenerationError",
    "Symmetry",
    "dig",
    "is_minimal",
    "is_symmetric",
    "is_unique",
    "make_puzzle",
    "orbits",
    "redundant_clues",
    "still_unique",
]

#: The uniqueness proofs `dig` knows.
METHODS = ("exclude", "count")

#: Grids `make_puzzle` tries before giving up on a clue target or symmetric minimality.
MAX_TRIES = 1000


class GenerationError(RuntimeError):
    """The generator cannot meet the request (a backend failed, or a target is out of reach)."""


class Symmetry(enum.Enum):
    """Which clue positions must be filled together (the digits need not match)."""

    NONE = "none"
    ROT180 = "rot180"
    ROT90 = "rot90"
    MIRROR = "mirror"
    DIAGONAL = "diagonal"

    @classmethod
    def parse(cls, text: str) -> Symmetry:
        """`none`, `rot180` (or `180`), `rot90` (or `90`), `mirror`, `diagonal`."""
        aliases = {"180": "rot180", "90": "rot90", "": "none"}
        value = text.strip().lower()
        try:
            return cls(aliases.get(value, value))
        except ValueError:
            known = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown symmetry {text!r} (known: {known})") from None

    def images(self, r: int, c: int, n: int) -> tuple[tuple[int, int], ...]:
        """The positions that go with (r, c) on an n x n grid, (r, c) included."""
        last = n - 1
        if self is Symmetry.ROT180:
            return ((r, c), (last - r, last - c))
        if self is Symmetry.ROT90:
            return ((r, c), (c, last - r), (last - r, last - c), (last - c, r))
        if self is Symmetry.MIRROR:
            return ((r, c), (r, last - c))
        if self is Symmetry.DIAGONAL:
            return ((r, c), (c, r))
        return ((r, c),)


def orbits(shape: Shape, symmetry: Symmetry) -> list[tuple[Cell, ...]]:
    """The cells grouped into symmetry orbits, each sorted, in order of their first cell."""
    n = shape.n
    seen: set[Cell] = set()
    found = []
    for k in range(shape.cells):
        if k in seen:
            continue
        orbit = tuple(sorted({r * n + c for r, c in symmetry.images(k // n, k % n, n)}))
        seen.update(orbit)
        found.append(orbit)
    return found


def is_symmetric(puzzle: Grid, symmetry: Symmetry) -> bool:
    """Whether the givens' positions have `symmetry`."""
    return all(
        len({bool(puzzle[k]) for k in orbit}) == 1 for orbit in orbits(puzzle.shape, symmetry)
    )


@dataclass
class DigCounters:
    """Work done by digging: removals tried and kept, backend solves, cells needing none."""

    tried: int = 0
    kept: int = 0
    solves: int = 0
    free: int = 0


def _backend(backend: str | Backend) -> Backend:
    return get_backend(backend) if isinstance(backend, str) else backend


def _solve(backend: Backend, puzzle: Grid, limit: int, counters: DigCounters) -> int:
    """The backend's count (up to `limit`); GenerationError if it did not finish."""
    counters.solves += 1
    result = backend.solve(puzzle, limit=limit)
    if result.status not in (Status.SOLVED, Status.UNSATISFIABLE):
        raise GenerationError(
            f"backend {backend.name} answered {result.status.value} {result.message}".strip()
        )
    return result.count


def still_unique(
    puzzle: Grid,
    removed: Iterable[Cell],
    solution: Grid,
    backend: Backend,
    counters: DigCounters,
) -> bool:
    """Whether `puzzle` (= a unique puzzle with `removed` emptied) has `solution` only.

    The "exclude" proof: any other solution differs from `solution` in a removed cell.
    """
    for k in removed:
        for d in puzzle.candidates(k):
            if d != solution[k] and _solve(backend, puzzle.with_value(k, d), 1, counters):
                return False
    return True


def is_unique(puzzle: Grid, backend: str | Backend = DEFAULT_BACKEND) -> bool:
    """Whether `puzzle` has exactly one solution (`solve(limit=2)` of the backend)."""
    return _solve(_backend(backend), puzzle, 2, DigCounters()) == 1


def dig(
    solution: Grid,
    seed: int | str | random.Random | None = None,
    *,
    symmetry: Symmetry = Symmetry.NONE,
    clues: int | None = None,
    backend: str | Backend = DEFAULT_BACKEND,
    method: str = "exclude",
    counters: DigCounters | None = None,
) -> Grid:
    """A unique puzzle whose solution is `solution`, emptied one orbit at a time at random.

    Stops early once the puzzle has at most `clues` givens (an orbit of several cells may take
    it a little below); otherwise every orbit is tried
    once (which makes the result minimal when `symmetry` is NONE).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} ({', '.join(METHODS)})")
    if not solution.is_complete() or not solution.is_valid():
        raise ValueError("dig needs a complete valid grid")
    rng = make_rng(seed)
    solver = _backend(backend)
    counters = counters if counters is not None else DigCounters()
    shape = solution.shape
    order = orbits(shape, symmetry)
    rng.shuffle(order)
    cells = list(solution.cells)
    givens = shape.cells
    for orbit in order:
        if clues is not None and givens <= clues:
            break
        counters.tried += 1
        for k in orbit:
            cells[k] = 0
        puzzle = Grid(shape, tuple(cells))
        if all(len(puzzle.candidates(k)) == 1 for k in orbit):
            counters.free += 1
            unique = True
        elif method == "exclude":
            unique = still_unique(puzzle, orbit, solution, solver, counters)
        else:
            unique = _solve(solver, puzzle, 2, counters) == 1
        if unique:
            counters.kept += 1
            givens -= len(orbit)
        else:
            for k in orbit:
                cells[k] = solution[k]
    puzzle = Grid(shape, tuple(cells))
    _confirm(puzzle, solution, solver, counters)
    return puzzle


def _confirm(puzzle: Grid, solution: Grid, backend: Backend, counters: DigCounters) -> None:
    """The final proof, `solve(limit=2)` on the dug puzzle: exactly `solution`, or an error.

    The step-by-step proofs trust every answer of the backend; a backend that wrongly says
    UNSATISFIABLE would let the dig empty the grid. This one count catches that.
    """
    counters.solves += 1
    result = backend.solve(puzzle, limit=2)
    if result.count != 1 or result.solutions[0] != solution:
        found = f">= {result.count}" if result.count == 2 else str(result.count)
        raise GenerationError(
            f"backend {backend.name} is not reliable here: it proved every removal unique, "
            f"but counts {found} solutions ({result.status.value}) for the dug puzzle {puzzle}"
        )


def redundant_clues(
    puzzle: Grid, solution: Grid, backend: str | Backend = DEFAULT_BACKEND
) -> list[Cell]:
    """The givens that can each be removed alone with the solution staying unique."""
    solver = _backend(backend)
    counters = DigCounters()
    found = []
    for k, d in enumerate(puzzle.cells):
        if d and still_unique(puzzle.with_value(k, 0), (k,), solution, solver, counters):
            found.append(k)
    return found


def is_minimal(puzzle: Grid, backend: str | Backend = DEFAULT_BACKEND) -> bool:
    """Whether `puzzle` is unique and every given is necessary for that."""
    solver = _backend(backend)
    result = solver.solve(puzzle, limit=2)
    if result.status is not Status.SOLVED or result.count != 1:
        return False
    return not redundant_clues(puzzle, result.solutions[0], solver)


def make_puzzle(
    shape: Shape,
    seed: int | str | random.Random | None = None,
    *,
    symmetry: Symmetry = Symmetry.NONE,
    minimal: bool = False,
    clues: int | None = None,
    backend: str | Backend = DEFAULT_BACKEND,
    method: str = "exclude",
    counters: DigCounters | None = None,
) -> tuple[Grid, Grid]:
    """A random unique puzzle of `shape` and its solution; the same seed gives the same pair.

    `clues` and `minimal` (with a symmetry) may need several grids:
    after `MAX_TRIES` a GenerationError says how close it came.
    """
    rng = make_rng(seed)
    solver = _backend(backend)
    fewest = shape.cells
    for _ in range(MAX_TRIES):
        solution = random_solution(shape, rng)
        puzzle = dig(
            solution,
            rng,
            symmetry=symmetry,
            clues=None if minimal else clues,
            backend=solver,
            method=method,
            counters=counters,
        )
        fewest = min(fewest, puzzle.givens)
        if clues is not None and puzzle.givens > clues:
            continue
        if minimal and symmetry is not Symmetry.NONE and redundant_clues(puzzle, solution, solver):
            continue
        return puzzle, solution
    wanted = [f"at most {clues} givens"] if clues is not None else []
    if minimal:
        plain = symmetry is Symmetry.NONE
        wanted.append("minimal" if plain else f"minimal with symmetry {symmetry.value}")
    hint = ""
    if minimal and symmetry is not Symmetry.NONE:
        hint = (
            "; strictly minimal symmetric puzzles are rare, and without --minimal no orbit of "
            "clues can be removed"
        )
    raise GenerationError(
        f"no {shape.n}x{shape.n} puzzle {' and '.join(wanted)} in {MAX_TRIES} grids "
        f"(fewest givens: {fewest}){hint}"
    )
