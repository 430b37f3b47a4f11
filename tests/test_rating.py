"""Rating: each technique on a crafted position where it applies and one where it must not,
levels of known collections, refusals, and the `rate` command."""

from __future__ import annotations

import io
import json

import pytest
from support import MULTIPLE, TELEGRAM, collection

from sudokubench import Grid, is_solution
from sudokubench.cli import main
from sudokubench.generate import Level, RatingError, make_puzzle, rate, rate_with
from sudokubench.generate.rating import TECHNIQUES
from sudokubench.generate.techniques import (
    Board,
    find_box_line,
    find_hidden_pair,
    find_hidden_single,
    find_hidden_triple,
    find_naked_pair,
    find_naked_single,
    find_naked_triple,
    find_pointing,
    find_swordfish,
    find_trial,
    find_x_wing,
    find_xy_wing,
)
from sudokubench.grid import shape_of

SHAPE = shape_of(3, 3)
ALL = (1 << 9) - 1


def cell(r: int, c: int) -> int:
    """Cell index from 1-based row and column."""
    return (r - 1) * 9 + (c - 1)


def open_board() -> Board:
    """An empty 9x9 board: every cell has every candidate."""
    return Board(Grid.empty(SHAPE))


def remove(board: Board, d: int, cells) -> None:
    """Take digit d out of the candidates of `cells`."""
    for k in cells:
        board.cand[k] &= ~(1 << (d - 1))


def only(board: Board, k: int, *digits: int) -> None:
    """Leave cell k exactly `digits` as candidates."""
    board.cand[k] = sum(1 << (d - 1) for d in digits)


def row(r: int) -> list[int]:
    return [cell(r, c) for c in range(1, 10)]


def col(c: int) -> list[int]:
    return [cell(r, c) for r in range(1, 10)]


def box(b: int) -> list[int]:
    return list(SHAPE.boxes[b - 1])


# -- each technique: applies here, not there ---------------------------------------------------


def test_naked_single() -> None:
    board = Board(Grid.parse("12345678." + "." * 72))
    step = find_naked_single(board)
    assert step.placement == (cell(1, 9), 9)
    assert step.text == "r1c9 = 9: the only digit left for r1c9"
    assert find_naked_single(open_board()) is None


def test_hidden_single() -> None:
    board = open_board()
    remove(board, 5, [k for k in box(1) if k != cell(2, 3)])
    step = find_hidden_single(board)
    assert step.placement == (cell(2, 3), 5)
    assert step.text == "r2c3 = 5: the only place for 5 in box 1"
    assert find_naked_single(board) is None  # r2c3 still has nine candidates
    assert find_hidden_single(open_board()) is None


def test_pointing_pair() -> None:
    board = open_board()
    remove(board, 5, [k for k in box(1) if k not in (cell(1, 1), cell(1, 2))])
    step = find_pointing(board)
    assert step.technique == "pointing_pair"
    assert set(step.eliminations) == {(cell(1, c), 5) for c in range(4, 10)}
    assert "in box 1, 5 can only be in row 1" in step.text
    remove(board, 5, [cell(1, c) for c in range(4, 10)])  # nothing left to remove
    assert find_pointing(board) is None


def test_box_line_reduction() -> None:
    board = open_board()
    remove(board, 5, [cell(1, c) for c in range(3, 10)])
    step = find_box_line(board)
    assert step.technique == "box_line_reduction"
    assert set(step.eliminations) == {(k, 5) for k in box(1) if k not in row(1)}
    assert "in row 1, 5 can only be in box 1" in step.text
    board = open_board()
    remove(board, 5, [cell(1, c) for c in (2, 3, 5, 6, 7, 8, 9)])  # c1 and c4: two boxes
    assert find_box_line(board) is None


def test_naked_pair() -> None:
    board = open_board()
    only(board, cell(1, 1), 1, 2)
    only(board, cell(1, 5), 1, 2)
    step = find_naked_pair(board)
    assert step.cells == (cell(1, 1), cell(1, 5))
    assert set(step.eliminations) == {
        (k, d) for k in row(1) if k not in (cell(1, 1), cell(1, 5)) for d in (1, 2)
    }
    only(board, cell(1, 5), 1, 3)
    assert find_naked_pair(board) is None


