"""The CNF encodings: published clause counts, the optimized encoding's derivation, DIMACS."""

from __future__ import annotations

from collections import Counter

import pycosat
import pytest
from support import MULTIPLE, TELEGRAM, collection

from sudokubench.cli import main
from sudokubench.encodings.cnf import (
    Cnf,
    Encoding,
    cell_digit,
    decode,
    encode,
    read_dimacs,
    shape_clauses,
    to_dimacs,
    var,
)
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import SHAPES, Grid, GridFormatError, Shape, is_solution
from sudokubench.solvers.pycosat_backend import iter_models, pinned_clauses

NORVIG_17 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
NINE = Shape.for_size(9)
#: r1c9 has no candidate (1..8 in its row, 9 below it) but no digit repeats in a unit.
NO_CANDIDATE = "12345678." + "........9" + "." * 63


@pytest.mark.parametrize(
    ("encoding", "clauses"), [(Encoding.MINIMAL, 8829), (Encoding.EXTENDED, 11988)]
)
def test_empty_grid_clause_counts(encoding: Encoding, clauses: int) -> None:
    cnf = encode(Grid.empty(NINE), encoding)
    assert (cnf.num_vars, len(cnf.clauses)) == (729, clauses)


@pytest.mark.parametrize(
    ("puzzle", "variables", "clauses"), [(NORVIG_17, 301, 2780), (TELEGRAM, 154, 1018)]
)
def test_optimized_counts_of_kwon_and_jain(puzzle: str, variables: int, clauses: int) -> None:
    cnf = encode(Grid.parse(puzzle), Encoding.OPTIMIZED)
    assert (cnf.num_vars, len(cnf.clauses)) == (variables, clauses)
    assert len(set(cnf.names)) == variables


