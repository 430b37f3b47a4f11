"""Text <-> Grid: every puzzle notation sudokubench reads and writes, and puzzle files.

One grid (`parse_grid`) may be written as:

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

A puzzle file (`read_puzzles`) is streamed, never read whole, in one of three layouts chosen
from its first puzzle line:

- **lines**: one puzzle a line, optionally annotated `puzzle:count[:solution]`, with the
  solutions of `name.txt` in `name.solutions.txt` beside it (one a line, same order).
- **blocks**: grids of N rows one after the other, with or without headers (Project Euler 96's
  `Grid 01`) and blank lines between them.
- **CSV** with a header naming a puzzle column (Kaggle's `quizzes,solutions`, or
  `puzzle,solution`, optionally `count`); a `.csv` file or a first line with a comma.

`.gz` files are decompressed (recognised by content, not name); `-` is stdin. Every record has
an id `file:line`. Output: `format_pretty` (box separators, `.` blanks), `format_line`,
`format_tokens`, `format_json`, `format_candidates`.

Errors are `GridFormatError` (text that is no grid) and say what and where:
`top95.txt:3: column 17: unexpected character 'x'`.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, NamedTuple

from sudokubench.grid import SHAPES, SYMBOLS, Grid, GridFormatError, InvalidPuzzleError, Shape

__all__ = [
    "BLANKS",
    "FORMATS",
    "MAX_COUNT_DIGITS",
    "MAX_LINE",
    "PuzzleRecord",
    "collection_path",
    "format_candidates",
    "format_json",
    "format_line",
    "format_pretty",
    "format_tokens",
    "grid_to_json",
    "parse_grid",
    "parse_record",
    "puzzles_dir",
    "read_puzzles",
]

#: The most digits an annotated solution count may have (more than any grid's count).
MAX_COUNT_DIGITS = 30
#: Characters that mean an empty cell in line form.
BLANKS = ".0_-*"
#: Longest line a puzzle file may have: a 25x25 grid as tokens with a solution fits easily.
MAX_LINE = 100_000
#: Lines read before choosing a file's layout (a 16x16 block has 16 rows).
LOOKAHEAD = 16
#: Column names of a CSV file, first match wins.
PUZZLE_COLUMNS = ("puzzle", "puzzles", "quizzes", "quiz", "grid", "sudoku", "question")
SOLUTION_COLUMNS = ("solution", "solutions", "answer")
COUNT_COLUMNS = ("count", "solution_count", "solutions_count")

_SEPARATOR_ROW = re.compile(r"[-+=|: ]+")
_HEADER = re.compile(r"(grid|puzzle|sudoku)(\s.*)?|\[.*\]", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s|+]+")
_GZIP_MAGIC = b"\x1f\x8b"
#: Digit of each symbol character, for the fast path of a plain line.
_DIGIT = {ch: 0 for ch in BLANKS} | {
    ch: d for d, s in enumerate(SYMBOLS, 1) for ch in {s, s.lower()}
}
#: `str.translate` table of `_DIGIT` over ASCII: chr(digit), chr(127) for any other character.
_LINE_DIGITS = "".join(chr(_DIGIT.get(chr(i), 127)) for i in range(128))


class PuzzleRecord(NamedTuple):
    """One puzzle read from a file, with the answers the file states (if any); a named tuple,
    as a reader makes one per line."""

    id: str
    puzzle: Grid
    expected_count: int | None = None
    expected_solution: Grid | None = None


# -- one grid -------------------------------------------------------------------------------


def _is_separator(line: str) -> bool:
    """A row of box separators such as `------+-------+------`."""
    return _SEPARATOR_ROW.fullmatch(line) is not None


def _is_skipped(line: str) -> bool:
    """Comments, headers (`Grid 01`, `[Puzzle]`) and separator rows: no cells."""
    return line.startswith("#") or _HEADER.fullmatch(line) is not None or _is_separator(line)


def _is_number(token: str) -> bool:
    """A whole number written without leading zeros (checked without `int`: any length)."""
    return token.isascii() and token.isdigit() and (token == "0" or token[0] != "0")


def _token_value(token: str) -> int:
    """A numeric token's digit; any token too long to be one reads as a value above every N."""
    return int(token) if len(token) <= 6 else 10**6


