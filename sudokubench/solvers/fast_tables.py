"""The per-shape tables of the `fast` backend (`fast.py`): candidate masks packed into one
integer per unit, and the box/line segments locked candidates look at. Built once per shape."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any

from sudokubench.grid import Shape

__all__ = ["CHECK_CELLS", "Tables", "tables"]

#: About how many cells of propagation work separate two deadline checks.
CHECK_CELLS = 4096


@dataclass(frozen=True)
class Tables:
    """What the search needs of a shape, computed once per shape."""

    n: int
    width: int  # bits per digit field
    bits: tuple[int, ...]  # bits[d] = the candidate bit of digit d (bits[0] = 0)
    full: int  # every digit's bit
    ones: int  # full << (width - 1): the top bit of every field
    plus_one: int  # adds 2**(width-1) - 1 to each field: the top bit then means "count >= 1"
    plus_two: int  # adds 2**(width-1) - 2 to each field: the top bit then means "count >= 2"
    peers: tuple[tuple[int, ...], ...]
    units: tuple[tuple[int, ...], ...]
    unit_cells: tuple[Any, ...]  # itemgetter of each unit's cells
    cell_units: tuple[tuple[int, int, int], ...]  # unit numbers (row, column, box) of each cell
    unit_bits: tuple[int, ...]  # the units of each cell as bits of a unit set
    all_units: int  # the set of every unit
    digit_of: dict[int, int]  # the digit of a placed cell's value
    check_every: int
    segments: tuple[Any, ...]  # itemgetter of each box-line intersection (rows, then columns)
    line_others: tuple[tuple[int, ...], ...]  # the other segments of a segment's line
    box_others: tuple[tuple[int, ...], ...]  # the other segments of its box, same direction
    line_rest: tuple[tuple[int, ...], ...]  # the cells of its line outside its box
    box_rest: tuple[tuple[int, ...], ...]  # the cells of its box outside its line


@cache
def tables(shape: Shape) -> Tables:
    """The precomputed peers, units and masks of `shape`."""
    n = shape.n
    width = max(2, (n - 1).bit_length() + 1)  # 2**(width-1) >= n: a count never carries out
    bits = (0, *(1 << (width * (d - 1)) for d in range(1, n + 1)))
    full = sum(bits)
    return Tables(
        n=n,
        width=width,
        bits=bits,
        full=full,
        ones=full << (width - 1),
        plus_one=full * ((1 << (width - 1)) - 1),
        plus_two=full * ((1 << (width - 1)) - 2),
        peers=shape.peers,
        units=shape.units,
        unit_cells=tuple(itemgetter(*unit) for unit in shape.units),
        cell_units=tuple((r, n + c, 2 * n + box_no) for r, c, box_no in shape.cell_units),
        unit_bits=tuple(
            (1 << r) | (1 << (n + c)) | (1 << (2 * n + box_no)) for r, c, box_no in shape.cell_units
        ),
        all_units=(1 << (3 * n)) - 1,
        digit_of={bits[d] << 1: d for d in range(1, n + 1)},
        check_every=max(1, CHECK_CELLS // shape.cells),
        **_intersections(shape),
    )


def _intersections(shape: Shape) -> dict[str, tuple[Any, ...]]:
    """The box-line intersections (segments) of a shape, for locked candidates."""
    cells: list[tuple[int, ...]] = []
    line_of: list[tuple[int, int]] = []
    box_of: list[tuple[int, int]] = []
    for direction, lines in enumerate((shape.rows, shape.cols)):
        for line_no, line in enumerate(lines):
            for box_no, box in enumerate(shape.boxes):
                common = tuple(k for k in line if k in set(box))
                if common:
                    cells.append(common)
                    line_of.append((direction, line_no))
                    box_of.append((direction, box_no))
    lines_by_segment = [shape.rows, shape.cols]
    segments = range(len(cells))
    return {
        "segments": tuple(itemgetter(*c) if len(c) > 1 else _one(c[0]) for c in cells),
        "line_others": tuple(
            tuple(
                other for other in segments if other != seg_no and line_of[other] == line_of[seg_no]
            )
            for seg_no in segments
        ),
        "box_others": tuple(
            tuple(
                other for other in segments if other != seg_no and box_of[other] == box_of[seg_no]
            )
            for seg_no in segments
        ),
        "line_rest": tuple(
            tuple(
                k
                for k in lines_by_segment[line_of[seg_no][0]][line_of[seg_no][1]]
                if k not in cells[seg_no]
            )
            for seg_no in segments
        ),
        "box_rest": tuple(
            tuple(k for k in shape.boxes[box_of[seg_no][1]] if k not in cells[seg_no])
            for seg_no in segments
        ),
    }


def _one(k: int) -> Any:
    """An itemgetter-like function that returns a 1-tuple (itemgetter(k) returns the item)."""
    return lambda cells: (cells[k],)
