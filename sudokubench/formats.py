"""Text <-> Grid: every puzzle notation sudokubench reads and writes, and puzzle files.

One grid (`parse_grid`, which is `Grid.parse`) may be written in any notation of
`notation.py`: a line, a block of rows, numeric tokens or JSON.

A puzzle file (`read_puzzles`) is streamed, never read whole, in one of three layouts chosen
from its first puzzle line:

- **lines**: one puzzle a line, optionally annotated `puzzle:count[:solution]`, with the
  solutions of `name.txt` in `name.solutions.txt` beside it (one a line, same order).
- **blocks**: grids of N rows one after the other, with or without headers (Project Euler 96's
  `Grid 01`) and blank lines between them.
- **CSV** with a header naming a puzzle column (Kaggle's `quizzes,solutions`, or
  `puzzle,solution`, optionally `count`); a `.csv` file or a first line with a comma.

`read_texts` reads the same puzzles as their canonical lines, in lists, for `compare` (which
stores and plans the text, never the grid): once the layout is known to be lines, a regular
file (plain or gzipped) is read in chunks, and a chunk whose lines are all plain lines of one
shape is checked and put in canonical form in a few calls for all of its lines; any other line
is read as `read_puzzles` reads it.

`.gz` files are decompressed (recognised by content, not name); `-` is stdin. Every record has
an id `LABEL:K`, K its place among the file's puzzles from 1 (not a line: a block or a comment
takes several lines), LABEL the path as given, `stdin`, or what the caller names it (a
collection's name): the id is what `catalog.resolve_input` takes back to select that puzzle.
Each record also has the collection a `# collection: NAME` comment line above it names.
Output (`output.py`, re-exported here): `format_pretty` (box separators, `.` blanks),
`format_line`, `format_tokens`, `format_json`, `format_candidates`.

Errors are `GridFormatError` (text that is no grid) and say what and where:
`top95.txt:3: column 17: unexpected character 'x'`.
"""

from __future__ import annotations

import bisect
import csv
import gzip
import io
import itertools
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from sudokubench.errors import GridFormatError, InvalidPuzzleError
from sudokubench.grid import Grid
from sudokubench.notation import (
    _LINE_DIGITS,
    BLANKS,
    clip,
    is_header,
    is_separator,
    is_skipped,
    plain_line_bytes,
    row_cells,
)
from sudokubench.output import (
    FORMATS,
    format_candidates,
    format_json,
    format_line,
    format_pretty,
    format_tokens,
    grid_to_json,
)
from sudokubench.shape import SHAPES, SYMBOLS, Shape

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
    "read_texts",
]

#: The most digits an annotated solution count may have (more than any grid's count).
MAX_COUNT_DIGITS = 30
#: Longest line a puzzle file may have: a 25x25 grid as tokens with a solution fits easily.
MAX_LINE = 100_000
#: Lines read before choosing a file's layout (a 16x16 block has 16 rows).
LOOKAHEAD = 16
#: Characters read at a time from a regular file of puzzle lines once its layout is known
#: (about 3,000 lines of 9x9 puzzles): each chunk's lines are checked and put in canonical
#: form at once when they are all plain lines of one shape (`_plain`), else read one by one.
CHUNK = 1 << 18
#: Column names of a CSV file, first match wins.
PUZZLE_COLUMNS = ("puzzle", "puzzles", "quizzes", "quiz", "grid", "sudoku", "question")
SOLUTION_COLUMNS = ("solution", "solutions", "answer")
COUNT_COLUMNS = ("count", "solution_count", "solutions_count")

_GZIP_MAGIC = b"\x1f\x8b"
_SECTION = re.compile(r"#\s*collection:\s*(\S+)", re.IGNORECASE)


class PuzzleRecord(NamedTuple):
    """One puzzle read from a file, with the answers the file states (if any); a named tuple,
    as a reader makes one per line."""

    id: str
    puzzle: Grid
    expected_count: int | None = None
    expected_solution: Grid | None = None
    #: The `# collection: NAME` section the puzzle is in; None outside any section.
    collection: str | None = None


#: `tuple.__new__`: a `PuzzleRecord` from its fields' tuple without the named tuple's
#: `__new__` (a Python function: two a puzzle read, 0.5 us of its ~3.5).
_new_tuple = tuple.__new__