def _row_cells(text: str, where: str) -> list[tuple[int, int, str]]:
    """The cells of one line as (digit, column, text) triples; digits are not range-checked."""
    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(text)]
    # numeric tokens: several numbers, one of them a two-digit value (`0 12 3`) or of another
    # length than the rest (`0 0 123456`), as opposed to rows written in equal groups
    # (`530 070 000`); a number too large for a digit is then an error (reported by `_build`),
    # never read as one cell per character
    if (
        len(tokens) > 1
        and all(t in BLANKS or _is_number(t) for t, _ in tokens)
        and (
            any(len(t) == 2 and int(t) <= len(SYMBOLS) for t, _ in tokens)
            or len({len(t) for t, _ in tokens}) > 1
        )
    ):
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
) -> Grid:
    """A grid from (digit, line, column, text) cells, with errors that point at the bad cell."""
    shape = _shape_for(len(cells), shape, where)
    n = shape.n
    for k, (d, line, col, text) in enumerate(cells):
        if d > n:
            place = f"line {line}, column {col}" if rows > 1 else f"column {col}"
            what = (
                f"value {_clip(text)} is more than {n}"
                if text.isdigit()
                else f"unexpected character {text!r} (a {n}x{n} grid uses 1-{SYMBOLS[n - 1]})"
            )
            raise GridFormatError(f"{where}{place} ({shape.cell_name(k)}): {what}")
    return Grid(shape, tuple(d for d, _, _, _ in cells))


def _grid_from_json(text: str, shape: Shape | None, where: str) -> Grid:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GridFormatError(f"{where}invalid JSON: {exc.msg} at column {exc.colno}") from None
    if isinstance(data, dict):
        if shape is None and isinstance(data.get("box"), str):
            shape = Shape.parse(data["box"])
        if "rows" in data:
            data = data["rows"]
        elif isinstance(data.get("puzzle"), str):
            return parse_grid(data["puzzle"], shape, where=where.removesuffix(": "))
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


def _plain_line(text: str, shape: Shape | None) -> Grid | None:
    """The common case, a plain line of symbols, read without per-cell bookkeeping.

    None for anything else, including a bad plain line: the general path explains the error.
    """
    try:  # every character to its digit in C: others become 127 or more, or fail to encode
        values = tuple(text.translate(_LINE_DIGITS).encode("latin-1"))
    except UnicodeEncodeError:
        return None
    if shape is None:
        try:
            shape = Shape.for_cells(len(values))
        except InvalidPuzzleError:
            return None
    if len(values) != shape.cells or max(values, default=0) > shape.n:
        return None
    return Grid._unchecked(shape, values)  # ints from bytes: 0..N, as many as the shape has


def parse_grid(text: str, shape: Shape | None = None, *, where: str = "") -> Grid:
    """Read one grid in any form of the module docstring; `where` prefixes error messages."""
    prefix = f"{where}: " if where else ""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and (stripped[0] == "{" or re.match(r"\[\s*[\[\d]", stripped)):
        return _grid_from_json(stripped, shape, prefix)
    fast = _plain_line(stripped, shape)
    if fast is not None:
        return fast
    lines = [(i, line.strip()) for i, line in enumerate(stripped.splitlines(), 1)]
    rows = [(i, line) for i, line in lines if line and not _is_skipped(line)]
    cells: list[tuple[int, int, int, str]] = []
    row_lengths = []
    for i, line in rows:
        row_where = f"{prefix}line {i}, " if len(lines) > 1 else prefix
        row = _row_cells(line, row_where)
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


