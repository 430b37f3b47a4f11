"""The notations of one grid, read into a shape and cells (`parse_cells`; `Grid.parse` and
`formats.parse_grid` build the grid). Below `grid.py`, so the grid model and the file readers
share one reader without an import circle.

One grid may be written as:

- a **line** of symbols, one per cell: `1-9` then `A-Z` for N > 9 (either case); a blank is
  `.` or `0` (also `_`, `-`, `*`). Spaces, `|` and `+` between cells are ignored.
- a **block** of N rows with optional separators (`|`, `-`, `+`, `=`, spaces): the SadMan
  `.sdk` and SimpleSudoku `.ss` styles, the `format_pretty` output, Project Euler 96's rows.
  `#` lines, `[Puzzle]`-style section lines and `Grid 01` headers are skipped. A row made only
  of `-` is read as a separator, so in a block write an empty row with `.` or `0`.
- **numeric tokens** for any size, one line or one row per line: `0 12 3 ...` (0 or `.` blank).
  A line is read as tokens when it holds several whitespace-separated numbers at least one of
  which has two digits; otherwise every non-space character is one cell.
- **JSON**: `[[row], ...]` or `{"rows": [[...]], ...}` or `{"puzzle": "line", "box": "3x3"}`.

The shape comes from the cell count (81 -> 3x3, 36 -> 2x3); `shape=` overrides it.
"""

from __future__ import annotations

import json
import re

from sudokubench.errors import GridFormatError, InvalidPuzzleError
from sudokubench.shape import SHAPES, SYMBOLS, Digit, Shape

__all__ = [
    "BLANKS",
    "Cells",
    "clip",
    "is_header",
    "is_separator",
    "is_skipped",
    "line_digits",
    "parse_cells",
    "plain_line",
    "plain_line_bytes",
    "row_cells",
]

#: A grid as read: its shape and its flat row-major digits (each within 0..N).
Cells = tuple[Shape, tuple[Digit, ...]]

#: Characters that mean an empty cell in line form.
BLANKS = ".0_-*"

_SEPARATOR_ROW = re.compile(r"[-+=|: ]+")
_HEADER = re.compile(r"(grid|puzzle|sudoku)(\s.*)?|\[.*\]", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s|+]+")
#: Digit of each symbol character, for the fast path of a plain line.
_DIGIT = {ch: 0 for ch in BLANKS} | {
    ch: d for d, s in enumerate(SYMBOLS, 1) for ch in {s, s.lower()}
}
#: `bytes.translate` table of `_DIGIT` over the bytes of an ASCII line: the digit, 127 for any
#: other character (a third of the time of `str.translate` with a table of characters).
_LINE_DIGITS = bytes(_DIGIT.get(chr(i), 127) for i in range(256))
#: `_UP_TO[n]`: the bytes 0..n, which `bytes.translate` deletes to find any other in C (a
#: shape has at most `len(SYMBOLS)` symbols).
_UP_TO = [bytes(range(n + 1)) for n in range(len(SYMBOLS) + 1)]


def is_separator(line: str) -> bool:
    """A row of box separators such as `------+-------+------`."""
    return _SEPARATOR_ROW.fullmatch(line) is not None


def is_skipped(line: str) -> bool:
    """Comments, headers (`Grid 01`, `[Puzzle]`) and separator rows: no cells."""
    return line.startswith("#") or is_header(line) or is_separator(line)


def is_header(line: str) -> bool:
    """A header line such as `Grid 01` or `[Puzzle]`."""
    return _HEADER.fullmatch(line) is not None


def _is_number(token: str) -> bool:
    """A whole number written without leading zeros (checked without `int`: any length)."""
    return token.isascii() and token.isdigit() and (token == "0" or token[0] != "0")


def _token_value(token: str) -> int:
    """A numeric token's digit; any token too long to be one reads as a value above every N."""
    return int(token) if len(token) <= 6 else 10**6


def clip(text: str, width: int = 40) -> str:
    """`text`, shortened for an error message."""
    return text if len(text) <= width else text[: width - 3] + "..."


def row_cells(text: str, where: str) -> list[tuple[int, int, str]]:
    """The cells of one line as (digit, column, text) triples; digits are not range-checked."""
    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(text)]
    if (
        len(tokens) > 1
        and all(t in BLANKS or _is_number(t) for t, _ in tokens)
        and (
            any(len(t) == 2 and int(t) <= len(SYMBOLS) for t, _ in tokens)
            or len({len(t) for t, _ in tokens}) > 1
        )
    ):
        # numeric tokens: several numbers, one of them a two-digit value (`0 12 3`) or of another
        # length than the rest (`0 0 123456`), as opposed to rows written in equal groups
        # (`530 070 000`); a number too large for a digit is then an error (reported by
        # `_build`), never read as one cell per character
        return [(0 if t in BLANKS else _token_value(t), col, t) for t, col in tokens]
    cells = []
    for col, ch in enumerate(text, 1):
        if ch in BLANKS:
            cells.append((0, col, ch))
        elif ch.isascii() and ch.upper() in SYMBOLS:
            cells.append((SYMBOLS.index(ch.upper()) + 1, col, ch))
        elif not (ch.isspace() or ch in "|+"):
            raise GridFormatError(f"{where}column {col}: unexpected character {ch!r}")
    return cells


def _size_hint() -> str:
    return ", ".join(f"{s.cells} ({s.n}x{s.n})" for s in SHAPES)


