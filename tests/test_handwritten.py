"""What is particular to `propagation`, `norvig` and `dlx`, and to the exact-cover encoding.

The cross-backend answers are in test_agreement.py; here: the two propagation rules each on
their own, Norvig's tables and representation, the exact-cover numbering in both directions,
the dancing-links structure, and the meaning of each backend's stats.
"""

from __future__ import annotations

import re
import sys

import pytest
from support import MULTIPLE, TELEGRAM, Stopwatch, collection, pattern_solution

from sudokubench import Grid, Shape, Status, is_solution
from sudokubench.backend import Deadline, SearchBackend
from sudokubench.encodings import exact_cover
from sudokubench.encodings.exact_cover import (
    constraint_name,
    constraint_number,
    constraint_of,
    given_options,
    matrix,
    option_number,
    option_of,
    solution_grid,
)
from sudokubench.grid import SHAPES
from sudokubench.solvers import norvig, propagation
from sudokubench.solvers.dlx import DancingLinks, links_template
from sudokubench.solvers.norvig import Norvig
from sudokubench.solvers.propagation import Propagation

MINE = [Propagation(), Norvig(), DancingLinks()]
IDS = [b.name for b in MINE]
SMALL_SHAPES = [s for s in SHAPES if s.n <= 16]

#: Digit 1 is in columns 1-8 below row 1, so r1c9 is its only place in row 1 (unique position),
#: while r1c9 itself still has every digit as a candidate (elimination alone places nothing).
HIDDEN_ONE = (
    "........."
    + "..1......"
    + ".....1..."
    + "1........"
    + "...1....."
    + ("......1.." + ".1......." + "....1...." + ".......1.")
)


# -- the exact-cover encoding -------------------------------------------------------------------


@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=str)
def test_option_numbering_round_trips(shape: Shape) -> None:
    """Every (cell, digit) has its own option number 0..N³-1, and `option_of` inverts it."""
    n = shape.n
    numbers = [option_number(shape, k, d) for k in range(shape.cells) for d in range(1, n + 1)]
    assert sorted(numbers) == list(range(n**3))
    for k in range(shape.cells):
        for d in range(1, n + 1):
            assert option_of(shape, option_number(shape, k, d)) == (k, d)


@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=str)
def test_constraint_numbering_round_trips(shape: Shape) -> None:
    """The 4·N² constraints are numbered 0..4·N²-1 once each; `constraint_of` inverts it."""
    n = shape.n
    seen = []
    for kind in exact_cover.KINDS:
        for index in range(n * n if kind == "cell" else n):
            for d in (0,) if kind == "cell" else range(1, n + 1):
                number = constraint_number(shape, kind, index, d)
                assert constraint_of(shape, number) == (kind, index, d)
                seen.append(number)
    assert sorted(seen) == list(range(4 * n * n))


def test_constraint_names() -> None:
    """Constraint names use the grid's vocabulary, 1-based."""
    shape = Shape(3, 3)
    assert constraint_name(shape, constraint_number(shape, "cell", 8)) == "r1c9 filled"
    assert constraint_name(shape, constraint_number(shape, "row", 2, 5)) == "row 3 has 5"
    assert constraint_name(shape, constraint_number(shape, "column", 0, 9)) == "column 1 has 9"
    assert constraint_name(shape, constraint_number(shape, "box", 8, 1)) == "box 9 has 1"
    hexa = Shape(4, 4)
    assert constraint_name(hexa, constraint_number(hexa, "box", 0, 16)) == "box 1 has G"


@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=str)
def test_matrix_shape(shape: Shape) -> None:
    """Each option covers its cell, row-digit, column-digit and box-digit; each constraint has
    exactly N options; the matrix is built once per shape."""
    n = shape.n
    m = matrix(shape)
    assert matrix(shape) is m
    assert len(m.options) == n**3 and m.constraint_count == 4 * n * n
    assert all(len(options) == n for options in m.covers)
    for option, constraints in enumerate(m.options):
        k, d = option_of(shape, option)
        r, c, b = shape.cell_units[k]
        named = [constraint_of(shape, j) for j in constraints]
        assert named == [("cell", k, 0), ("row", r, d), ("column", c, d), ("box", b, d)]
        assert all(option in m.covers[j] for j in constraints)


def _covered(shape: Shape, grid: Grid) -> list[int]:
    """How often each constraint is covered by the options a complete grid selects."""
    times = [0] * matrix(shape).constraint_count
    for option in given_options(grid):
        for j in matrix(shape).options[option]:
            times[j] += 1
    return times