def test_hidden_pair() -> None:
    board = open_board()
    for d in (1, 2):
        remove(board, d, [cell(1, c) for c in range(3, 10)])
    step = find_hidden_pair(board)
    assert step.cells == (cell(1, 1), cell(1, 2))
    assert set(step.eliminations) == {(k, d) for k in step.cells for d in range(3, 10)}
    assert step.text.startswith("hidden pair 1, 2 in row 1")
    board = open_board()
    remove(board, 1, [cell(1, c) for c in range(3, 10)])
    remove(board, 2, [cell(1, c) for c in (2, *range(4, 10))])  # 1 in c1,c2; 2 in c1,c3
    assert find_hidden_pair(board) is None


def test_naked_triple() -> None:
    board = open_board()
    only(board, cell(1, 1), 1, 2)
    only(board, cell(1, 4), 2, 3)
    only(board, cell(1, 7), 1, 3)
    assert find_naked_pair(board) is None
    step = find_naked_triple(board)
    assert step.digits == (1, 2, 3)
    assert {k for k, _ in step.eliminations} == set(row(1)) - set(step.cells)
    only(board, cell(1, 7), 1, 4)
    assert find_naked_triple(board) is None


def test_hidden_triple() -> None:
    board = open_board()
    for d in (1, 2, 3):
        remove(board, d, [cell(1, c) for c in range(4, 10)])
    assert find_hidden_pair(board) is None
    step = find_hidden_triple(board)
    assert step.cells == (cell(1, 1), cell(1, 2), cell(1, 3))
    assert set(step.eliminations) == {(k, d) for k in step.cells for d in range(4, 10)}
    board = open_board()
    for d in (1, 2):
        remove(board, d, [cell(1, c) for c in range(4, 10)])
    remove(board, 3, [cell(1, c) for c in range(5, 10)])  # 3 also in c4: four cells
    assert find_hidden_triple(board) is None


def test_x_wing() -> None:
    board = open_board()
    for r in (1, 5):
        remove(board, 7, [cell(r, c) for c in range(1, 10) if c not in (2, 8)])
    step = find_x_wing(board)
    assert step.technique == "x_wing"
    assert set(step.cells) == {cell(1, 2), cell(1, 8), cell(5, 2), cell(5, 8)}
    assert set(step.eliminations) == {
        (cell(r, c), 7) for c in (2, 8) for r in range(1, 10) if r not in (1, 5)
    }
    assert step.text.startswith("X-Wing on 7: in rows 1 5, 7 can only be in columns 2 8")
    board = open_board()
    remove(board, 7, [cell(1, c) for c in range(1, 10) if c not in (2, 8)])
    remove(board, 7, [cell(5, c) for c in range(1, 10) if c not in (2, 9)])
    assert find_x_wing(board) is None


def test_swordfish() -> None:
    board = open_board()
    spots = {1: (1, 4), 4: (4, 7), 7: (1, 7)}
    for r, keep in spots.items():
        remove(board, 6, [cell(r, c) for c in range(1, 10) if c not in keep])
    assert find_x_wing(board) is None
    step = find_swordfish(board)
    assert step.technique == "swordfish"
    assert set(step.eliminations) == {
        (cell(r, c), 6) for c in (1, 4, 7) for r in range(1, 10) if r not in spots
    }
    board = open_board()
    spots[7] = (1, 8)
    for r, keep in spots.items():
        remove(board, 6, [cell(r, c) for c in range(1, 10) if c not in keep])
    assert find_swordfish(board) is None


def test_xy_wing() -> None:
    board = open_board()
    only(board, cell(1, 1), 1, 2)  # pivot
    only(board, cell(1, 5), 1, 3)  # sees the pivot along row 1
    only(board, cell(5, 1), 2, 3)  # sees the pivot along column 1
    step = find_xy_wing(board)
    assert step.technique == "xy_wing"
    assert step.eliminations == ((cell(5, 5), 3),)
    assert "pivot r1c1 {1, 2}" in step.text
    only(board, cell(5, 1), 2, 4)
    assert find_xy_wing(board) is None


def test_trial_refutes_by_search_not_from_the_solution() -> None:
    """A trial removes a candidate whose every search branch dies; it never sees the solution
    (the board does not hold one), yet what it removes is never the solution's digit."""
    puzzle = collection("hardest")[0].puzzle
    solution = rate(puzzle).solution
    board = Board(puzzle)
    assert not hasattr(board, "solution")
    step = find_trial(board)
    assert step.technique == "trial"
    ((k, d),) = step.eliminations
    assert solution[k] != d
    assert step.extra > 0 and "branches of the search end in a contradiction" in step.text