def _count(text: str, prefix: str) -> int:
    """An annotated solution count: ASCII digits, at most `MAX_COUNT_DIGITS` of them."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise GridFormatError(f"{prefix}the count {_clip(text)!r} is not a whole number")
    if len(text) > MAX_COUNT_DIGITS:
        raise GridFormatError(
            f"{prefix}the count has {len(text):,} digits (at most {MAX_COUNT_DIGITS})"
        )
    return int(text)


def _clip(text: str, width: int = 40) -> str:
    """`text`, shortened for an error message."""
    return text if len(text) <= width else text[: width - 3] + "..."


def parse_record(text: str, shape: Shape | None = None, *, where: str = "") -> PuzzleRecord:
    """Read an annotated line `puzzle[:count[:solution]]` as a record with id `where`."""
    prefix = f"{where}: " if where else ""
    if text.lstrip()[:1] in ("{", "["):  # JSON (`{"puzzle": "..."}` has colons of its own)
        return PuzzleRecord(where, parse_grid(text, shape, where=where))
    parts = text.strip().split(":")
    if len(parts) > 3:
        raise GridFormatError(f"{prefix}expected puzzle[:count[:solution]], got {len(parts)} parts")
    puzzle = parse_grid(parts[0], shape, where=where)
    count = _count(parts[1], prefix) if len(parts) > 1 and parts[1].strip() else None
    solution = None
    if len(parts) > 2 and parts[2].strip():
        solution = parse_grid(parts[2], puzzle.shape, where=f"{prefix}solution")
    return PuzzleRecord(where, puzzle, count, solution)


# -- output ---------------------------------------------------------------------------------


def format_line(grid: Grid) -> str:
    """The compact line form: one symbol a cell, `.` for blanks."""
    return str(grid)


def _boxed(shape: Shape, texts: list[str], width: int) -> str:
    """Cell texts laid out in rows with `|` between boxes and `-+-` rows between bands."""
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    bar = "+".join(
        "-" * (bc * (width + 1) - 1 + (b > 0) + (b < n // bc - 1)) for b in range(n // bc)
    )
    lines = []
    for r in range(n):
        if r and r % br == 0:
            lines.append(bar)
        chunks = [
            " ".join(texts[r * n + c].ljust(width) for c in range(start, start + bc))
            for start in range(0, n, bc)
        ]
        lines.append(" | ".join(chunks).rstrip())
    return "\n".join(lines)


def format_pretty(grid: Grid) -> str:
    """The grid in rows with box separators and `.` for blanks (reads back with parse_grid)."""
    return _boxed(grid.shape, [grid.shape.symbol(d) for d in grid.cells], 1)


def format_candidates(grid: Grid) -> str:
    """Every cell's candidates (its digit if filled) in the boxed layout, as in Norvig's essay."""
    texts = [
        "".join(grid.shape.symbol(d) for d in grid.candidates(k)) or "-" for k in range(len(grid))
    ]
    return _boxed(grid.shape, texts, max(map(len, texts)))


def format_tokens(grid: Grid) -> str:
    """One row a line of space-separated numbers, 0 for blanks (any size; reads back)."""
    width = len(str(grid.n))
    return "\n".join(" ".join(str(d).rjust(width) for d in row) for row in grid.rows())


def grid_to_json(grid: Grid) -> dict[str, object]:
    """The grid as a JSON-ready dict: `box`, `puzzle` (line form), `rows` (numbers, 0 blank)."""
    return {"box": str(grid.shape), "puzzle": str(grid), "rows": [list(r) for r in grid.rows()]}


def format_json(grid: Grid) -> str:
    """`grid_to_json` as one line of JSON (reads back with parse_grid)."""
    return json.dumps(grid_to_json(grid), separators=(",", ":"))


#: Output forms by name, as the CLI's `--format` offers them.
FORMATS: dict[str, Callable[[Grid], str]] = {
    "pretty": format_pretty,
    "line": format_line,
    "tokens": format_tokens,
    "json": format_json,
}


# -- puzzle files ---------------------------------------------------------------------------


def _open_text(source: str | Path) -> tuple[str, IO[str]]:
    """(display name, text stream) of a path, `-` (stdin) or a gzipped file."""
    if str(source) == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise GridFormatError("stdin: closed (give a file, a puzzle, or pipe puzzles in)")
        return "stdin", sys.stdin
    path = Path(source)
    with open(path, "rb") as probe:
        compressed = probe.read(2) == _GZIP_MAGIC
    binary = gzip.open(path) if compressed else open(path, "rb")  # noqa: SIM115
    return path.name, io.TextIOWrapper(binary, encoding="utf-8-sig")


def _lines(name: str, handle: IO[str]) -> Iterator[tuple[int, str]]:
    """(line number, stripped line), refusing over-long lines and non-text bytes."""
    line_no = 0
    try:
        while line := handle.readline(MAX_LINE + 1):
            line_no += 1
            if line_no == 1:  # a byte-order mark: files drop it when decoding, stdin does not
                line = line.removeprefix("\ufeff")
            if len(line) > MAX_LINE:
                raise GridFormatError(f"{name}:{line_no}: line longer than {MAX_LINE:,} characters")
            yield line_no, line.strip()
    except UnicodeDecodeError:
        raise GridFormatError(f"{name}:{line_no + 1}: not a text file (invalid UTF-8)") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise GridFormatError(f"{name}: damaged gzip data ({exc})") from None


def _solution_lines(path: Path) -> Iterator[str]:
    """The solutions beside a puzzle file, one a line; nothing if there is no such file."""
    stem = path.name.removesuffix(".gz").removesuffix(".txt")
    for candidate in (
        path.with_name(f"{stem}.solutions.txt"),
        path.with_name(f"{stem}.solutions.txt.gz"),
    ):
        if candidate.is_file() and candidate != path:
            name, handle = _open_text(candidate)
            with handle:
                for _, line in _lines(name, handle):
                    if line and not line.startswith("#"):
                        yield line
            return


def _is_csv_header(line: str) -> bool:
    """A first line of names such as `quizzes,solutions` (puzzle text never has a comma)."""
    fields = [f.strip().strip('"') for f in line.split(",")]
    return len(fields) > 1 and all(re.fullmatch(r"[A-Za-z_][\w ]*", f) for f in fields)


def _csv_records(
    name: str, lines: Iterator[tuple[int, str]], first: tuple[int, str], shape: Shape | None
) -> Iterator[PuzzleRecord]:
    """Records of a CSV file; without a header the columns are puzzle[,solution[,count]]."""
    if _is_csv_header(first[1]):
        line_no, header_line = first
        header = [h.strip().lower() for h in next(csv.reader([header_line]))]
        rows: Iterator[tuple[int, str]] = lines
    else:
        line_no, header = 0, ["puzzle", "solution", "count"]
        rows = itertools.chain([first], lines)

    def column(names: tuple[str, ...]) -> int | None:
        return next((header.index(h) for h in names if h in header), None)

    puzzle_col = column(PUZZLE_COLUMNS)
    if puzzle_col is None:
        raise GridFormatError(
            f"{name}:{line_no}: the CSV header has no puzzle column "
            f"(expected one of {', '.join(PUZZLE_COLUMNS)}; got {', '.join(header)})"
        )
    solution_col, count_col = column(SOLUTION_COLUMNS), column(COUNT_COLUMNS)
    for line_no, line in rows:
        if not line:
            continue
        fields = next(csv.reader([line]))
        where = f"{name}:{line_no}"

        def field(col: int | None, fields: list[str] = fields) -> str:
            return fields[col].strip() if col is not None and col < len(fields) else ""

        if not field(puzzle_col):
            raise GridFormatError(f"{where}: no puzzle in column {puzzle_col + 1}")
        puzzle = parse_grid(field(puzzle_col), shape, where=where)
        solution = count = None
        if field(solution_col):
            solution = parse_grid(field(solution_col), puzzle.shape, where=f"{where}: solution")
        if field(count_col):
            count = _count(field(count_col), f"{where}: ")
        yield PuzzleRecord(where, puzzle, count, solution)


def _is_whole_line(line: str, shape: Shape | None) -> bool:
    """Whether a puzzle file's line holds a whole puzzle (else it is a row of a block)."""
    text = line.split(":")[0]
    if "|" in text:
        return False
    try:
        cells = _row_cells(text, "")
    except GridFormatError:
        return True  # let the line parser report it with its position
    if shape is not None:
        return len(cells) != shape.n
    try:
        n = Shape.for_cells(len(cells)).n
    except InvalidPuzzleError:
        return len(cells) not in {s.n for s in SHAPES}
    return all(d <= n for d, _, _ in cells)


