"""Rating a puzzle by the human techniques it needs: a level, a score, and the logged steps.

The rater solves the puzzle the way a person would: at every step it applies the **simplest
technique that makes progress** (the order of `TECHNIQUES`), logs the `Step`, and starts again
from the simplest. When nothing applies it guesses (the cell with the fewest candidates gets its
digit from the solution, which the uniqueness proof provides).

Levels follow QQWing's scheme, extended with fish and wings; a puzzle's level is that of the
hardest technique it needed:

| level  | techniques (each level adds to the ones before) | weight per use |
|--------|--------------------------------------------------|----------------|
| simple | naked single                                     | 1              |
| easy   | hidden single                                    | 2              |
| medium | pointing pair/triple, box/line reduction         | 10, 10         |
|        | naked pair, hidden pair, naked triple, hidden triple | 15, 20, 25, 30 |
| hard   | X-Wing, XY-Wing, Swordfish                       | 50, 60, 80     |
| expert | guess (no technique above applies)               | 200            |

The **score** is the sum of the weights of every step taken, so it grows both with the hardest
technique and with how often the harder ones were needed; the level alone says which
techniques suffice. Only unique puzzles are rated: `rate` refuses conflicting givens, no
solution, or several solutions (a `RatingError` with one clear line).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sudokubench.backend import Backend, Status
from sudokubench.generate.techniques import FINDERS, Board, Step
from sudokubench.grid import Grid
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

__all__ = ["TECHNIQUES", "Level", "Rating", "RatingError", "Technique", "rate", "rate_with"]


class Level(enum.IntEnum):
    """Difficulty levels, in order; `str(level)` is its lower-case name."""

    SIMPLE = 1
    EASY = 2
    MEDIUM = 3
    HARD = 4
    EXPERT = 5

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Level:
        """`simple`, `easy`, `medium`, `hard` or `expert` (any case)."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            known = ", ".join(str(level) for level in cls)
            raise ValueError(f"unknown difficulty {text!r} (known: {known})") from None


@dataclass(frozen=True)
class Technique:
    """A technique's key, its name for people, its level and its weight in the score."""

    key: str
    title: str
    level: Level
    weight: int
    find: Callable[[Board], Step | None]


def _technique(key: str, title: str, level: Level, weight: int) -> Technique:
    return Technique(key, title, level, weight, FINDERS[key])


#: The techniques in the order the rater tries them (simplest first).
TECHNIQUES: tuple[Technique, ...] = (
    _technique("naked_single", "naked single", Level.SIMPLE, 1),
    _technique("hidden_single", "hidden single", Level.EASY, 2),
    _technique("pointing_pair", "pointing pair", Level.MEDIUM, 10),
    _technique("box_line_reduction", "box/line reduction", Level.MEDIUM, 10),
    _technique("naked_pair", "naked pair", Level.MEDIUM, 15),
    _technique("hidden_pair", "hidden pair", Level.MEDIUM, 20),
    _technique("naked_triple", "naked triple", Level.MEDIUM, 25),
    _technique("hidden_triple", "hidden triple", Level.MEDIUM, 30),
    _technique("x_wing", "X-Wing", Level.HARD, 50),
    _technique("xy_wing", "XY-Wing", Level.HARD, 60),
    _technique("swordfish", "Swordfish", Level.HARD, 80),
    _technique("guess", "guess", Level.EXPERT, 200),
)

_BY_KEY = {t.key: t for t in TECHNIQUES}


class RatingError(ValueError):
    """A puzzle that cannot be rated: conflicting givens, no solution, or not unique."""


@dataclass(frozen=True)
class Rating:
    """The verdict: level, score, how often each technique was used, and every step."""

    level: Level
    score: int
    techniques: Mapping[str, int]
    steps: tuple[Step, ...]
    solution: Grid

    def __post_init__(self) -> None:
        if not isinstance(self.techniques, MappingProxyType):
            object.__setattr__(self, "techniques", MappingProxyType(dict(self.techniques)))

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle the counts as a dict (worker processes send ratings back)."""
        fields = (self.level, self.score, dict(self.techniques), self.steps, self.solution)
        return (Rating, fields)

    def to_json(self) -> dict[str, object]:
        """`{"level": "hard", "score": 412, "techniques": {"naked_single": 40, ...}}`."""
        return {"level": str(self.level), "score": self.score, "techniques": dict(self.techniques)}


def rate_with(puzzle: Grid, solution: Grid) -> Rating:
    """Rate a unique puzzle whose solution is known (no backend call).

    Every step is checked against the solution: a technique that removed the solution's digit
    or placed another would be a bug, and raises AssertionError rather than rate wrongly.
    """
    board = Board(puzzle, solution)
    steps: list[Step] = []
    while not board.solved():
        for technique in TECHNIQUES:
            step = technique.find(board)
            if step is not None:
                break
        else:  # pragma: no cover - guess always applies while a cell is open
            raise AssertionError("no technique and no guess applies")
        if step.placement is not None and solution[step.placement[0]] != step.placement[1]:
            raise AssertionError(f"{step.technique} contradicts the solution: {step.text}")
        if any(solution[k] == d for k, d in step.eliminations):
            raise AssertionError(f"{step.technique} removes a solution digit: {step.text}")
        board.apply(step)
        steps.append(step)
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.technique] = counts.get(step.technique, 0) + 1
    used = {t.key: counts[t.key] for t in TECHNIQUES if t.key in counts}
    level = max((_BY_KEY[key].level for key in used), default=Level.SIMPLE)
    score = sum(_BY_KEY[key].weight * times for key, times in used.items())
    return Rating(level, score, used, tuple(steps), solution)


def rate(puzzle: Grid, backend: str | Backend = DEFAULT_BACKEND) -> Rating:
    """Rate `puzzle`; RatingError if its givens conflict or it has no or several solutions."""
    conflicts = puzzle.conflicts()
    if conflicts:
        raise RatingError(f"conflicting givens: {conflicts[0].describe(puzzle.shape)}")
    solver = get_backend(backend) if isinstance(backend, str) else backend
    result = solver.solve(puzzle, limit=2)
    if result.status is Status.UNSATISFIABLE:
        raise RatingError("the puzzle has no solution")
    if result.status is not Status.SOLVED:
        raise RatingError(f"backend {solver.name} could not count the solutions: {result.status}")
    if result.count > 1:
        raise RatingError("the puzzle is not unique: it has at least 2 solutions")
    return rate_with(puzzle, result.solutions[0])
