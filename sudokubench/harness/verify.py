"""Verdicts and agreement: what the backends said about a puzzle, checked and cross-checked.

Pure functions, no I/O; the harness's core (DESIGN.md, "Verdicts and agreement").

- **Verdict** of one answer: `0` (proved unsatisfiable), `=n` (exhaustive count n), `>=n` (the
  limit or the deadline stopped the search after n solutions: a lower bound), `?` (a timeout or
  an error that found nothing).
- **Checking one answer** (`check_answer`; `check_result` reads the fields from a `SolveResult`
  or an `Outcome`, the one call the worker, the parent and the CLI make): every returned
  solution must pass the independent checker `is_solution` (complete, every unit a permutation,
  the givens kept), the solutions must be different grids, and the count must respect the
  limit and be at least their number, with at least one grid when it is one or more (a
  backend may keep fewer grids than it counts: `lib:` gets the first only). The result is a
  `Voice`: where the answer came from, its verdict, its solutions in canonical line form and
  its `problem` (None when it is sound on its own).
- **Agreement** (`agree`): the voices of one puzzle, one per backend sample plus the expected
  answer of the input file (`expected_voice`), agree when every voice is sound, all exact
  counts are equal, every lower bound `>=n` is at most each exact count, and no exact count is
  smaller than the number of different valid solutions found by everyone together. That last
  rule contains "with count 1 all returned solutions are the same grid", and makes the rule
  objective: verified different solutions are a proven lower bound on the true count.

- **Cross-checking stored rows** (`cross_check`): a puzzle's stored task rows (`voice_of`) in
  task order and the input file's answer (`file_voice`), agreed; what `compare` and `report`
  both call, so they always say the same.

Blame (who is wrong, for the per-backend `wrong` column) is only assigned where it is proven or
where the input file states the answer: a voice whose own answer is broken; an exact count below
the number of verified different solutions (it missed some); and, when the file gives an exact
count that no verified solution refutes, every voice that contradicts it. Two exact counts that
contradict each other with no file to decide are a disagreement with both sides listed and no
one blamed.

**Exit codes** (`exit_code`), shared by `compare`, `report`, `count` and `solve`: 0 when every
task answered (timeouts are results, allowed) and every answer checks out and agrees; 1 for a
wrong answer or a disagreement, and for nothing else; 3 when nothing is wrong but some task
ended in ERROR (a crash, a program that exited without answering), unless the user allows
errors (`--allow-errors`), and when tasks of a run are missing (interrupted, still running,
rows deleted), which no option allows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal, NamedTuple, Protocol

from sudokubench.backend import Status
from sudokubench.formats import parse_grid
from sudokubench.grid import Grid, Shape, solution_line, solution_problem, valid_lines
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.notation import line_digits

__all__ = [
    "EXIT_ERRORS",
    "EXIT_OK",
    "EXIT_WRONG",
    "EXPECTED",
    "UNKNOWN",
    "Problem",
    "PuzzleVerdict",
    "Verdict",
    "Voice",
    "agree",
    "check_answer",
    "claim_problem",
    "exit_code",
    "expected_voice",
    "valid_solution_lines",
    "verdict_of",
]

#: A Status's members as globals (read on every answer: an enum's attribute costs several
#: times a global's).
_SOLVED, _UNSATISFIABLE, _ERROR = Status.SOLVED, Status.UNSATISFIABLE, Status.ERROR
#: `tuple.__new__`: a `Voice` from all its fields without the named tuple's `__new__`.
_new_tuple = tuple.__new__

#: The source name of the input file's expected answer.
EXPECTED = "expected"

#: Every task answered (or timed out) and every answer checks out and agrees.
EXIT_OK = 0
#: A wrong answer or a disagreement.
EXIT_WRONG = 1
#: Nothing wrong, but some task ended in ERROR or has no answer at all.
EXIT_ERRORS = 3


def exit_code(*, wrong: bool, errors: int, allow_errors: bool = False, missing: int = 0) -> int:
    """The exit code of a set of answers: `EXIT_WRONG` for a wrong answer or a disagreement,
    else `EXIT_ERRORS` when tasks are `missing` (an incomplete run is never clean) or when
    `errors` tasks failed (unless `allow_errors`), else `EXIT_OK`."""
    if wrong:
        return EXIT_WRONG
    if missing or (errors and not allow_errors):
        return EXIT_ERRORS
    return EXIT_OK


VerdictKind = Literal["exact", "at_least", "unknown"]


@dataclass(frozen=True, order=True)
class Verdict:
    """What one answer claims about the number of solutions."""

    kind: VerdictKind
    n: int = 0

    def __str__(self) -> str:
        if self.kind == "exact":
            return "0" if self.n == 0 else f"={self.n}"
        if self.kind == "at_least":
            return f">={self.n}"
        return "?"

    @cached_property
    def text(self) -> str:
        """`str(self)`, made once: `_verdict` gives one Verdict a value, whose text a worker
        reads on every answer (`str` calls `__str__`, a Python method, each time)."""
        return str(self)

    @classmethod
    def parse(cls, text: str) -> Verdict:
        """Read `0`, `=n`, `>=n` or `?` back."""
        if text == "?":
            return UNKNOWN
        if text.startswith(">="):
            return cls("at_least", int(text[2:]))
        return cls("exact", int(text.removeprefix("=")))


UNKNOWN = Verdict("unknown")


def verdict_of(status: Status, count: int, exhaustive: bool) -> Verdict:
    """The verdict of a result: exhaustive -> exact; solutions found -> lower bound; else `?`."""
    if status == _ERROR:
        return UNKNOWN
    if exhaustive:
        return _verdict("exact", count)
    if count > 0:
        return _verdict("at_least", count)
    return UNKNOWN


@lru_cache(maxsize=1024)
def _verdict(kind: VerdictKind, n: int) -> Verdict:
    """One Verdict object per value (a run asks for the same few on every task)."""
    return Verdict(kind, n)


class Voice(NamedTuple):
    """One answer about one puzzle: a backend's (one sample) or the input file's (a named tuple:
    a run makes one per task)."""

    source: str
    verdict: Verdict
    solutions: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def sound(self) -> bool:
        """Whether the answer passed every check on its own."""
        return self.problem is None


def check_answer(
    source: str,
    puzzle: Grid,
    *,
    status: Status,
    count: int,
    exhaustive: bool,
    solutions: Sequence[str | Grid],
    limit: int | None = None,
) -> Voice:
    """Check one answer on its own; its solutions (line strings, or the Grids a backend
    returned) come back in canonical line form.

    `problem` says the first thing wrong: a solution that is not a grid of the puzzle's shape,
    one that fails `is_solution` (with the checker's reason), a repeated solution, a count that
    differs from the solutions returned, a count above `limit`, or a status the answer
    contradicts (`claim_problem`).
    """
    return _check(source, puzzle, status, count, exhaustive, solutions, limit)


def _check(
    source: str,
    puzzle: Grid,
    status: Status,
    count: int,
    exhaustive: bool,
    solutions: Sequence[str | Grid],
    limit: int | None,
) -> Voice:
    """`check_answer`, its arguments by position (`check_result` runs on every answer)."""
    verdict = verdict_of(status, count, exhaustive)
    canonical: list[str] = []
    problem: str | None = None
    for i, text in enumerate(solutions, 1):
        if isinstance(text, Grid):
            grid = text
        else:
            try:
                grid = parse_grid(text, puzzle.shape)  # a plain line is read in C
            except ValueError as exc:
                problem = f"solution {i} is not a grid: {exc}"
                break
        line = solution_line(grid, puzzle)  # its canonical line form when it is valid
        if line is None:
            problem = f"solution {i} is wrong: {solution_problem(grid, puzzle)}"
            break
        if line in canonical:
            problem = f"solution {i} repeats solution {canonical.index(line) + 1}"
            break
        canonical.append(line)
    if problem is None:
        if count < len(solutions) or (count and not solutions):
            problem = f"claims {count} solutions but returned {len(solutions)}"
        elif limit is not None and count > limit:
            problem = f"returned {count} solutions, more than the limit {limit}"
        else:
            problem = claim_problem(status, count, exhaustive)
    return _new_tuple(
        Voice, (source, verdict, tuple(canonical) if problem is None else (), problem)
    )


def valid_solution_lines(puzzles: Sequence[str], lines: Sequence[str], shape: Shape) -> bool:
    """Whether each of `lines` is a valid solution of the puzzle line beside it, in its
    canonical line form (what `_check` gives back for it): every puzzle a plain line of
    `shape`'s cells (`Grid.parse` reads it as the same grid), every solution its digits 1..N,
    N at most 9 (so that the line is its canonical form), checked for a whole batch in a few
    C calls (`grid.valid_lines`: every unit complete, every given kept). False when any is
    not, or for another shape: the caller then checks them one by one, to say which and
    why (the parent's check of a plug-in's usual answers, `track.lane_rows`)."""
    n, size = shape.n, shape.cells
    if n > 9 or len(puzzles) != len(lines) or {*map(len, puzzles), *map(len, lines)} != {size}:
        return False
    givens = line_digits("".join(puzzles), n)
    solved = line_digits("".join(lines), n)  # (a blank is 0, which `valid_lines` refuses)
    return givens is not None and solved is not None and valid_lines(solved, givens, shape)


def claim_problem(status: Status, count: int, exhaustive: bool) -> str | None:
    """What the status of an answer contradicts in it (None when nothing): a plug-in can build
    a result past `SolveResult`'s own checks, and a database can be edited, so the claims are
    checked again here; an inconsistent answer is wrong, never solved or unsatisfiable.

    TIMEOUT may be exhaustive: an answer that came after the limit is stored as a TIMEOUT with
    the claims it made (`stats.limited_status`)."""
    if status == _SOLVED:
        return "says solved but returned no solution" if count == 0 else None
    if status == _UNSATISFIABLE:
        if count:
            return f"says unsatisfiable but returned {count} solutions"
        if not exhaustive:
            return "says unsatisfiable but its search was not exhaustive (no proof)"
    if status == _ERROR and exhaustive:
        return "says error but also that its search was exhaustive"
    return None


class Answer(Protocol):
    """What `check_result` reads of an answer: a `SolveResult`, or an executor's `Outcome`."""

    @property
    def status(self) -> Status: ...
    @property
    def count(self) -> int: ...
    @property
    def exhaustive(self) -> bool: ...
    @property
    def solutions(self) -> Sequence[str | Grid]: ...


def check_result(source: str, puzzle: Grid, answer: Answer, limit: int | None) -> Voice:
    """`check_answer` on an answer object (the one call the worker, the parent and the CLI
    make)."""
    return _check(
        source, puzzle, answer.status, answer.count, answer.exhaustive, answer.solutions, limit
    )


def expected_voice(
    puzzle: Grid, expected_count: int | None, expected_solution: Grid | str | None
) -> Voice | None:
    """The input file's answer as one more voice (None when the file states nothing).

    A count is exact; a solution alone says only that the puzzle has at least that one.
    """
    if expected_count is None and expected_solution is None:
        return None
    solutions = () if expected_solution is None else (str(expected_solution),)
    problem = None
    if solutions:
        why = solution_problem(parse_grid(solutions[0], puzzle.shape), puzzle)
        if why is not None:
            problem = f"the file's solution is wrong: {why}"
            solutions = ()
    if expected_count is None:
        verdict = Verdict("at_least", 1)
    else:
        verdict = Verdict("exact", expected_count)
        if expected_count == 0 and solutions:
            problem = "the file gives count 0 and a solution"
            solutions = ()
    return Voice(EXPECTED, verdict, solutions, problem)


@dataclass(frozen=True)
class Problem:
    """A wrong answer or a disagreement about one puzzle, with the sources on each side."""

    kind: Literal["wrong", "disagree"]
    message: str
    sides: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def to_json(self) -> dict[str, object]:
        """Plain data for reports."""
        return {
            "kind": self.kind,
            "message": self.message,
            "sides": {verdict: list(sources) for verdict, sources in self.sides},
        }


class PuzzleVerdict(NamedTuple):
    """The outcome of cross-checking every answer about one puzzle (a named tuple: a run makes
    one per puzzle)."""

    puzzle_id: str
    agreed: bool
    consensus: str
    problems: tuple[Problem, ...] = ()
    blamed: frozenset[str] = frozenset()
    solutions_found: int = 0


def _names(voices: Iterable[Voice]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.source for v in voices))


