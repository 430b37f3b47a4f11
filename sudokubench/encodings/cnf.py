"""Sudoku as CNF: variable numbering, three encodings, DIMACS in and out, and the decoder.

Variables. Cell-digit variable `var(n, r, c, d)` is true when row r, column c holds digit d;
`cell_digit(n, v)` is its inverse. They are the only place the numbering is defined
(`(r*N + c)*N + d`, so 1..N**3). Every variable of every encoding is such a cell-digit
variable: there are no auxiliary variables, so counting models counts grids.

Encodings (`Encoding`):

- `minimal` (Lynce & Ouaknine 2006): every cell holds at least one digit; every digit at most
  once in each row, column and box (pairwise). 8,829 clauses for the empty 9x9 grid. That a
  cell holds at most one digit follows by pigeonhole.
- `extended`: minimal plus every cell at most one digit and every digit at least once in each
  unit. 11,988 clauses for the empty 9x9 grid. Givens are unit clauses in both.
- `optimized` (Kwon & Jain 2006): the extended encoding with every variable the givens decide
  removed (a given's cell-digit variables, and its digit in each peer): satisfied clauses are
  dropped and false literals removed, and the remaining variables are renumbered 1..V.
  Norvig's 17-clue grid has 301 variables and 2,780 clauses.

Givens that conflict (or, optimized, leave a cell without a candidate or a unit without a place
for a digit) encode as the formula of one empty clause, the reason in its last comment.

Speed: the clauses that do not depend on the givens (minimal, extended) are built once per
shape and cached; a puzzle only adds its unit clauses. The optimized encoding is derived
directly from the candidates (a cell's candidates give its clauses, a unit's cells that can
still take a digit give that digit's clauses), which produces exactly the clauses the
simplification of the extended encoding leaves, in a fraction of a millisecond for 9x9.

DIMACS: `to_dimacs` writes `c` comment lines naming the puzzle and encoding, plus, for the
renumbered optimized encoding, `c vars` lines listing each variable's cell-digit number;
`read_dimacs` reads any DIMACS CNF back (and those lines, so the model still decodes).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from operator import itemgetter, neg

from sudokubench.grid import Grid, GridFormatError, Shape

__all__ = [
    "Cnf",
    "Encoding",
    "cell_digit",
    "decode",
    "encode",
    "read_dimacs",
    "to_dimacs",
    "var",
]

Clause = tuple[int, ...]


class Encoding(enum.Enum):
    """The CNF encodings of Sudoku, by name."""

    MINIMAL = "minimal"
    EXTENDED = "extended"
    OPTIMIZED = "optimized"


def var(n: int, r: int, c: int, d: int) -> int:
    """The variable of "row r, column c holds digit d" (r, c 0-based, d 1..n): 1..n**3."""
    return (r * n + c) * n + d


def cell_digit(n: int, v: int) -> tuple[int, int]:
    """The inverse of `var`: variable v -> (cell k, digit d)."""
    k, d0 = divmod(v - 1, n)
    return k, d0 + 1


@dataclass(frozen=True)
class Cnf:
    """A CNF formula over cell-digit variables 1..num_vars.

    `names[v - 1]` is the cell-digit number (`var`) of variable v; it is empty when the
    variables are the cell-digit numbers themselves (minimal, extended).
    """

    num_vars: int
    clauses: Sequence[Clause]
    names: tuple[int, ...] = ()
    comments: tuple[str, ...] = ()

    def name(self, v: int) -> int:
        """The cell-digit number of variable v."""
        return self.names[v - 1] if self.names else v


# -- shape-level clauses, built once per shape ------------------------------------------------


def _at_most_once(variables: Sequence[int]) -> list[Clause]:
    return [(-a, -b) for a, b in combinations(variables, 2)]


@cache
def _clause_groups(shape: Shape) -> dict[str, tuple[Clause, ...]]:
    """The four groups of givens-independent clauses of a shape."""
    n = shape.n
    cell_vars = [[k * n + d for d in range(1, n + 1)] for k in range(shape.cells)]
    unit_vars = [[k * n + d for k in unit] for unit in shape.units for d in range(1, n + 1)]
    return {
        "cell_some": tuple(tuple(vs) for vs in cell_vars),
        "cell_once": tuple(cl for vs in cell_vars for cl in _at_most_once(vs)),
        "unit_once": tuple(cl for vs in unit_vars for cl in _at_most_once(vs)),
        "unit_some": tuple(tuple(vs) for vs in unit_vars),
    }


@cache
def shape_clauses(shape: Shape, encoding: Encoding) -> tuple[Clause, ...]:
    """The clauses of `encoding` that do not depend on the givens (minimal or extended)."""
    groups = _clause_groups(shape)
    if encoding is Encoding.MINIMAL:
        return groups["cell_some"] + groups["unit_once"]
    if encoding is Encoding.EXTENDED:
        return groups["cell_some"] + groups["cell_once"] + groups["unit_once"] + groups["unit_some"]
    raise ValueError(f"the {encoding.value} encoding depends on the givens")


# -- per puzzle ----------------------------------------------------------------------------------


def encode(puzzle: Grid, encoding: Encoding = Encoding.OPTIMIZED) -> Cnf:
    """The CNF of `puzzle` in `encoding`.

    Givens that conflict, or (optimized) that leave an empty cell without a candidate or a unit
    without a place for a digit it still needs, give the formula of one empty clause, the
    reason in its last comment: every SAT solver says UNSAT at once.
    """
    n = puzzle.shape.n
    if not puzzle.is_valid():
        conflict = puzzle.conflicts()[0].describe(puzzle.shape)
        return _unsatisfiable(puzzle, encoding, f"conflicting givens: {conflict}")
    if encoding is not Encoding.OPTIMIZED:
        givens = tuple((k * n + d,) for k, d in enumerate(puzzle.cells) if d)
        clauses = shape_clauses(puzzle.shape, encoding) + givens
        return Cnf(n**3, clauses, comments=_header(puzzle, encoding))
    return _optimized(puzzle)


def _optimized(puzzle: Grid) -> Cnf:
    shape = puzzle.shape
    n = shape.n
    groups = _groups(shape)
    decided = bytearray(n**3 + 1)  # 1: false by the givens, 2: true (a given)
    peers = shape.peers
    givens = [(k, d) for k, d in enumerate(puzzle.cells) if d]
    for k, d in givens:
        decided[k * n + 1 : k * n + n + 1] = b"\1" * n
        for p in peers[k]:
            decided[p * n + d] = 1
    for k, d in givens:
        decided[k * n + d] = 2
    free = [v for v in range(1, n**3 + 1) if not decided[v]]
    number = [0] * (n**3 + 1)
    for i, v in enumerate(free, 1):
        number[v] = -i  # negated: at-most-one clauses are pairs of negative literals
    some: list[Clause] = []
    once: list[Clause] = []
    cells_some = 0
    last_cell = shape.cells - 1
    for index, (group, pick) in enumerate(groups):
        negated = [x for x in pick(number) if x]
        if negated:
            some.append(tuple(map(neg, negated)))
            once.extend(combinations(negated, 2))
        elif not any(decided[v] == 2 for v in group):
            return _unsatisfiable(puzzle, Encoding.OPTIMIZED, _no_place(shape, index))
        if index == last_cell:
            cells_some = len(some)
    # the extended encoding's order: cells' at-least-one, at-most-ones, units' at-least-one
    clauses = some[:cells_some] + once + some[cells_some:]
    return Cnf(len(free), clauses, tuple(free), _header(puzzle, Encoding.OPTIMIZED))


@cache
def _groups(shape: Shape) -> tuple[tuple[tuple[int, ...], itemgetter], ...]:
    """Each cell's variables, then each unit-digit's (unit-major), with a getter for each."""
    n = shape.n
    cells = [tuple(k * n + d for d in range(1, n + 1)) for k in range(shape.cells)]
    units = [tuple(k * n + d for k in unit) for unit in shape.units for d in range(1, n + 1)]
    return tuple((group, itemgetter(*group)) for group in cells + units)


def _no_place(shape: Shape, index: int) -> str:
    if index < shape.cells:
        return f"{shape.cell_name(index)} has no candidate"
    u, d0 = divmod(index - shape.cells, shape.n)
    return f"{shape.unit_name(u)} has no place for {shape.symbol(d0 + 1)}"


def _unsatisfiable(puzzle: Grid, encoding: Encoding, reason: str) -> Cnf:
    return Cnf(0, [()], (), (*_header(puzzle, encoding)[:2], f"unsatisfiable: {reason}"))


def _header(puzzle: Grid, encoding: Encoding) -> tuple[str, ...]:
    n = puzzle.shape.n
    meaning = f"(r*{n} + c)*{n} + d: row r, column c (0-based) holds digit d"
    if encoding is Encoding.OPTIMIZED:
        meaning = f"variables renumbered; 'c vars i:' lists the numbers {meaning} of i, i+1, ..."
    else:
        meaning = f"variable {meaning}"
    return (
        f"sudokubench cnf, encoding {encoding.value}, {n}x{n} grid, box {puzzle.shape}",
        f"puzzle {puzzle}",
        meaning,
    )


def decode(cnf: Cnf, model: Iterable[int], puzzle: Grid) -> Grid:
    """The grid a model (true literals; false ones ignored) describes, givens kept."""
    shape = puzzle.shape
    n = shape.n
    cells = list(puzzle.cells)
    for lit in model:
        if lit > 0:
            k, d = cell_digit(n, cnf.name(lit))
            cells[k] = d
    return Grid(shape, tuple(cells))


# -- DIMACS --------------------------------------------------------------------------------------

NAMES_PER_LINE = 20


def to_dimacs(cnf: Cnf) -> str:
    """The formula in DIMACS CNF, with its comments and (if renumbered) `c vars` lines."""
    lines = [f"c {text}" for text in cnf.comments]
    for start in range(0, len(cnf.names), NAMES_PER_LINE):
        chunk = cnf.names[start : start + NAMES_PER_LINE]
        lines.append(f"c vars {start + 1}: " + " ".join(map(str, chunk)))
    lines.append(f"p cnf {cnf.num_vars} {len(cnf.clauses)}")
    lines.extend(" ".join([*map(str, clause), "0"]) for clause in cnf.clauses)
    return "\n".join(lines) + "\n"


def read_dimacs(text: str) -> Cnf:
    """Read DIMACS CNF (clauses may span lines); `c vars` lines restore the variable names."""
    num_vars = num_clauses = -1
    clauses: list[Clause] = []
    comments: list[str] = []
    names: list[int] = []
    current: list[int] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("c"):
            body = line[1:].strip()
            if body.startswith("vars "):
                names.extend(int(t) for t in body.split(":", 1)[1].split())
            else:
                comments.append(body)
            continue
        if line.startswith("p"):
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf":
                raise GridFormatError(f"line {line_no}: expected 'p cnf VARS CLAUSES'")
            num_vars, num_clauses = int(parts[2]), int(parts[3])
            continue
        if num_vars < 0:
            raise GridFormatError(f"line {line_no}: clause before the 'p cnf' line")
        for token in line.split():
            lit = int(token)
            if lit == 0:
                clauses.append(tuple(current))
                current = []
            elif abs(lit) > num_vars:
                raise GridFormatError(f"line {line_no}: literal {lit} beyond {num_vars} variables")
            else:
                current.append(lit)
    if current:
        clauses.append(tuple(current))
    if num_vars < 0:
        raise GridFormatError("no 'p cnf' line")
    if len(clauses) != num_clauses:
        raise GridFormatError(f"the header says {num_clauses} clauses, found {len(clauses)}")
    if names and len(names) != num_vars:
        raise GridFormatError(f"'c vars' names {len(names)} variables, the header {num_vars}")
    return Cnf(num_vars, clauses, tuple(names), tuple(comments))