def _could_be_row(line: str) -> bool:
    """Whether a line has as many cells as a row of some grid (only 16 is both)."""
    try:
        return len(_row_cells(line.split(":")[0], "")) in {s.n for s in SHAPES}
    except GridFormatError:
        return False


def _block_records(
    name: str, lines: Iterable[tuple[int, str]], shape: Shape | None
) -> Iterator[PuzzleRecord]:
    rows: list[tuple[int, str]] = []
    n = shape.n if shape else 0
    for line_no, line in lines:
        if not line or _is_separator(line):
            continue
        if line.startswith("#") or _HEADER.fullmatch(line):
            if rows:
                raise GridFormatError(
                    f"{name}:{line_no}: the grid that starts on line {rows[0][0]} has "
                    f"{len(rows)} rows, expected {n}"
                )
            continue
        if not rows and not shape:
            n = len(_row_cells(line, f"{name}:{line_no}: "))
            try:
                Shape.for_size(n)
            except InvalidPuzzleError:
                raise GridFormatError(
                    f"{name}:{line_no}: {n} cells is neither a grid nor a row of a grid"
                ) from None
        rows.append((line_no, line))
        if len(rows) == n:
            start = rows[0][0]
            text = "\n".join(line for _, line in rows)
            try:
                grid = parse_grid(text, shape)
            except GridFormatError as exc:
                raise GridFormatError(_relocate(str(exc), name, start)) from None
            yield PuzzleRecord(f"{name}:{start}", grid)
            rows = []
    if rows:
        raise GridFormatError(
            f"{name}: the grid that starts on line {rows[0][0]} has {len(rows)} rows, expected {n}"
        )