def test_a_solution_is_an_exact_cover_and_a_wrong_grid_is_not() -> None:
    """The matrix agrees with the independent checker: a solution covers every constraint once;
    swapping two digits of it breaks that."""
    record = collection("course", 1)[0]
    solution = record.expected_solution
    assert solution is not None and is_solution(solution, record.puzzle)
    shape = solution.shape
    assert set(_covered(shape, solution)) == {1}
    swapped = solution.with_value(0, solution[1]).with_value(1, solution[0])
    assert not is_solution(swapped, record.puzzle)
    assert set(_covered(shape, swapped)) != {1}
    assert solution_grid(shape, given_options(solution)) == solution
    assert solution_grid(shape, given_options(record.puzzle)) == record.puzzle


# -- propagation --------------------------------------------------------------------------------


def _propagate(text: str) -> tuple[list[int], list[int] | None, dict[str, int]]:
    puzzle = Grid.parse(text)
    cells = list(puzzle.cells)
    counters = dict.fromkeys(("rounds", "eliminated", "unique"), 0)
    candidates = propagation.propagate(puzzle.shape, cells, counters, Deadline(None))
    return cells, candidates, counters


def test_elimination_places_a_lone_candidate() -> None:
    """r1c9 sees 1..7 in its row and 9 in its column: elimination gives it 8, then r1c8 9."""
    cells, candidates, counters = _propagate("1234567.." + "." * 36 + "........9" + "." * 27)
    assert cells[7:9] == [9, 8] and candidates is not None
    assert counters["eliminated"] == 2 and counters["unique"] == 0


def test_unique_position_places_a_digit_with_one_place() -> None:
    """r1c9 keeps all nine candidates under elimination, but it is row 1's only place for 1."""
    puzzle = Grid.parse(HIDDEN_ONE)
    assert len(puzzle.candidates(8)) == 9
    cells, candidates, counters = _propagate(HIDDEN_ONE)
    assert cells[8] == 1 and candidates is not None
    assert counters["unique"] >= 1


def test_propagation_reports_contradictions() -> None:
    """No candidate for a cell, or no place for a digit in a unit: None."""
    assert _propagate("12345678." + "." * 63 + "........9")[1] is None  # r1c9 has none
    assert _propagate("12345678." + "." * 9 + "........9" + "." * 54)[1] is None
    assert _propagate(HIDDEN_ONE[:8] + "2" + HIDDEN_ONE[9:])[1] is None  # 1 has no place


def test_fixpoint_candidates_are_the_elimination_candidates() -> None:
    """At the fixpoint the candidates returned are exactly what the units leave each cell."""
    for record in collection("top95", 5, 19):
        cells, candidates, _ = _propagate(str(record.puzzle))
        assert candidates is not None
        grid = Grid(record.puzzle.shape, tuple(cells))
        for k, d in enumerate(cells):
            if not d:
                expected = sum(1 << (x - 1) for x in grid.candidates(k))
                assert candidates[k] == expected, grid.shape.cell_name(k)


# -- norvig -------------------------------------------------------------------------------------


def test_norvig_tables_match_his_tests() -> None:
    """His test(): 81 squares, 27 units, 3 units and 20 peers per square; and the other shapes."""
    b = norvig.board(Shape(3, 3))
    assert len(b.squares) == 81 and b.digits == "123456789"
    assert len({tuple(u) for units in b.units.values() for u in units}) == 27
    assert all(len(b.units[s]) == 3 for s in b.squares)
    assert all(len(b.peers[s]) == 20 for s in b.squares)
    # His C2 is row 3, column 2 -> cell 19: column first, then row, then box, as in his unitlist.
    column, row, box = b.units[19]
    assert column == [1, 10, 19, 28, 37, 46, 55, 64, 73]
    assert row == [18, 19, 20, 21, 22, 23, 24, 25, 26]
    assert box == [0, 1, 2, 9, 10, 11, 18, 19, 20]
    for shape, peers in ((Shape(2, 2), 7), (Shape(2, 3), 12), (Shape(4, 4), 39)):
        assert all(len(p) == peers for p in norvig.board(shape).peers.values())
    assert norvig.board(Shape(4, 4)).digits == "123456789ABCDEFG"


def test_norvig_values_are_a_dict_of_digit_strings() -> None:
    """His representation: square -> string of candidate digits; givens are single digits."""
    puzzle = collection("top95", 1)[0].puzzle
    b = norvig.board(puzzle.shape)
    values = norvig.parse_grid(b, puzzle)
    assert values is not None and set(values) == set(range(81))
    assert all(isinstance(v, str) and v and set(v) <= set(b.digits) for v in values.values())
    assert values[0] == "4"
    # assign/eliminate return None on a contradiction (a peer already holds the digit).
    assert norvig.assign(b, dict(values), 1, "4") is None


