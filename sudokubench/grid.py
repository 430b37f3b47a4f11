"""The grid model: box shapes, immutable grids, the rules, and the one solution checker.

Glossary (the names used everywhere in sudokubench):

- **shape**: the box geometry `box_rows x box_cols`; N = box_rows * box_cols is the number of
  symbols and the length of every unit. Boxes are never taller than wide (2x3, not 3x2).
- **cell**: one square of the grid, addressed by its flat row-major index `k = r * N + c`.
  `r` and `c` are 0-based in code and 1-based in messages (`r1c7`).
- **digit** `d`: a value 1..N of a cell; 0 means empty. Digits above 9 print as `A`..`Z`.
- **unit** `u`: a row, a column or a box; each holds every digit exactly once in a solution.
- **peers**: the other cells that share a unit with a cell.
- **givens**: the filled cells of a puzzle (its clues).
- **candidates**: the digits a cell can still take without repeating a digit in a unit.
- **conflict**: a digit given twice in one unit; a puzzle with one has no solution.

One-letter names are only `r`, `c`, `k`, `d`, `u` as above.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import repeat
from operator import add, itemgetter
from typing import Any, NamedTuple

from sudokubench.errors import GridFormatError, InvalidPuzzleError
from sudokubench.notation import parse_cells
from sudokubench.shape import SHAPES, SYMBOLS, Cell, Digit, Shape, shape_of

__all__ = [
    "SHAPES",
    "SYMBOLS",
    "Conflict",
    "Grid",
    "GridFormatError",
    "InvalidPuzzleError",
    "Shape",
    "is_solution",
    "shape_of",
    "solution_line",
    "solution_problem",
    "valid_lines",
]

_INT = {int}
#: Character chr(d) -> the symbol of digit d (`.` for 0), for `str.translate`.
_LINE_SYMBOLS = "." + SYMBOLS
#: The same as a `bytes.translate` table: byte d -> the symbol of digit d (half the time of
#: `str.translate` on a line; bytes past the symbols stay themselves, and no grid holds one).
_LINE_BYTES = bytes.maketrans(bytes(range(len(_LINE_SYMBOLS))), _LINE_SYMBOLS.encode("ascii"))


#: `object.__new__` and `object.__setattr__` as globals (`Grid._unchecked`, `_from_bytes`).
_new_object, _set_attribute = object.__new__, object.__setattr__


class Conflict(NamedTuple):
    """A digit that appears more than once in one unit."""

    digit: Digit
    unit: int
    cells: tuple[Cell, ...]

    def describe(self, shape: Shape) -> str:
        """E.g. `5 twice in row 1: r1c2, r1c7`."""
        times = {2: "twice", 3: "three times"}.get(len(self.cells), f"{len(self.cells)} times")
        where = ", ".join(shape.cell_name(k) for k in self.cells)
        return f"{shape.symbol(self.digit)} {times} in {shape.unit_name(self.unit)}: {where}"


@dataclass(frozen=True)
class Grid:
    """An immutable grid: a shape and a flat row-major tuple of digits (0 = empty)."""

    shape: Shape
    cells: tuple[Digit, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cells, tuple):  # a list would make the grid unhashable
            object.__setattr__(self, "cells", tuple(self.cells))
        n = self.shape.n
        if len(self.cells) != self.shape.cells:
            raise InvalidPuzzleError(
                f"a {n}x{n} grid has {self.shape.cells} cells, got {len(self.cells)}"
            )
        # The common case in C: plain ints within 0..N (anything else gets the loop's message).
        if set(map(type, self.cells)) == _INT and min(self.cells) >= 0 and max(self.cells) <= n:
            return
        for k, d in enumerate(self.cells):
            if not (isinstance(d, int) and 0 <= d <= n):
                raise InvalidPuzzleError(f"{self.shape.cell_name(k)}: value {d!r} is not 0..{n}")

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_cells(cls, cells: Iterable[int], shape: Shape | None = None) -> Grid:
        """A grid from a flat sequence of digits; the shape is inferred from the count."""
        values = tuple(int(d) for d in cells)
        return cls(shape or Shape.for_cells(len(values)), values)

    @classmethod
    def _unchecked(cls, shape: Shape, cells: tuple[Digit, ...]) -> Grid:
        """A grid from cells the caller has already checked (a tuple of `shape.cells` ints in
        0..N): readers of plain lines make one per line, and skip the checks of `__init__`.
        The two fields are written at once, as the instance's dict (one call into C, not one
        a field through the frozen class's `object.__setattr__`)."""
        grid = _new_object(cls)
        _set_attribute(grid, "__dict__", {"shape": shape, "cells": cells})
        return grid

    @classmethod
    def _from_bytes(cls, shape: Shape, digits: bytes) -> Grid:
        """A grid from its cells as bytes the caller has already checked (`shape.cells` bytes,
        each 0..N), which it keeps for `digit_bytes`: the worker reads each task's puzzle so,
        and both `native`'s `prepare` and the checker (`solution_line`) want the givens as
        bytes, which would otherwise be made again from the tuple each time (0.5 us a time)."""
        grid = _new_object(cls)
        fields = {"shape": shape, "cells": tuple(digits), "_digit_bytes": digits}
        _set_attribute(grid, "__dict__", fields)
        return grid

    def digit_bytes(self) -> bytes:
        """The cells as bytes, one per cell (each 0..N): the ones `_from_bytes` kept, or made
        now. For grids the caller made (a puzzle). The checker reads a plug-in's or a
        program's solution by its own cells, never by bytes it could have put beside them; only
        for sudokubench's own backends (`guard.trusted`), whose grids keep bytes made from the
        same row as their cells (`_from_bytes`), does it read the kept bytes."""
        kept = self.__dict__.get("_digit_bytes")
        return bytes(self.cells) if kept is None else kept

    @classmethod
    def empty(cls, shape: Shape) -> Grid:
        """The grid with no givens."""
        return cls(shape, (0,) * shape.cells)

    @classmethod
    def parse(cls, text: str, shape: Shape | None = None, *, where: str = "") -> Grid:
        """Read one grid in any notation of `notation.py` (line, block, tokens, JSON); `where`
        prefixes error messages (GridFormatError)."""
        shape, cells = parse_cells(text, shape, where=where)
        return cls._unchecked(shape, cells)  # parse_cells checked the count and every digit

    def with_value(self, k: Cell, d: Digit) -> Grid:
        """A copy with cell k set to d."""
        cells = list(self.cells)
        cells[k] = d
        return Grid(self.shape, tuple(cells))

    # -- reading ------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of symbols."""
        return self.shape.n

    def __getitem__(self, k: Cell) -> Digit:
        return self.cells[k]

    def __len__(self) -> int:
        return len(self.cells)

    def __iter__(self) -> Iterator[Digit]:
        return iter(self.cells)

    def __str__(self) -> str:
        """The compact line form: one symbol per cell, `.` for empty."""
        if self.shape.n < 128:  # each digit as one character, mapped to its symbol in C
            return bytes(self.cells).translate(_LINE_BYTES).decode("latin-1")
        return "".join(SYMBOLS[d - 1] if d else "." for d in self.cells)  # pragma: no cover

    def __repr__(self) -> str:
        return f"Grid.parse({str(self)!r})"

    def value(self, r: int, c: int) -> Digit:
        """The digit at row r, column c (0-based)."""
        return self.cells[r * self.shape.n + c]

    def rows(self) -> list[tuple[Digit, ...]]:
        """The grid as a list of rows."""
        n = self.shape.n
        return [self.cells[r * n : (r + 1) * n] for r in range(n)]

    @property
    def givens(self) -> int:
        """Number of filled cells."""
        return sum(1 for d in self.cells if d)

    # -- the rules (the source material's in_row / in_col / in_block / is_valid_number) -------

    def row_has(self, r: int, d: Digit) -> bool:
        """Whether digit d is in row r."""
        return any(self.cells[k] == d for k in self.shape.rows[r])

    def col_has(self, c: int, d: Digit) -> bool:
        """Whether digit d is in column c."""
        return any(self.cells[k] == d for k in self.shape.cols[c])

    def box_has(self, b: int, d: Digit) -> bool:
        """Whether digit d is in box b (see `Shape.box_index`)."""
        return any(self.cells[k] == d for k in self.shape.boxes[b])

    def can_place(self, k: Cell, d: Digit) -> bool:
        """Whether d can go in cell k without repeating in its row, column or box."""
        r, c, b = self.shape.cell_units[k]
        return not (self.row_has(r, d) or self.col_has(c, d) or self.box_has(b, d))

    def candidates(self, k: Cell) -> tuple[Digit, ...]:
        """Digits cell k can take (its own digit only, if filled)."""
        if self.cells[k]:
            return (self.cells[k],)
        taken = {self.cells[p] for p in self.shape.peers[k]}
        return tuple(d for d in range(1, self.shape.n + 1) if d not in taken)

    def conflicts(self) -> list[Conflict]:
        """Every digit given more than once in a unit, with the cells, units in order."""
        found = []
        for u, unit in enumerate(self.shape.units):
            seen: dict[Digit, list[Cell]] = {}
            for k in unit:
                if d := self.cells[k]:
                    seen.setdefault(d, []).append(k)
            found.extend(Conflict(d, u, tuple(ks)) for d, ks in sorted(seen.items()) if len(ks) > 1)
        return found

    def is_complete(self) -> bool:
        """Whether every cell is filled (not whether the grid is valid)."""
        return all(self.cells)

    def is_valid(self) -> bool:
        """Whether no digit repeats in a unit (empty cells allowed)."""
        # Every solve calls this: a lane of units at a time in a few C calls (`_valid_lanes`:
        # about half the time of a set per unit on a 9x9 puzzle, which is a few times faster
        # than `conflicts()`).
        cells = self.cells
        for cells_of, offsets, size, empty in _valid_lanes(self.shape):
            keys = (int.from_bytes(bytes(cells_of(cells))) + offsets).to_bytes(size)
            keys = keys.translate(None, empty)
            if len(set(keys)) != len(keys):
                return False
        return True


