"""Helpers for the tests on published technique examples (tests/test_published_examples*.py).

The examples come from HoDoKu (hodoku.sourceforge.net, by Bernhard Hobiger): its "Solving
Technique Index" pages (show_example.php?file=...&tech=..., GNU FDL 1.3), which print a
candidate grid, a line to load it into HoDoKu and the step, and its regression test library
(reglib-1.4.txt in HoDoKu's sources), whose lines have the same format. A HoDoKu line is
`:technique:digits:givens:deleted candidates:eliminations:placements:`, where a `+` before a
digit marks a placed (not given) cell and a candidate `dRC` is digit d in row R, column C.

A test checks that our finder makes the published eliminations (among the steps of that
technique it takes on the grid, each applied before looking for the next) and that nothing it
removes is in the solution, computed from the puzzle's givens. A "does not apply" test breaks
the pattern by one candidate that is not the solution's (taken out of a pattern cell or put
into one, so the grid stays sound) and checks that the published elimination is no longer
made; HoDoKu's library also has fail cases, grids where the technique must find nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sudokubench import Grid
from sudokubench.generate import rate
from sudokubench.generate.techniques import Board, Step

Find = Callable[[Board], Step | None]
Candidate = tuple[int, int]  # (cell, digit)


def cell(r: int, c: int) -> int:
    """Cell index of row r, column c (both from 1)."""
    return (r - 1) * 9 + (c - 1)


def pencilmarks(text: str) -> Board:
    """A board from a candidate grid: 81 cells in reading order, separators ignored; a cell
    with one digit is taken as placed (HoDoKu shows placed digits and candidates alike)."""
    tokens = [t for t in text.replace("|", " ").split() if t.isdigit()]
    assert len(tokens) == 81, len(tokens)
    placed = "".join(t if len(t) == 1 else "." for t in tokens)
    board = Board(Grid.parse(placed))
    for k, t in enumerate(tokens):
        if len(t) > 1:
            board.cand[k] = sum(1 << (int(ch) - 1) for ch in t)
    return board


def candidates(text: str) -> set[Candidate]:
    """`319 339 381` (HoDoKu's dRC) as {(cell, digit)}."""
    return {(cell(int(t[1]), int(t[2])), int(t[0])) for t in text.split()}


def hodoku(line: str) -> tuple[str, Board, set[Candidate], set[Candidate]]:
    """(givens, board, eliminations, placements) of a HoDoKu library line."""
    fields = line.strip().split(":")
    givens, deleted, elims = fields[3], fields[4], fields[5]
    places = fields[6] if len(fields) > 6 else ""
    puzzle, placed = [], []
    chars = iter(givens)
    for ch in chars:
        if ch == "+":
            placed.append(next(chars))
            puzzle.append(".")
        else:
            placed.append(ch)
            puzzle.append(ch)
    assert len(placed) == 81, len(placed)
    board = Board(Grid.parse("".join(placed)))
    for k, d in candidates(deleted):
        assert board.cand[k] >> (d - 1) & 1, "a deleted candidate must be there to delete"
        board.cand[k] &= ~(1 << (d - 1))
    return "".join(puzzle), board, candidates(elims), candidates(places)


def run(puzzle: str, board: Board, find: Find) -> tuple[list[Step], set[Candidate]]:
    """Every step the finder makes (each applied before it looks for the next, up to 30) and
    every candidate they remove (a placement removes the cell's other candidates), checked
    sound: the board agrees with the puzzle's solution, no removed candidate is the
    solution's, every placement is."""
    solution = rate(Grid.parse(puzzle)).solution
    for k, d in enumerate(board.cells):
        assert not d or d == solution[k]  # the grid agrees with the puzzle
    for k, mask in enumerate(board.cand):
        assert board.cells[k] or mask >> (solution[k] - 1) & 1  # and keeps the solution
    removed: set[Candidate] = set()
    steps = []
    for _ in range(30):
        step = find(board)
        if step is None:
            break
        if step.placement is not None:
            k, d = step.placement
            assert solution[k] == d, step.text
            removed |= {(k, e) for e in range(1, 10) if board.cand[k] >> (e - 1) & 1 and e != d}
        removed |= set(step.eliminations)
        steps.append(step)
        board.apply(step)
    assert all(solution[k] != d for k, d in removed)
    return steps, removed


def check(puzzle: str, grid: str, find: Find, expected: set[Candidate]) -> list[Step]:
    """The published eliminations are among ours on a typed candidate grid."""
    steps, removed = run(puzzle, pencilmarks(grid), find)
    assert expected <= removed, sorted(expected - removed)
    return steps


def check_line(line: str, find: Find) -> list[Step]:
    """The eliminations and placements of a HoDoKu line are among ours."""
    puzzle, board, elims, places = hodoku(line)
    assert elims or places
    before = list(board.cand)
    steps, removed = run(puzzle, board, find)
    assert elims <= removed, sorted(elims - removed)
    for k, d in places:
        assert before[k] >> (d - 1) & 1
        assert {(k, e) for e in range(1, 10) if before[k] >> (e - 1) & 1 and e != d} <= removed
    return steps


def edited(
    board: Board, removed: Iterable[Candidate] = (), added: Iterable[Candidate] = ()
) -> Board:
    """The board with false candidates taken out or put back: the solution stays on the
    board (which `run` checks), so the grid is still sound, only the pattern is broken."""
    for k, d in removed:
        assert board.cand[k] >> (d - 1) & 1
        board.cand[k] &= ~(1 << (d - 1))
    for k, d in added:
        assert not board.cells[k] and not board.cand[k] >> (d - 1) & 1
        board.cand[k] |= 1 << (d - 1)
    return board


def check_not(puzzle: str, board: Board, find: Find, published: set[Candidate]) -> list[Step]:
    """None of the published eliminations is made (and every step made is sound)."""
    steps, removed = run(puzzle, board, find)
    assert not published & removed, sorted(published & removed)
    return steps


def check_line_not(
    line: str,
    find: Find,
    removed: Iterable[Candidate] = (),
    added: Iterable[Candidate] = (),
    kept: set[Candidate] | None = None,
) -> list[Step]:
    """On the line's grid with one candidate taken out or put back, the line's eliminations
    (only `kept` of them, when the broken pattern still holds elsewhere) and placements are
    not made; with no change, the line is a fail case: no step at all."""
    puzzle, board, elims, places = hodoku(line)
    if kept is not None:
        assert kept <= elims
        elims = kept
    changes = [*removed, *added]
    board = edited(board, removed, added)
    placed_elims = {
        (k, e) for k, d in places for e in range(1, 10) if board.cand[k] >> (e - 1) & 1 and e != d
    }
    steps = check_not(puzzle, board, find, elims | placed_elims)
    if not changes:
        assert steps == []
    return steps