# -- the rater ---------------------------------------------------------------------------------


def singles_solve(puzzle: Grid, hidden: bool) -> bool:
    """An independent singles-only solver on Grid.candidates: does it finish the puzzle?"""
    grid = puzzle
    while not grid.is_complete():
        moves = [(k, grid.candidates(k)) for k in range(len(grid)) if not grid[k]]
        forced = [(k, c[0]) for k, c in moves if len(c) == 1]
        if not forced and hidden:
            for unit in grid.shape.units:
                for d in range(1, grid.n + 1):
                    places = [k for k in unit if not grid[k] and d in grid.candidates(k)]
                    if len(places) == 1:
                        forced.append((places[0], d))
        if not forced:
            return False
        grid = grid.with_value(*forced[0])
    return True


def test_singles_puzzles_rate_simple_or_easy() -> None:
    checked = 0
    for record in collection("easy50", 25):
        rating = rate(record.puzzle)
        by_naked = singles_solve(record.puzzle, hidden=False)
        by_singles = by_naked or singles_solve(record.puzzle, hidden=True)
        assert (rating.level is Level.SIMPLE) == by_naked, record.id
        assert (rating.level <= Level.EASY) == by_singles, record.id
        checked += by_singles
    assert checked >= 15


def test_easy50_is_mostly_simple_or_easy() -> None:
    levels = [rate(r.puzzle).level for r in collection("easy50")]
    assert sum(level <= Level.EASY for level in levels) >= 35
    assert Level.EXPERT not in levels


@pytest.mark.slow
def test_top95_is_mostly_hard_or_harder() -> None:
    levels = [rate(r.puzzle).level for r in collection("top95")]
    assert sum(level >= Level.HARD for level in levels) >= 55
    assert Level.SIMPLE not in levels and Level.EASY not in levels


def test_every_step_is_logged_and_leads_to_the_solution() -> None:
    """Replaying the logged placements on the givens gives the solution (which `rate_with`
    also checks step by step against every elimination)."""
    for record in collection("top95", 10, step=9):
        rating = rate(record.puzzle)
        cells = list(record.puzzle.cells)
        for step in rating.steps:
            if step.placement:
                k, d = step.placement
                assert cells[k] == 0
                cells[k] = d
            else:
                assert step.eliminations
        assert is_solution(Grid(record.puzzle.shape, tuple(cells)), record.puzzle)
        assert sum(rating.techniques.values()) == len(rating.steps)


def test_score_is_the_documented_weighted_sum() -> None:
    weights = {
        "naked_single": 4,
        "hidden_single": 14,
        "pointing_pair": 50,
        "pointing_triple": 50,
        "box_line_reduction": 50,
        "naked_pair": 60,
        "hidden_pair": 70,
        "naked_triple": 80,
        "hidden_triple": 100,
        "x_wing": 140,
        "skyscraper": 130,
        "two_string_kite": 150,
        "turbot_fish": 120,
        "empty_rectangle": 120,
        "remote_pair": 110,
        "unique_rectangle_1": 100,
        "unique_rectangle_2": 100,
        "unique_rectangle_4": 100,
        "unique_rectangle_3": 100,
        "hidden_rectangle": 100,
        "bug_plus_one": 100,
        "xy_wing": 160,
        "w_wing": 150,
        "xyz_wing": 180,
        "swordfish": 150,
        "simple_colouring": 150,
        "finned_x_wing": 130,
        "sashimi_x_wing": 150,
        "naked_quad": 120,
        "hidden_quad": 150,
        "jellyfish": 160,
        "finned_swordfish": 200,
        "sashimi_swordfish": 240,
        "x_chain": 260,
        "xy_chain": 260,
        "sue_de_coq": 250,
        "aic": 280,
        "als_xz": 300,
        "als_xy_wing": 320,
        "forcing_chain": 500,
        "forcing_net": 700,
        "trial": 1000,
    }
    assert {t.key: t.weight for t in TECHNIQUES} == weights
    levels = [t.level for t in TECHNIQUES]
    assert levels == sorted(levels)  # the ladder climbs level by level
    for record in collection("top95", 5):
        rating = rate(record.puzzle)
        assert rating.score == sum(weights[s.technique] + s.extra for s in rating.steps)
        hardest = max(t.level for t in TECHNIQUES if t.key in rating.techniques)
        assert rating.level is hardest


