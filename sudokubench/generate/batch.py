"""Many puzzles at once: one level kept, reproducible from one seed with any number of workers.

Attempt number j (0, 1, 2, ...) draws its grid and its digging order from its own generator,
seeded with the text `"{seed}:{j}"` (Python seeds a `random.Random` from a string through
SHA-512, so this is stable across runs, platforms and `PYTHONHASHSEED`). Each attempt makes one
unique puzzle and rates it; `generate_puzzles` yields the kept ones in attempt order. Workers
(`jobs > 1`) run attempts in fixed-size batches and the results are read back in attempt
order, so the output depends on the seed and the options only, never on `jobs`.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from sudokubench.generate.digging import GenerationError, Symmetry, make_puzzle
from sudokubench.generate.grids import random_solution
from sudokubench.generate.rating import Level, Rating, rate_with
from sudokubench.grid import Grid, Shape
from sudokubench.solvers import DEFAULT_BACKEND

__all__ = ["Generated", "Request", "attempt", "complete_grids", "generate_puzzles", "new_seed"]

#: Attempts per wanted puzzle before `generate_puzzles` gives up on a level.
ATTEMPTS_PER_PUZZLE = 500


@dataclass(frozen=True)
class Request:
    """What to generate (everything but the count and the seed)."""

    shape: Shape
    level: Level | None = None
    symmetry: Symmetry = Symmetry.NONE
    minimal: bool = False
    clues: int | None = None
    backend: str = DEFAULT_BACKEND


@dataclass(frozen=True)
class Generated:
    """One attempt's puzzle, its solution and its rating."""

    attempt: int
    puzzle: Grid
    solution: Grid
    rating: Rating

    def annotated(self) -> str:
        """The line `puzzle:1:solution` that `compare` reads."""
        return f"{self.puzzle}:1:{self.solution}"


def new_seed() -> int:
    """A fresh random seed, for runs without --seed."""
    return random.SystemRandom().randrange(2**32)


def attempt(request: Request, seed: int | str, j: int) -> Generated:
    """Attempt number j of the run seeded with `seed`: a unique puzzle, rated."""
    rng = random.Random(f"{seed}:{j}")
    puzzle, solution = make_puzzle(
        request.shape,
        rng,
        symmetry=request.symmetry,
        minimal=request.minimal,
        clues=request.clues,
        backend=request.backend,
    )
    return Generated(j, puzzle, solution, rate_with(puzzle, solution))


def complete_grids(shape: Shape, count: int, seed: int | str) -> Iterator[Grid]:
    """`count` random complete grids; grid j comes from the generator seeded `"{seed}:{j}"`."""
    for j in range(count):
        yield random_solution(shape, random.Random(f"{seed}:{j}"))


def generate_puzzles(
    request: Request,
    count: int,
    seed: int | str,
    *,
    jobs: int = 1,
    max_attempts: int | None = None,
) -> Iterator[Generated]:
    """Yield `count` puzzles of `request.level` (any level if None), in attempt order.

    GenerationError after `max_attempts` attempts (default `ATTEMPTS_PER_PUZZLE` per puzzle)
    without enough puzzles of the level.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    jobs = max(1, min(jobs, os.cpu_count() or 1)) if jobs else 1
    limit = max_attempts if max_attempts is not None else ATTEMPTS_PER_PUZZLE * max(count, 1)
    work = partial(attempt, request, seed)
    found = 0
    pool = multiprocessing.get_context().Pool(jobs) if jobs > 1 else None
    batch = 4 * jobs
    try:
        start = 0
        while found < count and start < limit:
            # Without a level every attempt is kept: make no more than are still wanted.
            size = batch if request.level is not None else min(batch, count - found)
            numbers = range(start, min(start + size, limit))
            results = pool.imap(work, numbers) if pool else map(work, numbers)
            for generated in results:
                if request.level is None or generated.rating.level == request.level:
                    found += 1
                    yield generated
                    if found == count:
                        break
            start = numbers.stop
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    if found < count:
        level = f"{request.level} " if request.level else ""
        raise GenerationError(
            f"found only {found} of {count} {level}puzzles in {limit} attempts"
            + ("" if request.level is None else "; try another difficulty or size")
        )