#: `_ALLOWED[n]`: the bytes of a plain line of an N x N grid (each symbol of 1..N in either
#: case, each blank) and the newline: what a chunk of plain lines holds and nothing else.
_ALLOWED = [
    bytes(c for c in range(256) if _LINE_DIGITS[c] <= n) + b"\n" for n in range(len(SYMBOLS) + 1)
]
#: `bytes.translate` table: a plain line's character to its canonical symbol (what `str(Grid)`
#: writes: `.` for a blank, the upper case), the newline kept, any other byte to NUL.
_CANONICAL = bytes(
    10 if c == 10 else ord((".", *SYMBOLS)[d]) if d <= len(SYMBOLS) else 0
    for c, d in enumerate(_LINE_DIGITS)
)


def parse_grid(text: str, shape: Shape | None = None, *, where: str = "") -> Grid:
    """Read one grid in any notation of `notation.py`; `where` prefixes error messages."""
    return Grid.parse(text, shape, where=where)


def _count(text: str, prefix: str) -> int:
    """An annotated solution count: ASCII digits, at most `MAX_COUNT_DIGITS` of them."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise GridFormatError(f"{prefix}the count {clip(text)!r} is not a whole number")
    if len(text) > MAX_COUNT_DIGITS:
        raise GridFormatError(
            f"{prefix}the count has {len(text):,} digits (at most {MAX_COUNT_DIGITS})"
        )
    return int(text)


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


# -- puzzle files ---------------------------------------------------------------------------


def _open_text(source: str | Path) -> tuple[str, IO[str]]:
    """(display name, text stream) of a path, `-` (stdin) or a gzipped file."""
    name, handle, _ = _open(source)
    return name, handle


def _open(source: str | Path) -> tuple[str, IO[str], bool]:
    """`_open_text`, and whether the source is a regular file (plain or gzipped), which may be
    read in chunks: a pipe, a FIFO or stdin is read a line at a time, so that each line is
    taken as soon as it is written."""
    if str(source) == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise GridFormatError("stdin: closed (give a file, a puzzle, or pipe puzzles in)")
        return "stdin", sys.stdin, False
    path = Path(source)
    # Opened once and sniffed with `peek`, never opened again: a FIFO or a process
    # substitution (`solve <(head -3 f)`) can be read only once.
    raw = open(path, "rb")  # noqa: SIM115  (closed with the text stream made of it)
    try:
        compressed = raw.peek(2)[:2] == _GZIP_MAGIC
        regular = stat.S_ISREG(os.fstat(raw.fileno()).st_mode)
    except BaseException:
        raw.close()
        raise
    binary: IO[bytes] = _OwnedGzip(raw) if compressed else raw
    return path.name, io.TextIOWrapper(binary, encoding="utf-8-sig"), regular


class _OwnedGzip(gzip.GzipFile):
    """A gzip stream over a file it closes with itself (`GzipFile` leaves a `fileobj` open)."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