def test_givens_are_unit_clauses_after_the_shared_ones() -> None:
    puzzle = Grid.parse(NORVIG_17)
    cnf = encode(puzzle, Encoding.MINIMAL)
    assert len(cnf.clauses) == 8829 + 17
    assert list(cnf.clauses[-17:]) == [
        (var(9, k // 9, k % 9, d),) for k, d in enumerate(puzzle.cells) if d
    ]
    assert shape_clauses(NINE, Encoding.MINIMAL) is shape_clauses(NINE, Encoding.MINIMAL)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_var_and_cell_digit_are_inverse(shape: Shape) -> None:
    n = shape.n
    seen = set()
    for k in range(shape.cells):
        for d in range(1, n + 1):
            v = var(n, k // n, k % n, d)
            assert cell_digit(n, v) == (k, d)
            seen.add(v)
    assert seen == set(range(1, n**3 + 1))


def _simplified_extended(puzzle: Grid) -> Counter[frozenset[int]]:
    """The reference: simplify the extended encoding literally, clause by clause (by name)."""
    n = puzzle.shape.n
    true, false = set(), set()
    for k, d in enumerate(puzzle.cells):
        if d:
            true.add(k * n + d)
            false.update(k * n + e for e in range(1, n + 1) if e != d)
            false.update(p * n + d for p in puzzle.shape.peers[k])
    result: Counter[frozenset[int]] = Counter()
    for clause in encode(Grid.empty(puzzle.shape), Encoding.EXTENDED).clauses:
        if any((lit > 0 and lit in true) or (lit < 0 and -lit in false) for lit in clause):
            continue
        result[frozenset(lit for lit in clause if abs(lit) not in true | false)] += 1
    return result


@pytest.mark.parametrize(
    "puzzle",
    [NORVIG_17, TELEGRAM, MULTIPLE, "1...", collection("hexadoku1500", 1)[0].puzzle],
    ids=["17-clue", "telegram", "multiple", "4x4", "16x16"],
)
def test_optimized_is_the_simplified_extended_encoding(puzzle: str | Grid) -> None:
    grid = puzzle if isinstance(puzzle, Grid) else Grid.parse(puzzle.ljust(16, "."))
    cnf = encode(grid, Encoding.OPTIMIZED)
    by_name = [
        frozenset((1 if lit > 0 else -1) * cnf.name(abs(lit)) for lit in clause)
        for clause in cnf.clauses
    ]
    # the same clauses, each as often (a pair of cells sharing a row and a box twice)
    assert Counter(by_name) == _simplified_extended(grid)


@pytest.mark.parametrize(
    ("puzzle", "encoding", "reason"),
    [
        (NO_CANDIDATE, Encoding.OPTIMIZED, "r1c9 has no candidate"),
        ("." * 9 + "2" * 2 + "." * 70, Encoding.MINIMAL, "2 twice in row 2: r2c1, r2c2"),
        ("1" + "." * 8 + "1" + "." * 71, Encoding.OPTIMIZED, "1 twice in column 1"),
    ],
)
def test_givens_without_a_way_give_the_empty_clause(
    puzzle: str, encoding: Encoding, reason: str
) -> None:
    cnf = encode(Grid.parse(puzzle), encoding)
    assert (cnf.num_vars, list(cnf.clauses)) == (0, [()])
    assert reason in cnf.comments[-1]
    assert pycosat.solve(list(cnf.clauses)) == "UNSAT"


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
def test_dimacs_round_trip(encoding: Encoding) -> None:
    puzzle = Grid.parse(TELEGRAM)
    cnf = encode(puzzle, encoding)
    back = read_dimacs(to_dimacs(cnf))
    assert back.num_vars == cnf.num_vars
    assert sorted(back.clauses) == sorted(tuple(c) for c in cnf.clauses)
    assert back.names == cnf.names
    assert f"puzzle {TELEGRAM}" in back.comments
    solution = decode(back, pycosat.solve(list(back.clauses)), puzzle)
    expected = next(r for r in collection("course") if str(r.puzzle) == TELEGRAM)
    assert solution == expected.expected_solution


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 2 0\n", "before the 'p cnf'"),
        ("p cnf 2 1\n1 3 0\n", "beyond 2 variables"),
        ("p cnf 2 2\n1 2 0\n", "says 2 clauses, found 1"),
        ("p dnf 2 1\n1 0\n", "expected 'p cnf"),
        ("c nothing\n", "no 'p cnf' line"),
    ],
)
def test_read_dimacs_rejects_malformed_input(text: str, message: str) -> None:
    with pytest.raises(GridFormatError, match=message):
        read_dimacs(text)


def test_read_dimacs_accepts_clauses_across_lines() -> None:
    cnf = read_dimacs("c x\np cnf 3 2\n1 -2\n 3 0 -1 0\n")
    assert cnf.clauses == [(1, -2, 3), (-1,)]


def test_itersolve_guard_for_unused_variables() -> None:
    puzzle = Grid.parse(MULTIPLE)
    cnf = encode(puzzle, Encoding.OPTIMIZED)
    # one variable more than any clause uses: free for itersolve, so every model counts twice
    padded = Cnf(cnf.num_vars + 1, cnf.clauses, (*cnf.names, cnf.names[-1]))
    assert sum(1 for _ in pycosat.itersolve(list(padded.clauses), vars=padded.num_vars)) == 56
    assert len(pinned_clauses(padded)) == len(cnf.clauses) + 1
    grids = {decode(padded, model, puzzle) for model in iter_models(padded)}
    assert sum(1 for _ in iter_models(padded)) == len(grids) == 28
    assert all(is_solution(g, puzzle) for g in grids)


def test_cli_cnf_prints_dimacs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cnf", NORVIG_17, "--encoding", "optimized"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "c sudokubench cnf, encoding optimized" in out.splitlines()[1]
    cnf = read_dimacs(out)
    assert (cnf.num_vars, len(cnf.clauses)) == (301, 2780)
    puzzle = Grid.parse(NORVIG_17)
    assert is_solution(decode(cnf, pycosat.solve(list(cnf.clauses)), puzzle), puzzle)


def test_cli_cnf_unsatisfiable_givens_give_the_empty_clause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cnf", NO_CANDIDATE])
    assert exit_info.value.code == 0
    cnf = read_dimacs(capsys.readouterr().out)
    assert cnf.clauses == [()]
    assert pycosat.solve(list(cnf.clauses)) == "UNSAT"


@pytest.mark.parametrize("argument", ["4x..", "no/such/file.txt"])
def test_cli_cnf_bad_input_is_one_line_and_exit_2(
    argument: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cnf", argument])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sudokubench: error:")


def test_cli_cnf_file_with_several_puzzles_is_bad_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert sum(1 for _ in read_puzzles(collection_path("top95"))) == 95
    with pytest.raises(SystemExit) as exit_info:
        main(["cnf", str(collection_path("top95"))])
    assert exit_info.value.code == 2
    assert "several puzzles" in capsys.readouterr().err