@cache
def _valid_lanes(shape: Shape) -> tuple[tuple[itemgetter, int, int, bytes], ...]:
    """For `Grid.is_valid`: the units in lanes of as many as fit a byte's keys (256 // (N + 1):
    25 of 9x9's 27, 15 of 16x16's 48), each a getter of its units' cells in turn, the integer
    whose bytes are each cell's unit number u (within the lane) times N + 1, the lane's size
    in bytes, and the keys of an empty cell (u * (N + 1)). Digit d of unit u is then the byte
    u * (N + 1) + d, at most 255 (the sum never carries), the same byte for the same digit in
    the same unit and a different one otherwise; with the empty cells' bytes deleted, a lane
    has no repeat exactly when its bytes are all different (N is 35 at most, `SYMBOLS`: seven
    units a lane at least)."""
    n = shape.n
    units = shape.units
    per = 256 // (n + 1)  # (units a lane: their keys within a byte)
    lanes = []
    for first in range(0, len(units), per):
        group = units[first : first + per]
        cells = [k for unit in group for k in unit]
        offsets = bytes(u * (n + 1) for u, unit in enumerate(group) for _ in unit)
        empty = bytes(u * (n + 1) for u in range(len(group)))
        lanes.append((itemgetter(*cells), int.from_bytes(offsets), len(cells), empty))
    return tuple(lanes)