class _Sections:
    """The `# collection: NAME` lines seen so far: which section a line number is in."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.names: list[str] = []

    def note(self, line_no: int, line: str) -> None:
        if line.startswith("#") and (match := _SECTION.match(line)):
            self.starts.append(line_no)
            self.names.append(match.group(1))

    def at(self, line_no: int) -> str | None:
        k = bisect.bisect_left(self.starts, line_no)
        return self.names[k - 1] if k else None


class _Lines:
    """(line number, stripped line) of a text stream, refusing over-long lines and non-text
    bytes; comment lines that open a collection are noted in `sections`. `line_no` is the
    number of the last line read: `chunks` reads the rest of the stream from there."""

    def __init__(self, name: str, handle: IO[str], sections: _Sections | None = None) -> None:
        self.name = name
        self.handle = handle
        self.sections = sections
        self.line_no = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> tuple[int, str]:
        name = self.name
        try:
            line = self.handle.readline(MAX_LINE + 1)
        except (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise self._unreadable(exc) from None
        if not line:
            raise StopIteration
        self.line_no += 1
        line_no = self.line_no
        if line_no == 1:  # a byte-order mark: files drop it when decoding, stdin does not
            line = line.removeprefix("\ufeff")
        if len(line) > MAX_LINE:
            raise GridFormatError(f"{name}:{line_no}: line longer than {MAX_LINE:,} characters")
        line = line.strip()
        if self.sections is not None and line[:1] == "#":
            self.sections.note(line_no, line)
        return line_no, line

    def _unreadable(self, exc: Exception) -> GridFormatError:
        """What a failed read of the stream says: invalid UTF-8 at the next line, or damaged
        gzip data."""
        if isinstance(exc, UnicodeDecodeError):
            return GridFormatError(
                f"{self.name}:{self.line_no + 1}: not a text file (invalid UTF-8)"
            )
        return GridFormatError(f"{self.name}: damaged gzip data ({exc})")

    def chunks(self) -> Iterator[tuple[int, str]]:
        """The rest of the stream, up to `CHUNK` characters at a time cut after a line's end:
        (number of its first line, its whole lines, each ended by a newline but the file's
        last). An over-long line is refused once the lines before it are taken. (An invalid
        byte is reported at the first line of the chunk read: like the line reader's, whose
        decoder reads 8 KB at a time, the line named may come before the one at fault.)"""
        name, read, tail = self.name, self.handle.read, ""
        size = min(8192, CHUNK)  # (doubled up to CHUNK: a selection of the first few reads little)
        while True:
            try:
                data = read(size)
                size = min(2 * size, CHUNK)
            except (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
                raise self._unreadable(exc) from None
            if not data:
                if tail:
                    self.line_no += 1
                    yield self.line_no, tail
                return
            cut = data.rfind("\n") + 1
            if cut:
                text, tail = tail + data[:cut] if tail else data[:cut], data[cut:]
                yield self.line_no + 1, text
                self.line_no += text.count("\n")
            else:
                tail += data
            if len(tail) > MAX_LINE:
                raise GridFormatError(
                    f"{name}:{self.line_no + 1}: line longer than {MAX_LINE:,} characters"
                )


def _solutions_beside(path: Path) -> Path | None:
    """The file of the solutions beside a puzzle file (`name.solutions.txt`, maybe gzipped),
    or None."""
    stem = path.name.removesuffix(".gz").removesuffix(".txt")
    for candidate in (
        path.with_name(f"{stem}.solutions.txt"),
        path.with_name(f"{stem}.solutions.txt.gz"),
    ):
        if candidate.is_file() and candidate != path:
            return candidate
    return None


def _solution_lines(path: Path) -> Iterator[str]:
    """The solutions in the file `path` (`_solutions_beside`), one a line."""
    name, handle = _open_text(path)
    with handle:
        for _, line in _Lines(name, handle):
            if line and not line.startswith("#"):
                yield line


def _is_csv_header(line: str) -> bool:
    """A first line of names such as `quizzes,solutions` (puzzle text never has a comma)."""
    fields = [f.strip().strip('"') for f in line.split(",")]
    return len(fields) > 1 and all(re.fullmatch(r"[A-Za-z_][\w ]*", f) for f in fields)


def _csv_fields(line: str, where: str) -> list[str]:
    """One CSV line's fields; GridFormatError (naming `where`) when it is not CSV (a stray
    carriage return or NUL, as in a binary file)."""
    try:
        return next(csv.reader([line]))
    except csv.Error as exc:
        raise GridFormatError(f"{where}: not a CSV line ({exc})") from None


def _csv_records(
    name: str, lines: Iterator[tuple[int, str]], first: tuple[int, str], shape: Shape | None
) -> Iterator[tuple[int, PuzzleRecord]]:
    """(line, record) of a CSV file; without a header the columns are puzzle[,solution[,count]]."""
    if _is_csv_header(first[1]):
        line_no, header_line = first
        header = [h.strip().lower() for h in _csv_fields(header_line, f"{name}:{line_no}")]
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
        where = f"{name}:{line_no}"
        fields = _csv_fields(line, where)

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
        yield line_no, PuzzleRecord(where, puzzle, count, solution)


def _is_whole_line(line: str, shape: Shape | None) -> bool:
    """Whether a puzzle file's line holds a whole puzzle (else it is a row of a block)."""
    text = line.split(":")[0]
    if "|" in text:
        return False
    try:
        cells = row_cells(text, "")
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
        return len(row_cells(line.split(":")[0], "")) in {s.n for s in SHAPES}
    except GridFormatError:
        return False


def _block_records(
    name: str, lines: Iterable[tuple[int, str]], shape: Shape | None
) -> Iterator[tuple[int, PuzzleRecord]]:
    rows: list[tuple[int, str]] = []
    n = shape.n if shape else 0
    for line_no, line in lines:
        if not line or is_separator(line):
            continue
        if line.startswith("#") or is_header(line):
            if rows:
                raise GridFormatError(
                    f"{name}:{line_no}: the grid that starts on line {rows[0][0]} has "
                    f"{len(rows)} rows, expected {n}"
                )
            continue
        if not rows and not shape:
            n = len(row_cells(line, f"{name}:{line_no}: "))
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
            yield start, PuzzleRecord(f"{name}:{start}", grid)
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


