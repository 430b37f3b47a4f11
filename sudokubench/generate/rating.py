"""Rating a puzzle by the human techniques it needs: a level, a score, and the logged steps.

The rater solves the puzzle the way a person would: at every step it applies the **simplest
technique that makes progress** (the order of `TECHNIQUES`), logs the `Step`, and starts again
from the simplest. When no pattern applies, forcing chains and nets follow assumptions round
by round of singles (the shallowest conclusion wins), and when even those find nothing a trial
refutes one candidate by search. The known solution is never read to choose a step; it only
checks each one (no step may remove a solution digit or place another).

Levels follow HoDoKu's order (EASY < MEDIUM < HARD < UNFAIR < EXTREME): `simple` and `easy`
are its EASY, `medium` MEDIUM, `hard` HARD, `unfair` UNFAIR and `expert` EXTREME. A puzzle's
level is that of the hardest technique it needed; the table (key, level, weight) is
`TECHNIQUES` and the "Rating" section of docs/rating.md.

The **score** is the sum over the steps of the technique's weight plus the step's `extra`
(forcing chains and nets: 40 per round of singles beyond the first; a trial: 100 per doubling
of the search nodes it took), so it grows with the hardest technique, with how often the
harder ones were needed, and with how deep the hardest points were. Only unique puzzles are
rated (uniqueness techniques rely on it): `rate` refuses conflicting givens, no solution, or
several solutions (a `RatingError` with one clear line).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sudokubench.backend import Backend, Status
from sudokubench.generate import techniques as t
from sudokubench.generate.techniques import Board, Step
from sudokubench.grid import Grid
from sudokubench.solvers import DEFAULT_BACKEND, get_backend

__all__ = ["TECHNIQUES", "Level", "Rating", "RatingError", "Technique", "rate", "rate_with"]


class Level(enum.IntEnum):
    """Difficulty levels, in order; `str(level)` is its lower-case name."""

    SIMPLE = 1
    EASY = 2
    MEDIUM = 3
    HARD = 4
    UNFAIR = 5
    EXPERT = 6

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Level:
        """`simple`, `easy`, `medium`, `hard`, `unfair` or `expert` (any case)."""
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


_S, _E, _M, _H, _U, _X = (
    Level.SIMPLE,
    Level.EASY,
    Level.MEDIUM,
    Level.HARD,
    Level.UNFAIR,
    Level.EXPERT,
)

#: The techniques in the order the rater tries them (simplest first); a finder that makes
#: steps of several kinds (pointing pair or triple, the types of unique rectangle, finned or
#: sashimi fish, forcing chain or net) is listed once per kind and tried once.
TECHNIQUES: tuple[Technique, ...] = tuple(
    Technique(key, title, level, weight, find)
    for key, title, level, weight, find in (
        ("naked_single", "naked single", _S, 4, t.find_naked_single),
        ("hidden_single", "hidden single", _E, 14, t.find_hidden_single),
        ("pointing_pair", "pointing pair", _M, 50, t.find_pointing),
        ("pointing_triple", "pointing triple", _M, 50, t.find_pointing),
        ("box_line_reduction", "box/line reduction", _M, 50, t.find_box_line),
        ("naked_pair", "naked pair", _M, 60, t.find_naked_pair),
        ("hidden_pair", "hidden pair", _M, 70, t.find_hidden_pair),
        ("naked_triple", "naked triple", _M, 80, t.find_naked_triple),
        ("hidden_triple", "hidden triple", _M, 100, t.find_hidden_triple),
        ("x_wing", "X-Wing", _H, 140, t.find_x_wing),
        ("skyscraper", "skyscraper", _H, 130, t.find_skyscraper),
        ("two_string_kite", "two-string kite", _H, 150, t.find_two_string_kite),
        ("turbot_fish", "turbot fish", _H, 120, t.find_turbot_fish),
        ("empty_rectangle", "empty rectangle", _H, 120, t.find_empty_rectangle),
        ("remote_pair", "remote pair", _H, 110, t.find_remote_pair),
        ("unique_rectangle_1", "unique rectangle type 1", _H, 100, t.find_unique_rectangle),
        ("unique_rectangle_2", "unique rectangle type 2", _H, 100, t.find_unique_rectangle),
        ("unique_rectangle_4", "unique rectangle type 4", _H, 100, t.find_unique_rectangle),
        ("unique_rectangle_3", "unique rectangle type 3", _H, 100, t.find_unique_rectangle),
        ("hidden_rectangle", "hidden rectangle", _H, 100, t.find_hidden_rectangle),
        ("bug_plus_one", "BUG+1", _H, 100, t.find_bug_plus_one),
        ("xy_wing", "XY-Wing", _H, 160, t.find_xy_wing),
        ("w_wing", "W-Wing", _H, 150, t.find_w_wing),
        ("xyz_wing", "XYZ-Wing", _H, 180, t.find_xyz_wing),
        ("swordfish", "Swordfish", _H, 150, t.find_swordfish),
        ("simple_colouring", "simple colouring", _H, 150, t.find_simple_colouring),
        ("finned_x_wing", "finned X-Wing", _H, 130, t.find_finned_x_wing),
        ("sashimi_x_wing", "sashimi X-Wing", _H, 150, t.find_finned_x_wing),
        ("naked_quad", "naked quad", _H, 120, t.find_naked_quad),
        ("hidden_quad", "hidden quad", _H, 150, t.find_hidden_quad),
        ("jellyfish", "Jellyfish", _H, 160, t.find_jellyfish),
        ("finned_swordfish", "finned Swordfish", _U, 200, t.find_finned_swordfish),
        ("sashimi_swordfish", "sashimi Swordfish", _U, 240, t.find_finned_swordfish),
        ("x_chain", "X-chain", _U, 260, t.find_x_chain),
        ("xy_chain", "XY-chain", _U, 260, t.find_xy_chain),
        ("sue_de_coq", "Sue de Coq", _U, 250, t.find_sue_de_coq),
        ("aic", "AIC", _U, 280, t.find_aic),
        ("als_xz", "ALS-XZ", _U, 300, t.find_als_xz),
        ("als_xy_wing", "ALS-XY-Wing", _U, 320, t.find_als_xy_wing),
        ("forcing_chain", "forcing chain", _X, 500, t.find_forcing),
        ("forcing_net", "forcing net", _X, 700, t.find_forcing),
        ("trial", "trial", _X, 1000, t.find_trial),
    )
)

#: Each finder once, in ladder order.
_FINDERS: tuple[Callable[[Board], Step | None], ...] = tuple(
    dict.fromkeys(tech.find for tech in TECHNIQUES)
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

    The techniques never see the solution (the board does not hold it). Every step is checked
    against it: a technique that removed the solution's digit or placed another would be a bug,
    and raises AssertionError rather than rate wrongly.
    """
    board = Board(puzzle)
    steps: list[Step] = []
    while not board.solved():
        for find in _FINDERS:
            step = find(board)
            if step is not None:
                break
        else:  # pragma: no cover - a trial always refutes something in a unique puzzle
            raise AssertionError("no technique applies")
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
    score = sum(_BY_KEY[step.technique].weight + step.extra for step in steps)
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