def _shape_for(count: int, shape: Shape | None, where: str) -> Shape:
    """The given shape if the count fits it, else the shape the count implies."""
    if shape is not None:
        if count != shape.cells:
            n = shape.n
            raise GridFormatError(f"{where}expected {shape.cells} cells ({n}x{n}), got {count}")
        return shape
    try:
        return Shape.for_cells(count)
    except InvalidPuzzleError:
        raise GridFormatError(
            f"{where}{count} cells is not the size of a grid (cells: {_size_hint()})"
        ) from None


def _build(
    cells: list[tuple[int, int, int, str]], shape: Shape | None, where: str, rows: int
) -> Cells:
    """A grid from (digit, line, column, text) cells, with errors that point at the bad cell."""
    shape = _shape_for(len(cells), shape, where)
    n = shape.n
    for k, (d, line, col, text) in enumerate(cells):
        if d > n:
            place = f"line {line}, column {col}" if rows > 1 else f"column {col}"
            what = (
                f"value {clip(text)} is more than {n}"
                if text.isdigit()
                else f"unexpected character {text!r} (a {n}x{n} grid uses 1-{SYMBOLS[n - 1]})"
            )
            raise GridFormatError(f"{where}{place} ({shape.cell_name(k)}): {what}")
    return shape, tuple(d for d, _, _, _ in cells)


def _cells_from_json(text: str, shape: Shape | None, where: str) -> Cells:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GridFormatError(f"{where}invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:  # lists nested past the interpreter's stack: no grid is that deep
        raise GridFormatError(f"{where}invalid JSON: nested too deeply for a grid") from None
    if isinstance(data, dict):
        if shape is None and isinstance(data.get("box"), str):
            shape = Shape.parse(data["box"])
        if "rows" in data:
            data = data["rows"]
        elif isinstance(data.get("puzzle"), str):
            return parse_cells(data["puzzle"], shape, where=where.removesuffix(": "))
        else:
            raise GridFormatError(f"{where}JSON grid needs a 'rows' list or a 'puzzle' string")
    if not (isinstance(data, list) and all(isinstance(row, list) for row in data)):
        raise GridFormatError(f"{where}JSON grid must be a list of rows")
    cells = []
    for r, row in enumerate(data, 1):
        for c, d in enumerate(row, 1):
            if isinstance(d, bool) or not isinstance(d, int) or d < 0:
                raise GridFormatError(f"{where}JSON row {r}, item {c}: {d!r} is not a digit")
            cells.append((d, r, c, str(d)))
    return _build(cells, shape, where, rows=len(data))


def plain_line(text: str, shape: Shape | None) -> Cells | None:
    """The common case, a plain line of symbols, read without per-cell bookkeeping.

    None for anything else, including a bad plain line: the general path explains the error.
    """
    read = plain_line_bytes(text, shape)
    return None if read is None else (read[0], tuple(read[1]))  # ints from bytes: 0..N


def plain_line_bytes(text: str, shape: Shape | None) -> tuple[Shape, bytes] | None:
    """`plain_line` with the cells as bytes, one per cell (each 0..N): what
    `Grid._from_bytes` takes."""
    try:  # every character to its digit in C: others become 127, or fail to encode
        raw = text.encode("ascii").translate(_LINE_DIGITS)
    except UnicodeEncodeError:
        return None
    if shape is None:
        try:
            shape = Shape.for_cells(len(raw))
        except InvalidPuzzleError:
            return None
    if len(raw) != shape.cells or raw.translate(None, _UP_TO[shape.n]):
        return None  # (a byte left after deleting 0..N is not a digit of this shape)
    return shape, raw  # 0..N, as many as the shape has


def line_digits(text: str, n: int) -> bytes | None:
    """The characters of plain lines (one after another, any number) as their digits' bytes,
    as `plain_line_bytes` reads a line; None when any is not a symbol 0..n (a blank counts as
    0) or not ASCII."""
    try:
        raw = text.encode("ascii").translate(_LINE_DIGITS)
    except UnicodeEncodeError:
        return None
    return None if raw.translate(None, _UP_TO[n]) else raw


def parse_cells(text: str, shape: Shape | None = None, *, where: str = "") -> Cells:
    """Read one grid in any notation of the module docstring: its shape and its cells, every
    digit within 0..N; `where` prefixes error messages."""
    prefix = f"{where}: " if where else ""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and (stripped[0] == "{" or re.match(r"\[\s*[\[\d]", stripped)):
        return _cells_from_json(stripped, shape, prefix)
    fast = plain_line(stripped, shape)
    if fast is not None:
        return fast
    lines = [(i, line.strip()) for i, line in enumerate(stripped.splitlines(), 1)]
    rows = [(i, line) for i, line in lines if line and not is_skipped(line)]
    cells: list[tuple[int, int, int, str]] = []
    row_lengths = []
    for i, line in rows:
        row_where = f"{prefix}line {i}, " if len(lines) > 1 else prefix
        row = row_cells(line, row_where)
        row_lengths.append((i, len(row)))
        cells.extend((d, i, col, t) for d, col, t in row)
    if len(rows) > 1:  # a block: point at the first row of the wrong length
        n = shape.n if shape else row_lengths[0][1]
        if n * n != len(cells) or len(rows) != n:
            bad = next(((i, m) for i, m in row_lengths if m != n), None)
            if bad:
                raise GridFormatError(f"{prefix}line {bad[0]}: expected {n} cells, got {bad[1]}")
            if len(rows) != n:
                raise GridFormatError(f"{prefix}expected {n} rows of {n} cells, got {len(rows)}")
    if not cells:
        raise GridFormatError(f"{prefix}no grid (empty text)")
    return _build(cells, shape, prefix, rows=len(rows))