def read_puzzles(
    source: str | Path, shape: Shape | None = None, *, label: str | None = None
) -> Iterator[PuzzleRecord]:
    """Stream the puzzles of a file (or `-`, stdin) in any layout of the module docstring,
    with ids `LABEL:K` (`label`, default the path as given or `stdin`; K counts puzzles).

    Raises `OSError` for a missing or unreadable file and `GridFormatError` for bad content,
    including a file with no puzzle at all.
    """
    yield from _read(source, shape, label, chunked=False)  # type: ignore[misc]  # (no _Plain)


#: What `read_texts` gives of a puzzle: its id, collection, canonical line (`str(Grid)`), and
#: the answers the file states (a count, a solution's canonical line).
PuzzleText = tuple[str, str, str, int | None, str | None]


def read_texts(
    source: str | Path,
    shape: Shape | None = None,
    *,
    label: str | None = None,
    collection: str = "",
) -> Iterator[list[PuzzleText]]:
    """The puzzles `read_puzzles` reads, as lists of (id, collection, text, expected count,
    expected solution's text): each grid in its canonical line (`str(grid)`), the collection
    `collection` outside any `# collection:` section, the lists made from large chunks of a
    regular file (a chunk of plain lines of one shape is checked and put in canonical form
    at once, never one grid at a time). What `compare` stores and plans; the same puzzles,
    ids and errors as `read_puzzles`, which gives the grids."""
    for item in _read(source, shape, label, chunked=True):
        if type(item) is _Plain:
            yield item.texts(collection)
        else:
            solution = item.expected_solution  # type: ignore[union-attr]
            yield [
                (
                    item.id,  # type: ignore[union-attr]
                    item.collection or collection,  # type: ignore[union-attr]
                    str(item.puzzle),  # type: ignore[union-attr]
                    item.expected_count,  # type: ignore[union-attr]
                    None if solution is None else str(solution),
                )
            ]


class _Plain(NamedTuple):
    """Puzzles `first`, `first + 1`, ... of a file, from whole plain lines of one shape: their
    canonical lines, each ended by a newline (`_plain`)."""

    label: str
    first: int
    shape: Shape
    text: str
    collection: str | None

    def texts(self, default: str) -> list[PuzzleText]:
        lines = self.text.split("\n")
        lines.pop()  # (after the last newline)
        first = self.first
        ids = map(f"{self.label}:".__add__, map(str, range(first, first + len(lines))))
        none = itertools.repeat(None)
        return list(zip(ids, itertools.repeat(self.collection or default), lines, none, none))


def _plain(text: str, shape: Shape | None) -> tuple[Shape, str] | None:
    """Whole lines (each ended by a newline) that are all plain lines of one shape, as
    `plain_line_bytes` reads a line (no space, comment, annotation or blank line): their shape
    and canonical lines; None otherwise (each line is then read on its own)."""
    width = text.find("\n")
    if width <= 0 or not text.isascii():
        return None
    if shape is None:
        try:
            shape = Shape.for_cells(width)
        except InvalidPuzzleError:
            return None
    elif shape.cells != width:
        return None
    lines = len(text) // (width + 1)
    if (
        len(text) != lines * (width + 1)
        or text.count("\n") != lines
        or text[width :: width + 1] != "\n" * lines
    ):
        return None
    raw = text.encode("ascii")
    if raw.translate(None, _ALLOWED[shape.n]):
        return None  # (a character that is neither a symbol of this shape nor a blank)
    return shape, raw.translate(_CANONICAL).decode("ascii")


#: A chunk that is not all plain lines is halved until its halves are this many lines or fewer,
#: then read a line at a time: one comment or annotated line leaves the rest of it plain.
_FEWEST = 64