def test_hardest_points_cost_more_than_a_flat_constant() -> None:
    """Forcing steps cost by depth: not every forcing step of top95 costs the same."""
    extras = set()
    for record in collection("top95", 12):
        for step in rate(record.puzzle).steps:
            if step.technique in ("forcing_chain", "forcing_net", "trial"):
                extras.add((step.technique, step.extra))
            else:
                assert step.extra == 0
    assert len(extras) >= 3


def test_other_sizes() -> None:
    for record in collection("shidoku4x4", 8):
        rating = rate_with(record.puzzle, rate(record.puzzle).solution)
        assert rating.level <= Level.EASY
    levels = set()
    for record in collection("hexadoku1500", 4, step=50):
        rating = rate_with(record.puzzle, record.expected_solution)
        levels.add(rating.level)
        assert rating.steps
    assert levels
    for seed in range(5):  # 6x6: rectangular boxes
        puzzle, solution = make_puzzle(shape_of(2, 3), seed)
        rating = rate_with(puzzle, solution)
        assert rating.steps[-1].placement is not None


def test_intersections_on_rectangular_boxes() -> None:
    """6x6, boxes of 2 rows x 3 columns: box 1 is r1-r2, c1-c3."""
    shape = shape_of(2, 3)
    board = Board(Grid.empty(shape))
    k = lambda r, c: (r - 1) * 6 + (c - 1)  # noqa: E731
    remove(board, 4, [k(2, 1), k(2, 2), k(2, 3)])
    step = find_pointing(board)
    assert set(step.eliminations) == {(k(1, c), 4) for c in (4, 5, 6)}
    assert "in box 1, 4 can only be in row 1" in step.text
    board = Board(Grid.empty(shape))
    remove(board, 4, [k(r, 1) for r in range(3, 7)])  # column 1: only r1, r2 = box 1
    step = find_box_line(board)
    assert set(step.eliminations) == {(k(r, c), 4) for r in (1, 2) for c in (2, 3)}


def test_refuses_what_cannot_be_rated() -> None:
    with pytest.raises(RatingError, match="not unique: it has at least 2 solutions"):
        rate(Grid.parse(MULTIPLE))
    with pytest.raises(RatingError, match="conflicting givens: 8 twice in row 1"):
        rate(Grid.parse("88" + TELEGRAM[2:]))
    with pytest.raises(RatingError, match="no solution"):
        rate(next(r.puzzle for r in collection("shidoku4x4", 9)[8:]))


# -- the command -------------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    return int(stop.value.code or 0), out, err


def test_rate_command_json(capsys) -> None:
    code, out, _ = run(["rate", TELEGRAM, "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert set(obj) == {"id", "level", "score", "techniques"}
    assert obj["level"] == str(rate(Grid.parse(TELEGRAM)).level)
    assert obj["score"] == sum(t.weight * obj["techniques"].get(t.key, 0) for t in TECHNIQUES)


def test_rate_command_json_steps_from_stdin(capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(TELEGRAM + "\n"))
    code, out, _ = run(["rate", "-", "--json", "--explain"], capsys)
    assert code == 0
    obj = json.loads(out)
    rating = rate(Grid.parse(TELEGRAM))
    assert [s["technique"] for s in obj["steps"]] == [s.technique for s in rating.steps]
    assert obj["steps"][0]["text"] == rating.steps[0].text


def test_rate_command_explain(capsys) -> None:
    code, out, _ = run(["rate", "--explain", TELEGRAM], capsys)
    assert code == 0
    lines = out.splitlines()
    rating = rate(Grid.parse(TELEGRAM))
    assert lines[0].startswith(f"{rating.level} (score {rating.score}): naked single x")
    assert len(lines) == 1 + len(rating.steps)
    assert lines[1].startswith(" 1. r") or lines[1].startswith("1. r")


def test_rate_command_refuses_multiple(capsys) -> None:
    code, out, err = run(["rate", MULTIPLE], capsys)
    assert code == 2
    assert out == ""
    assert err == (
        "sudokubench: error: cannot rate: the puzzle is not unique: it has at least 2 solutions\n"
    )


def test_rate_command_file_goes_on_after_a_refusal(tmp_path, capsys) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(f"{TELEGRAM}\n{MULTIPLE}\n{TELEGRAM}\n")
    code, out, err = run(["rate", str(path)], capsys)
    assert code == 2
    assert len(out.splitlines()) == 2
    assert "mixed.txt:2: cannot rate: the puzzle is not unique" in err