def _sides(voices: Sequence[Voice]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    groups: dict[Verdict, list[Voice]] = {}
    for voice in voices:
        if voice.verdict.kind != "unknown":
            groups.setdefault(voice.verdict, []).append(voice)
    return tuple((str(v), _names(groups[v])) for v in sorted(groups))


_NO_ONE: frozenset[str] = frozenset()


def agree(puzzle_id: str, voices: Sequence[Voice]) -> PuzzleVerdict:
    """Cross-check every voice about one puzzle (see the module docstring for the rules)."""
    if len(voices) == 1 and voices[0].problem is None:
        # A sound answer alone (most puzzles of a one-backend run): nothing can contradict it,
        # since its count is the number of its (different) solutions.
        (voice,) = voices
        return PuzzleVerdict(puzzle_id, True, str(voice.verdict), (), _NO_ONE, len(voice.solutions))
    problems: list[Problem] = []
    blamed: set[str] = set()
    for voice in voices:
        if not voice.sound:
            problems.append(
                Problem(
                    "wrong",
                    f"{voice.source}: {voice.problem}",
                    ((str(voice.verdict), (voice.source,)),),
                )
            )
            blamed.add(voice.source)
    sound = [v for v in voices if v.sound]
    found = {s for v in sound for s in v.solutions}
    exact = [v for v in sound if v.verdict.kind == "exact"]
    bound = max([len(found)] + [v.verdict.n for v in sound if v.verdict.kind == "at_least"])
    counts = {v.verdict.n for v in exact}
    conflict = len(counts) > 1 or any(n < bound for n in counts)
    if conflict:
        for v in exact:
            if v.verdict.n < len(found):
                blamed.add(v.source)
        # A sound `>=n` carries n verified solutions, so only exact counts can be refuted.
        file_counts = [v.verdict.n for v in exact if v.source == EXPECTED]
        if file_counts and file_counts[0] >= len(found):
            blamed.update(v.source for v in exact if v.verdict.n != file_counts[0])
        parts = [f"{verdict} ({', '.join(names)})" for verdict, names in _sides(sound)]
        message = " vs ".join(parts)
        if len(found) > min(counts):
            shown = (
                "1 valid solution was"
                if len(found) == 1
                else f"{len(found)} different valid solutions were"
            )
            message += f"; {shown} returned"
        problems.append(Problem("disagree", message, _sides(sound)))
    if problems:
        consensus = "disputed"
    elif counts:
        consensus = str(Verdict("exact", counts.pop()))
    elif bound:
        consensus = str(Verdict("at_least", bound))
    else:
        consensus = "?"
    return PuzzleVerdict(
        puzzle_id, not problems, consensus, tuple(problems), frozenset(blamed), len(found)
    )


def voice_of(row: TaskRow) -> Voice:
    """A stored task's answer as a voice in the vote."""
    return Voice(
        row.backend,
        verdict_of(row.status, row.count, row.exhaustive),
        row.solutions if row.valid else (),
        row.problem,
    )


def puzzle_grid(row: PuzzleRow) -> Grid:
    """The Grid of a stored puzzle."""
    return Grid.parse(row.puzzle, Shape.parse(row.box) if row.box else None)


def file_voice(row: PuzzleRow) -> Voice | None:
    """The input file's answer for a stored puzzle as a voice, None when it states none."""
    if row.expected_count is None and row.expected_solution is None:
        return None
    return expected_voice(puzzle_grid(row), row.expected_count, row.expected_solution)


def cross_check(puzzle: PuzzleRow, rows: Sequence[TaskRow]) -> PuzzleVerdict:
    """Every stored answer about one puzzle, in task order, and the file's, cross-checked."""
    if len(rows) == 1 and puzzle.expected_count is None and puzzle.expected_solution is None:
        (row,) = rows  # one answer and no file's: `agree`'s quick path without its voice
        if row.valid and row.problem is None:
            verdict = verdict_of(row.status, row.count, row.exhaustive)
            return PuzzleVerdict(
                puzzle.puzzle_id, True, str(verdict), (), _NO_ONE, len(row.solutions)
            )
        return agree(puzzle.puzzle_id, [voice_of(row)])
    rows = rows if len(rows) == 1 else sorted(rows, key=lambda t: t.task_id)
    voices = [voice_of(t) for t in rows]
    if voice := file_voice(puzzle):
        voices.append(voice)
    return agree(puzzle.puzzle_id, voices)