@cache
def _unit_check(shape: Shape) -> tuple[itemgetter[tuple[Digit, ...]], tuple[int, ...]]:
    """For `_valid_line`: a getter of every unit's cells in turn, and each one's unit
    number times N (so digit d of unit u becomes the distinct key u * N + d)."""
    n = shape.n
    cells = [k for unit in shape.units for k in unit]
    offsets = tuple(u * n for u, unit in enumerate(shape.units) for _ in unit)
    return itemgetter(*cells), offsets


@cache
def _lane_check(shape: Shape) -> tuple[tuple[tuple[int, ...], int, bytes], ...]:
    """For `_valid_line` up to 16x16: the lanes of the check in groups whose keys fit a byte.

    Lane 0, 1, 2 gives cell k of a valid grid the key u * N + d - 1 for its row, column and
    box u: N * N different keys 0..N*N-1. A group holds as many lanes, one after the other,
    as fit under 256 keys (three up to 9x9, two for 10x10 and 11x11, else one), lane j's keys
    shifted by j * N * N, so the group's keys are all different exactly when no unit repeats
    a digit. Each group is (the bit shifts of the line's copies after the first: the line read
    as one big-endian integer, shifted by each and added to it, is its copies read as one
    integer; the integer to add to those copies: every lane's offsets less 1 in every byte;
    and the bytes of every key the group holds)."""
    n, cells = shape.n, shape.cells
    lanes = [[units[k] * n for k in range(cells)] for units in zip(*shape.cell_units, strict=True)]
    per = max(1, 256 // cells)
    groups = []
    for first in range(0, len(lanes), per):
        group = lanes[first : first + per]
        size = cells * len(group)
        shifts = bytes(key + j * cells for j, lane in enumerate(group) for key in lane)
        offsets = int.from_bytes(shifts, "big") - int.from_bytes(b"\1" * size, "big")
        copies = tuple(8 * cells * j for j in range(1, len(group)))
        groups.append((copies, offsets, bytes(range(size))))
    return tuple(groups)


def _lanes_of(shape: Shape) -> tuple[tuple[tuple[int, ...], int, bytes], ...]:
    """`_lane_check(shape)`, remembered with its shape as `_last_lanes`."""
    global _last_lanes
    lanes = _lane_check(shape)
    _last_lanes = (shape, lanes)
    return lanes


#: The last shape `_valid_line` checked and its lanes: most checks are of one shape, and the
#: identity test costs a fraction of the Python-level hash of a Shape that `_lane_check`'s
#: cache computes (about 2,000 instructions an answer, callgrind).
_last_lanes: tuple[Shape | None, tuple[tuple[tuple[int, ...], int, bytes], ...]] = (None, ())

#: `bytes.translate` table: 0 stays 0, any other byte becomes 255 (a mask of the givens).
_GIVEN_MASK = bytes([0] + [255] * 255)


def _valid_line(line: bytes, givens: bytes, shape: Shape) -> bool:
    """The valid case of `solution_problem` decided in C, on the solution's cells as bytes
    (`line`, each 0..N): complete, every unit holding N different digits (which are then
    1..N), the puzzle's `givens` (its cells as bytes, 0 where empty) kept.

    Up to 16x16, each group of lanes (`_lane_check`) takes one big-integer addition: the
    line's bytes, once per lane of the group, plus the group's integer give each byte its key
    (the digit less 1 plus N times its unit, plus N * N times its lane in the group), at most
    255 so that no byte borrows from or carries into the next; the keys are all different
    exactly when they are every byte 0..size-1 (deleting them from those bytes leaves
    nothing). Three lanes make one group up to 9x9: one addition checks every unit. Larger
    grids check the keys u * N + d of every unit's cells in one set. The givens are kept when
    the solution's bytes, masked where the puzzle has a given, equal the puzzle's.
    """
    if 0 in line:
        return False
    value = int.from_bytes(line)  # (read once: the lanes' copies and the givens' test)
    if shape.n <= 16:
        last = _last_lanes
        lanes = last[1] if last[0] is shape else _lanes_of(shape)
        for shifts, offsets, keys in lanes:
            copies = value
            for shift in shifts:  # (shifts of one integer: cheaper than reading a longer one)
                copies |= value << shift
            if keys.translate(None, (copies + offsets).to_bytes(len(keys))):
                return False
    else:
        getter, unit_keys = _unit_check(shape)
        if len(set(map(add, unit_keys, getter(tuple(line))))) != len(unit_keys):
            return False
    mask = int.from_bytes(givens.translate(_GIVEN_MASK))
    return value & mask == int.from_bytes(givens)


@cache
def _digits_of(n: int) -> bytes:
    """The bytes 1..n: deleting them from a line leaves its bytes that are no digit of N."""
    return bytes(range(1, n + 1))


def valid_lines(lines: bytes, givens: bytes, shape: Shape) -> bool:
    """Whether every solution of a batch is valid (`solution_problem` None for each): `lines`
    their cells as bytes one solution after another (`shape.cells` each), `givens` each one's
    puzzle's cells the same way (0 where empty). False when any is not, or the two differ in
    length: the caller then checks them one by one, to say which and why.

    The worker's batch (`batch.solved_columns`), in a few calls for the whole batch: every
    byte a digit 1..N (one deletion); then, in a process that has numpy already (`native`'s
    workers of another shape or on numba's path; a 9x9 worker on the band kernel's kept
    object has none: it is never imported for this) and for a batch of at least `ARRAYS_FROM`
    solutions, `_valid_arrays`; else the givens kept (the lines read as one integer, once,
    masked where a puzzle gives a digit) and up to 16x16 the units as `_valid_line` tests
    them, a lane at a time for the whole batch (`_batch_lanes`): the lines' integer plus the
    lane's keys made every byte a key, u * N + d - 1 for its unit u, plus `shape.cells` times
    its solution's place in a group of `256 // shape.cells` solutions (three up to 9x9); a
    group's keys are then all different exactly when its solutions' units in that lane each
    hold N different digits: deleting them from the bytes 0..size-1 leaves nothing, one
    deletion a group, made by `map` (no Python step a solution). The last solutions that fill
    no group, and every solution of a larger shape, are tested by `_valid_line` alone."""
    size = shape.cells
    total = len(lines)
    if total != len(givens) or total % size:
        return False
    if shape.box_rows == shape.box_cols == 3:  # (9x9: a worker's usual batch)
        return _valid_nines(lines, givens, total)
    if lines.translate(None, _digits_of(shape.n)):
        return False
    numpy = _modules.get("numpy")
    if numpy is not None and total >= ARRAYS_FROM * size:
        return _valid_arrays(numpy, lines, givens, shape)
    value = int.from_bytes(lines)  # (read once: the givens' test and the lanes')
    mask = int.from_bytes(givens.translate(_GIVEN_MASK))
    if value & mask != int.from_bytes(givens):
        return False
    whole = 0
    if shape.n <= 16:
        per = 256 // size
        whole = total // size // per * per * size  # (bytes of the solutions in whole groups)
        if whole:
            if whole < total:  # (the first `whole` bytes: the integer's high ones)
                value >>= (total - whole) * 8
            keys, offsets, slices = _batch_lanes(shape, whole)
            delete = keys.translate
            for offset in offsets:
                keyed = (value + offset).to_bytes(whole)
                if any(map(delete, repeat(None), map(keyed.__getitem__, slices))):
                    return False
    return all(
        _valid_line(lines[k : k + size], givens[k : k + size], shape)
        for k in range(whole, total, size)
    )


#: `bytes.translate` table of `_valid_nines`: a digit d of 1..8 the bit 1 << (d - 1), 9 and
#: any other byte 0 (a byte that is no digit is then ruled out by the count of 9s).
_BITS_OF_EIGHT = bytes(1 << (d - 1) if 1 <= d <= 8 else 0 for d in range(256))


def _valid_nines(lines: bytes, givens: bytes, total: int) -> bool:
    """`valid_lines` of 9x9 solutions (boxes of 3x3), `total` bytes of them: the whole batch
    in a few big-integer operations (no step a solution or a group of them).

    Each cell's byte is made a bit, 1 << (d - 1) for a digit d of 1..8, and 0 for any other
    byte (a 9, and a byte that is no digit), and the batch read as one integer; shifted copies
    of it or-ed together leave at each unit's first cell (in the integer's bytes: a row's first
    cell, a column's, a box's top left one) the OR of that unit's nine cells, which must be 255
    (`_nines_anchors`): every digit 1..8 in every unit. Then of a unit's nine cells eight hold
    1..8, one each, so a unit holds at most one 9 and a solution at most nine (one a row); the
    batch's bytes 9 must then be nine a solution (`bytes.count`, one C call), which makes every
    solution's count nine, one in each row, column and box (nine units of each kind, at most
    one each): every unit holds 1..8 and a 9, nine different digits, and every byte is a digit
    (`valid_lines`' test of the digits is not needed). The givens are kept when the bits of
    the solutions' cells where the puzzles give a digit are the givens' (a digit's bit tells
    it from every other digit: 9 is the only one made 0, and every byte is a digit)."""
    if lines.count(9) != total // 9:
        return False
    bits = int.from_bytes(lines.translate(_BITS_OF_EIGHT))
    mask = int.from_bytes(givens.translate(_GIVEN_MASK))
    if (bits ^ int.from_bytes(givens.translate(_BITS_OF_EIGHT))) & mask:
        return False
    # (`x << 8 * k` puts at each byte the byte k cells after it: the rows' three-cell runs,
    # then rows of three runs, boxes of three runs a row apart, and columns of nine cells)
    runs = bits | bits << 8 | bits << 16
    rows = runs | runs << 24 | runs << 48
    boxes = runs | runs << 72 | runs << 144
    thirds = bits | bits << 72 | bits << 144
    columns = thirds | thirds << 216 | thirds << 432
    row_at, column_at, box_at = _nines_anchors(total)
    return rows & row_at == row_at and columns & column_at == column_at and boxes & box_at == box_at


@lru_cache(maxsize=8)  # (a worker's batches are mostly of one length: its full batch)
def _nines_anchors(total: int) -> tuple[int, int, int]:
    """For `_valid_nines`: the integers of `total` bytes (9x9 solutions one after another) with
    255 at each row's, each column's and each box's first cell, and 0 elsewhere."""
    starts = ((0, 9, 18, 27, 36, 45, 54, 63, 72), range(9), (0, 3, 6, 27, 30, 33, 54, 57, 60))
    made = []
    for first in starts:
        one = bytearray(81)
        for k in first:
            one[k] = 255
        made.append(int.from_bytes(bytes(one) * (total // 81)))
    return made[0], made[1], made[2]


#: Solutions a batch needs for `valid_lines` to check it with numpy's arrays (`_valid_arrays`):
#: below that, the calls' own cost (a few microseconds each) is more than they save.
ARRAYS_FROM = 16
#: The modules imported in this process (`valid_lines` uses numpy only if it is among them).
_modules = sys.modules


def _valid_arrays(numpy: Any, lines: bytes, givens: bytes, shape: Shape) -> bool:
    """`valid_lines`'s test with numpy's arrays, its bytes already known to be digits 1..N:
    every solution's cells, masked where its puzzle gives a digit, equal the givens; and each
    cell's digit d made the bit 1 << d, the bits of every unit's cells or-ed together make
    every bit 1..N, which N cells (one bit each) do exactly when their digits all differ.
    (The units' cells are gathered as N rows of 3N, one a unit's first cell, the next its
    second, ..., so that the or runs over whole rows: numpy's fast case.)"""
    units, full = _unit_arrays(numpy, shape)
    cells = numpy.frombuffer(lines, numpy.uint8).reshape(-1, shape.cells)
    mask = numpy.frombuffer(givens.translate(_GIVEN_MASK), numpy.uint8).reshape(cells.shape)
    if (cells & mask).tobytes() != givens:
        return False
    bits = numpy.left_shift(full.dtype.type(1), cells, dtype=full.dtype)  # (never uint8's)
    return bool((numpy.bitwise_or.reduce(bits[:, units], axis=1) == full).all())


@lru_cache(maxsize=8)
def _unit_arrays(numpy: Any, shape: Shape) -> tuple[Any, Any]:
    """For `_valid_arrays`: the units' cells as N rows of 3N (row i: each unit's i-th cell),
    and the bits 1..N all set, of the narrowest unsigned type that holds bit N."""
    n = shape.n
    kind = numpy.uint16 if n < 16 else numpy.uint32 if n < 32 else numpy.uint64
    units = numpy.array(shape.units, dtype=numpy.intp).T.copy()
    return units, kind(((1 << n) - 1) << 1)


@lru_cache(maxsize=8)  # (a worker's batches are mostly of one length: its full batch)
def _batch_lanes(shape: Shape, length: int) -> tuple[bytes, tuple[int, ...], list[slice]]:
    """For `valid_lines`, `length` bytes of solutions of `shape` in whole groups of
    `256 // shape.cells`: the keys of a group (bytes 0..group-1), the integer each lane adds
    to the lines' (the keys less each digit: a cell's u * N - 1 for its unit u of the lane,
    plus `shape.cells` times its solution's place in its group), and each group's slice."""
    n, size = shape.n, shape.cells
    per = 256 // size
    group = per * size
    ones = int.from_bytes(b"\1" * length)
    offsets = []
    for units in zip(*shape.cell_units, strict=True):  # (each cell's row, column, box)
        one = bytes(units[k] * n + place * size for place in range(per) for k in range(size))
        offsets.append(int.from_bytes(one * (length // group)) - ones)
    slices = [slice(k, k + group) for k in range(0, length, group)]
    return bytes(range(group)), tuple(offsets), slices


def solution_line(solution: Grid, puzzle: Grid) -> str | None:
    """The line form of `solution` (`str(solution)`) when it is a solution of `puzzle`, else
    None (`solution_problem` says why): the checker's valid case in C, the line made from the
    same bytes."""
    shape = puzzle.shape
    if solution.shape is not shape and solution.shape != shape:
        return None
    line = bytes(solution.cells)  # (a Grid's cells are 0..N, N <= 36)
    if not _valid_line(line, puzzle.digit_bytes(), shape):
        return None
    return line.translate(_LINE_BYTES).decode("latin-1")


def solution_problem(solution: Grid, puzzle: Grid) -> str | None:
    """Why `solution` is not a solution of `puzzle`, or None if it is.

    Independent of every backend: the same shape, every cell filled, every unit a permutation
    of 1..N, and every given of the puzzle kept.
    """
    shape = puzzle.shape
    if solution.shape != shape:
        return f"shape {solution.shape} differs from the puzzle's {shape}"
    if _valid_line(bytes(solution.cells), puzzle.digit_bytes(), shape):
        return None
    # Something is wrong: find the first problem, in the order below, to say what it is.
    if not solution.is_complete():
        k = solution.cells.index(0)
        return f"{shape.cell_name(k)} is empty"
    full = set(range(1, shape.n + 1))
    for u, unit in enumerate(shape.units):
        if {solution.cells[k] for k in unit} != full:
            conflict = next((x for x in solution.conflicts() if x.unit == u), None)
            if conflict:
                return conflict.describe(shape)
            return f"{shape.unit_name(u)} does not hold every digit"  # pragma: no cover
    for k, d in enumerate(puzzle.cells):
        if d and solution.cells[k] != d:
            given, got = shape.symbol(d), shape.symbol(solution.cells[k])
            return f"{shape.cell_name(k)} is {got} but the puzzle gives {given}"
    return None


def is_solution(solution: Grid, puzzle: Grid) -> bool:
    """Whether `solution` is a complete valid grid that keeps every given of `puzzle`."""
    return solution_problem(solution, puzzle) is None