def _read(
    source: str | Path, shape: Shape | None, label: str | None, *, chunked: bool
) -> Iterator[PuzzleRecord | _Plain]:
    """`read_puzzles`' records; with `chunked`, the plain lines of a regular file's lines
    layout as `_Plain` chunks (each puzzle counted and named as a record would be)."""
    name, handle, regular = _open(source)
    if label is None:
        label = "stdin" if str(source) == "-" else str(source)
    beside = None if str(source) == "-" else _solutions_beside(Path(source))
    solutions = None if beside is None else _solution_lines(beside)
    found = 0
    sections = _Sections()
    try:
        lines = _Lines(name, handle, sections)
        first = next(((i, line) for i, line in lines if line and not line.startswith("#")), None)
        if first is None:
            raise GridFormatError(f"{name}: no puzzles in the file")
        # a file's plain lines in chunks (no solutions beside it: those are matched one by one)
        chunks = chunked and regular and solutions is None
        if Path(str(source)).suffix == ".csv" or "," in first[1]:
            records: Iterator[Any] = _csv_records(name, lines, first, shape)
        else:
            ahead = [first]
            if shape is None and _could_be_row(first[1]):  # 16 cells: 4x4 puzzle or 16x16 row
                rest = (x for x in lines if x[1] and not x[1].startswith("#"))
                ahead.extend(itertools.islice(rest, LOOKAHEAD - 1))
            if all(not is_skipped(line) and _is_whole_line(line, shape) for _, line in ahead):
                if chunks:
                    records = _line_items(name, ahead, lines, shape, sections)
                else:
                    records = _line_records(name, itertools.chain(ahead, lines), shape)
            else:
                records = _block_records(name, itertools.chain(ahead, lines), shape)
        for start, record in records:
            if type(record) is _Plain:
                found_next = found + 1
                found += record.text.count("\n")
                yield record._replace(label=label, first=found_next, collection=sections.at(start))
                continue
            found += 1
            record = _new_tuple(PuzzleRecord, (f"{label}:{found}", *record[1:]))
            if solutions is not None and record.expected_solution is None:
                text = next(solutions, None)
                if text is not None:
                    solution = parse_grid(
                        text, record.puzzle.shape, where=f"{name} solution {found}"
                    )
                    record = record._replace(expected_solution=solution)
            if sections.starts:
                record = record._replace(collection=sections.at(start))
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
) -> Iterator[tuple[int, PuzzleRecord]]:
    for line_no, line in lines:
        if line and not line.startswith("#"):
            yield line_no, _line_record(name, line_no, line, shape)


def _line_record(name: str, line_no: int, line: str, shape: Shape | None) -> PuzzleRecord:
    """One puzzle line (stripped, not a comment) as a record; its id is set by `_read`."""
    # A plain line of symbols (no annotations) is read at once, as `parse_record` would read
    # it in the end. The grid keeps the line's bytes (`Grid._from_bytes`): `native`'s
    # `prepare` takes the givens so, and would otherwise make them again from the tuple.
    cells = plain_line_bytes(line, shape) if ":" not in line else None
    if cells is not None:  # (`tuple.__new__`: the named tuple's own is Python code)
        return _new_tuple(PuzzleRecord, ("", Grid._from_bytes(*cells), None, None, None))
    return parse_record(line, shape, where=f"{name}:{line_no}")


def _line_items(
    name: str,
    ahead: list[tuple[int, str]],
    lines: _Lines,
    shape: Shape | None,
    sections: _Sections,
) -> Iterator[tuple[int, PuzzleRecord | _Plain]]:
    """`_line_records` of the lines looked ahead at, then of the rest of a regular file read
    in chunks: a chunk of plain lines of one shape as one `_Plain` (its label, first number
    and collection set by `_read`), any other line as `_line_records` reads it, in order."""
    yield from _line_records(name, ahead, shape)
    for start, text in lines.chunks():
        yield from _chunk_items(name, start, text, shape, sections)


def _chunk_items(
    name: str, start: int, text: str, shape: Shape | None, sections: _Sections
) -> Iterator[tuple[int, PuzzleRecord | _Plain]]:
    ended = text.endswith("\n")
    plain = _plain(text if ended else text + "\n", shape)
    if plain is not None:
        yield start, _Plain("", 0, plain[0], plain[1], None)
        return
    rows = text.split("\n")
    if ended:
        rows.pop()
    if len(rows) > _FEWEST:
        half = len(rows) // 2
        yield from _chunk_items(name, start, "\n".join(rows[:half]) + "\n", shape, sections)
        rest = "\n".join(rows[half:]) + ("\n" if ended else "")
        yield from _chunk_items(name, start + half, rest, shape, sections)
        return
    last = len(rows) - 1
    for k, line in enumerate(rows):
        line_no = start + k
        if len(line) + (k < last or ended) > MAX_LINE:
            raise GridFormatError(f"{name}:{line_no}: line longer than {MAX_LINE:,} characters")
        line = line.strip()
        if line[:1] == "#":
            sections.note(line_no, line)
        elif line:
            yield line_no, _line_record(name, line_no, line, shape)


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
