"""Puzzle generation and rating: complete grids, unique puzzles dug from them, human ratings.

- `grids.random_solution(shape, seed)`: a random complete grid (randomized search that always
  completes).
- `dig.make_puzzle(shape, seed, symmetry=..., minimal=..., clues=...)`: a unique puzzle and its
  solution; uniqueness is proved by a registered counting backend (default "fast").
- `rating.rate(puzzle)`: level (simple, easy, medium, hard, unfair, expert), score, technique
  counts and every logged step.
- `generate_puzzles(...)`: puzzles of one level, reproducible from a seed with any number of
  worker processes.
"""

from sudokubench.generate.digging import (
    GenerationError,
    Symmetry,
    dig,
    is_minimal,
    is_symmetric,
    is_unique,
    make_puzzle,
)
from sudokubench.generate.grids import random_solution
from sudokubench.generate.rating import Level, Rating, RatingError, rate, rate_with
from sudokubench.generate.techniques import Step

__all__ = [
    "GenerationError",
    "Level",
    "Rating",
    "RatingError",
    "Step",
    "Symmetry",
    "dig",
    "is_minimal",
    "is_symmetric",
    "is_unique",
    "make_puzzle",
    "random_solution",
    "rate",
    "rate_with",
]