def test_norvig_and_propagation_reach_the_same_fixpoint() -> None:
    """His assign/eliminate and `propagate` apply the same two rules, so from the givens they
    determine the same cells and leave the same candidates; easy puzzles fall to them alone."""
    records = collection("easy50", 10, 5) + collection("top95", 5, 19)
    for record in records:
        b = norvig.board(record.puzzle.shape)
        values = norvig.parse_grid(b, record.puzzle)
        cells, candidates, _ = _propagate(str(record.puzzle))
        assert values is not None and candidates is not None
        for k, d in enumerate(cells):
            theirs = {b.digits.index(x) + 1 for x in values[k]}
            ours = {d} if d else {x for x in range(1, 10) if candidates[k] >> (x - 1) & 1}
            assert theirs == ours, f"{record.id} {record.puzzle.shape.cell_name(k)}"
    for record in collection("easy50", 5):
        for backend in (Norvig(), Propagation()):
            result = backend.solve(record.puzzle)
            assert result.stats["guesses"] == 0 and result.stats["nodes"] == 0
            assert is_solution(result.solutions[0], record.puzzle)


def test_norvig_restores_the_recursion_limit() -> None:
    """The limit is raised only while a 16x16 search runs."""
    before = sys.getrecursionlimit()
    record = collection("hexadoku1500", 1)[0]
    assert Norvig().solve(record.puzzle).solutions[0] == record.expected_solution
    assert sys.getrecursionlimit() == before


# -- dlx ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [Shape(2, 2), Shape(3, 3)], ids=str)
def test_links_template(shape: Shape) -> None:
    """Root, 4·N² headers in a circle, four nodes per option, every column of size N."""
    left, right, up, down, header, size, option = links_template(shape)
    n = shape.n
    columns = 4 * n * n
    assert len(left) == 1 + columns + 4 * n**3
    node, seen = right[0], []
    while node != 0:
        seen.append(node)
        node = right[node]
    assert seen == list(range(1, columns + 1))
    assert all(size[c] == n for c in seen)
    for c in seen:  # walking down a column visits its N options' nodes and returns
        x, count = down[c], 0
        while x != c:
            assert header[x] == c and up[down[x]] == x
            x, count = down[x], count + 1
        assert count == n
    first = columns + 1
    assert [option[first + i] for i in range(4)] == [0] * 4
    assert right[first + 3] == first and left[first] == first + 3


# -- all three: limits, deadlines, stats ----------------------------------------------------------


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_stats_are_documented(backend: SearchBackend) -> None:
    """Each stat a backend reports is named in its module docstring."""
    module = sys.modules[type(backend).__module__]
    result = backend.solve(Grid.parse(MULTIPLE), limit=100)
    documented = set(re.findall(r"`(\w+)`", module.__doc__ or ""))
    assert result.stats and set(result.stats) <= documented


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_exhaustive_search_takes_back_every_node(backend: SearchBackend) -> None:
    """Counting to the end undoes every node; the 28 solutions are distinct and valid."""
    puzzle = Grid.parse(MULTIPLE)
    result = backend.solve(puzzle, limit=100)
    assert (result.count, result.exhaustive) == (28, True)
    assert len(set(result.solutions)) == 28
    assert all(is_solution(s, puzzle) for s in result.solutions)
    stats = result.stats
    assert stats["backtracks"] == stats["nodes"] > 0
    assert 0 < stats["guesses"] <= stats["nodes"]


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_limit_stops_the_search(backend: SearchBackend) -> None:
    """limit=5 on the 28-solution grid: 5 solutions, SOLVED, not exhaustive."""
    result = backend.solve(Grid.parse(MULTIPLE), limit=5)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 5, False)


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_telegram_is_unique(backend: SearchBackend) -> None:
    """The course's telegram grid: one solution, the known one."""
    record = collection("course", 1)[0]
    result = backend.solve(Grid.parse(TELEGRAM), limit=2)
    assert (result.count, result.exhaustive) == (1, True)
    assert result.solutions[0] == record.expected_solution


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_timeout_keeps_the_stats(backend: SearchBackend) -> None:
    """A deadline during counting: TIMEOUT, the work done so far in stats, solutions valid."""
    puzzle = Grid.empty(Shape(2, 3))
    with Stopwatch() as watch:
        result = backend.solve(puzzle, limit=10**9, timeout=0.1)
    assert result.status is Status.TIMEOUT and not result.exhaustive
    assert result.stats["nodes"] > 0 and result.count > 0
    # on time: CPU seconds (a search past its deadline computes on; a loaded machine stretches
    # the wall-clock solve_s, not the CPU time spent before the deadline)
    watch.within(0.1 + 0.3)
    assert all(is_solution(s, puzzle) for s in result.solutions[:20])


@pytest.mark.parametrize("backend", MINE, ids=IDS)
def test_a_25x25_puzzle_with_few_holes(backend: SearchBackend) -> None:
    """Every shape works: a 25x25 grid with one cell missing per row."""
    shape = Shape(5, 5)
    n = shape.n
    full = pattern_solution(shape)
    puzzle = full
    for r in range(n):
        puzzle = puzzle.with_value(r * n + (r * 7) % n, 0)
    result = backend.solve(puzzle, limit=2)
    assert (result.count, result.exhaustive) == (1, True)
    assert result.solutions[0] == full