def _relocate(message: str, name: str, start: int) -> str:
    """Turn `line 3, column 5: ...` of a block's text into `name:LINE: column 5: ...`."""
    m = re.match(r"line (\d+)(?:, |: )(.*)", message, re.DOTALL)
    if m:
        return f"{name}:{start + int(m.group(1)) - 1}: {m.group(2)}"
    return f"{name}:{start}: {message}"


def read_puzzles(source: str | Path, shape: Shape | None = None) -> Iterator[PuzzleRecord]:
    """Stream the puzzles of a file (or `-`, stdin) in any layout of the module docstring.

    Raises `OSError` for a missing or unreadable file and `GridFormatError` for bad content,
    including a file with no puzzle at all.
    """
    name, handle = _open_text(source)
    solutions = None if str(source) == "-" else _solution_lines(Path(source))
    found = 0
    try:
        lines = _lines(name, handle)
        first = next(((i, line) for i, line in lines if line and not line.startswith("#")), None)
        if first is None:
            raise GridFormatError(f"{name}: no puzzles in the file")
        if Path(str(source)).suffix == ".csv" or "," in first[1]:
            records: Iterator[PuzzleRecord] = _csv_records(name, lines, first, shape)
        else:
            ahead = [first]
            if shape is None and _could_be_row(first[1]):  # 16 cells: 4x4 puzzle or 16x16 row
                rest = (x for x in lines if x[1] and not x[1].startswith("#"))
                ahead.extend(itertools.islice(rest, LOOKAHEAD - 1))
            stream = itertools.chain(ahead, lines)
            if all(not _is_skipped(line) and _is_whole_line(line, shape) for _, line in ahead):
                records = _line_records(name, stream, shape)
            else:
                records = _block_records(name, stream, shape)
        for record in records:
            found += 1
            if solutions is not None and record.expected_solution is None:
                text = next(solutions, None)
                if text is not None:
                    solution = parse_grid(
                        text, record.puzzle.shape, where=f"{name} solution {found}"
                    )
                    record = PuzzleRecord(record.id, record.puzzle, record.expected_count, solution)
            yield record
        if not found:
            raise GridFormatError(f"{name}: no puzzles in the file")
    finally:
        if handle is not sys.stdin:
            handle.close()
        if solutions is not None:
            solutions.close()


def _line_records(
    name: str, lines: Iterable[tuple[int, str]], shape: Shape | None
) -> Iterator[PuzzleRecord]:
    for line_no, line in lines:
        if line and not line.startswith("#"):
            yield parse_record(line, shape, where=f"{name}:{line_no}")


def puzzles_dir() -> Path:
    """Where the shipped collections are: inside the installed package, or the repository's."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "puzzles", here.parent / "puzzles"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the shipped puzzle collections are missing from this install")


def collection_path(name: str) -> Path:
    """The file of a shipped collection by name (`top95`, `17clue`, ...), plain or gzipped."""
    base = puzzles_dir()
    for candidate in (base / name, base / f"{name}.txt", base / f"{name}.txt.gz"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no shipped collection named {name!r} in {base.name}/")
