"""The catalog: shipped collections by name, and the one reader of every command's PUZZLE argument.

A **collection** is a puzzle file shipped in `puzzles/` (in the repository) or
`sudokubench/puzzles/` (in a wheel): `top95`, `hardest`, `17clue`, ... — its file name without
`.txt` / `.txt.gz`. `puzzles/SOURCES.md` (shipped beside them) gives each one's provenance.

A **selection** follows a colon and counts puzzles (not lines) from 1, in file order, in one
grammar for every source (a collection, a file, `stdin`):

- `top95:7` is puzzle 7 alone: the id the tool prints for it (`top95:7`, `path/file.txt:7`,
  `stdin:7`) selects exactly that puzzle when given back;
- `top95:1-20` is puzzles 1 to 20, `top95:90-` puzzle 90 to the end;
- `top95:..20` is the first 20 (the same as `top95:1-20`).

A selection is a prefix, one puzzle or a range, never a random sample: it is the same puzzles
on every machine and run, it streams (the rest of the file is not read), and each puzzle keeps
its id `source:K`. A selection past the end selects nothing: that is bad input (one line,
exit code 2), never an empty run. For a spread-out sample, take a range of a shuffled file.

`resolve_input(arg)` reads any PUZZLE|FILE|- argument as a `Source`: `-` or `stdin` (with an
optional selection, `stdin:3`), an existing file (with an optional selection,
`puzzles/top95.txt:1-5`), a collection name (with an optional selection), or a puzzle written
out (a line, a block, tokens, JSON, or `puzzle:count:solution`), whose id is `argument` (or
`argument:N`, the N-th of several written out on one `compare` line). Those ids select their
puzzle again from the results database `compare` writes by default, `sudokubench.sqlite` in the
working directory: the newest run that holds the id gives the puzzle. A path wins over a
collection of the same name; a name that is neither gets the closest collection
names as a "did you mean". This module imports only `grid` and `formats`.
"""

from __future__ import annotations

import difflib
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sudokubench.formats import (
    PuzzleRecord,
    PuzzleText,
    parse_grid,
    parse_record,
    puzzles_dir,
    read_puzzles,
    read_texts,
)
from sudokubench.grid import GridFormatError, Shape

__all__ = [
    "ARGUMENT_ID",
    "Collection",
    "Source",
    "Subset",
    "collection_names",
    "find_collection",
    "list_collections",
    "resolve_input",
]

#: The id of a puzzle given on the command line rather than in a file.
ARGUMENT_ID = "argument"
#: Where an `argument` id is looked up again: the results database `compare` writes by default.
ARGUMENT_DB = "sudokubench.sqlite"
_ARGUMENT = re.compile(rf"{ARGUMENT_ID}(?::[1-9]\d{{0,11}})?")

#: File extensions that mark an argument as a file name, not a puzzle (`foo.txt`).
_FILE_SUFFIXES = (".txt", ".gz", ".csv", ".sdk", ".ss", ".sdm", ".json", ".text")
_SUBSET = re.compile(r"(\d+)(?:-(\d*))?|\.\.(\d+)")
#: The largest puzzle number a subset may name (a trillion puzzles: past any file, and within
#: what `itertools.islice` takes).
MAX_PUZZLE_NUMBER = 10**12
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
_SOURCES = "SOURCES.md"


@dataclass(frozen=True)
class Subset:
    """Puzzles `first`..`last` (1-based, inclusive; `last` None: to the end)."""

    first: int
    last: int | None

    @staticmethod
    def parse(text: str) -> Subset:
        """`7` (puzzle 7), `1-20`, `90-` (from 90 on), `..20` (the first 20); GridFormatError
        otherwise."""
        m = _SUBSET.fullmatch(text.strip())
        if m is None or len(text) > 20:
            raise GridFormatError(
                f"selection {text!r}: expected K (puzzle K), A-B, A- (puzzles A to B, or to the "
                "end) or ..N (the first N)"
            )
        if m.group(3) is not None:
            first, last = 1, int(m.group(3))
        elif m.group(2) is None:
            first = last = int(m.group(1))
        else:
            first, last = int(m.group(1)), int(m.group(2)) if m.group(2) else None
        if first < 1 or (last is not None and last < first):
            raise GridFormatError(
                f"selection {text!r}: puzzles are numbered from 1, A-B needs A <= B"
            )
        if max(first, last or 0) > MAX_PUZZLE_NUMBER:
            raise GridFormatError(
                f"selection {text!r}: puzzles are numbered up to {MAX_PUZZLE_NUMBER:,} at most"
            )
        return Subset(first, last)

    def take(self, records: Iterator[PuzzleRecord], name: str) -> Iterator[PuzzleRecord]:
        """The records of this selection, reading no further than its last puzzle;
        GridFormatError when `name` (the source) holds too few puzzles to select any."""
        seen = 0
        for record in records:
            seen += 1
            if seen >= self.first:
                yield record
                if seen == self.last:
                    return
        if seen < self.first:
            raise GridFormatError(
                f"{name}:{self}: selects no puzzle ({name} holds {seen}; "
                f"puzzles are numbered 1 to {seen})"
            )

    def take_lists(
        self, lists: Iterator[list[PuzzleText]], name: str
    ) -> Iterator[list[PuzzleText]]:
        """`take` of puzzles that come in lists (`formats.read_texts`): the lists of this
        selection's puzzles, cut where it starts and ends."""
        seen = 0
        first, last = self.first, self.last
        for found in lists:
            start, seen = seen, seen + len(found)
            if seen >= first:
                if last is not None and seen >= last:
                    yield found[max(0, first - 1 - start) : last - start]
                    return
                yield found[max(0, first - 1 - start) :] if start < first - 1 else found
        if seen < first:
            raise GridFormatError(
                f"{name}:{self}: selects no puzzle ({name} holds {seen}; "
                f"puzzles are numbered 1 to {seen})"
            )

    def __str__(self) -> str:
        if self.first == self.last:
            return str(self.first)
        return f"{self.first}-{'' if self.last is None else self.last}"


@dataclass(frozen=True)
class Collection:
    """A shipped collection: its name, file, puzzle count and provenance (from SOURCES.md)."""

    name: str
    path: Path
    puzzles: int | None
    description: str
    source: str


def _table_rows(text: str) -> dict[str, list[str]]:
    """SOURCES.md's table as {file stem: cells}, keyed by the name before `.txt`."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and ".txt" in cells[0]:
            rows[cells[0].split(".txt")[0].strip()] = cells
    return rows


def _is_collection_file(path: Path) -> bool:
    name = path.name
    return path.is_file() and (name.endswith((".txt", ".txt.gz"))) and ".solutions." not in name


def _stem(path: Path) -> str:
    return path.name.removesuffix(".gz").removesuffix(".txt")


def collection_names() -> list[str]:
    """The names of every shipped collection, sorted."""
    return sorted(_stem(p) for p in puzzles_dir().iterdir() if _is_collection_file(p))


def find_collection(name: str) -> Path | None:
    """The file of the shipped collection `name`, or None."""
    if len(name) > 100 or not _NAME.fullmatch(name):
        return None
    base = puzzles_dir()
    for candidate in (base / f"{name}.txt", base / f"{name}.txt.gz"):
        if _is_collection_file(candidate):
            return candidate
    return None


def list_collections(*, count: bool = False) -> list[Collection]:
    """Every shipped collection with its provenance; puzzle counts from SOURCES.md's table,
    or counted by reading the file when the table has none (or `count=True`)."""
    base = puzzles_dir()
    sources = base / _SOURCES
    table = _table_rows(sources.read_text(encoding="utf-8")) if sources.is_file() else {}
    found = []
    for name in collection_names():
        path = find_collection(name)
        assert path is not None
        cells = table.get(name)
        stated = cells[1].replace(",", "") if cells else ""
        puzzles = int(stated) if stated.isdigit() and not count else None
        if puzzles is None:
            puzzles = sum(1 for _ in read_puzzles(path))
        description, source = (cells[3], cells[4]) if cells else ("", "")
        found.append(Collection(name, path, puzzles, description, source))
    return found


@dataclass(frozen=True)
class Source:
    """What a PUZZLE|FILE|- argument names: `kind` is `stdin`, `file`, `collection` or
    `puzzle`; `label` is what its puzzles' ids start with and what selects it again: a
    collection's name, a file's path (relative to the working directory when inside it),
    `stdin` or `argument`."""

    kind: str
    label: str
    text: str
    path: Path | None = None
    subset: Subset | None = None

    def records(self, shape: Shape | None = None) -> Iterator[PuzzleRecord]:
        """Stream the puzzles (GridFormatError / OSError on bad input, when reached)."""
        if self.kind == "puzzle":
            yield _argument_record(self.text, shape)
            return
        if self.kind == "stored":
            text, box = self.text.split("\n", 1)
            stored_shape = shape or (Shape.parse(box) if box else None)
            yield PuzzleRecord(self.label, parse_grid(text, stored_shape, where=self.label))
            return
        path = "-" if self.kind == "stdin" else self.path
        records = read_puzzles(path, shape, label=self.label)  # type: ignore[arg-type]
        yield from (self.subset.take(records, self.label) if self.subset else records)

    def texts(self, shape: Shape | None = None, collection: str = "") -> Iterator[list[PuzzleText]]:
        """`records` as `formats.read_texts` gives them: lists of (id, collection, canonical
        line, expected count, expected solution's line), `collection` where the input names
        none (what `compare` stores and plans)."""
        if self.kind in ("puzzle", "stored"):
            for r in self.records(shape):
                solution = None if r.expected_solution is None else str(r.expected_solution)
                found = r.collection or collection
                yield [(r.id, found, str(r.puzzle), r.expected_count, solution)]
            return
        path = "-" if self.kind == "stdin" else self.path
        lists = read_texts(path, shape, label=self.label, collection=collection)  # type: ignore[arg-type]
        yield from (self.subset.take_lists(lists, self.label) if self.subset else lists)


def _argument_record(text: str, shape: Shape | None) -> PuzzleRecord:
    if "\n" in text.strip():
        return PuzzleRecord(ARGUMENT_ID, parse_grid(text, shape, where=ARGUMENT_ID))
    return parse_record(text, shape, where=ARGUMENT_ID)


def _exists(text: str) -> bool:
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # too long or odd to be a file name
        return False


def _looks_like_name(text: str) -> bool:
    """A file or collection name rather than a puzzle: a path separator, a file suffix
    (`top95.txt`), or a short word (`top9`, `hardest:1-5`)."""
    if "\n" in text or text.lstrip()[:1] in ("{", "["):
        return False
    head = text.split(":")[0]
    if "/" in head or "\\" in head or head.lower().endswith(_FILE_SUFFIXES):
        return True
    return len(head) < 16 and _NAME.fullmatch(head) is not None and not head.isdigit()


def _shown(path: Path) -> str:
    """A file's label: its path relative to the working directory when it is inside it (so
    the ids stay short and select it again from there), else the path as given."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # (another drive on Windows)
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _unknown(arg: str) -> GridFormatError:
    """The error for a name that is no file and no collection, with the closest names."""
    shown = arg if len(arg) <= 80 else arg[:77] + "..."
    head = arg.partition(":")[0]
    if head == ARGUMENT_ID:
        return GridFormatError(
            f"{shown}: the id of a puzzle written out on a command line, and no run in "
            f"{ARGUMENT_DB} here holds it: give the puzzle itself, or run this in the folder "
            "of the results database that stored it"
        )
    names = collection_names()
    close = difflib.get_close_matches(head, names, n=3, cutoff=0.6)
    known = f" (collections: {', '.join(names)})"
    hint = f"; did you mean {' or '.join(close)}?" if close else known
    return GridFormatError(f"{shown}: no such file, and no shipped collection of that name{hint}")


def resolve_input(arg: str) -> Source:
    """Read a PUZZLE|FILE|- argument (see the module docstring); GridFormatError when it names
    no file or collection, or its selection is malformed. A puzzle is parsed only when read."""
    if arg in ("-", "stdin") and not _exists(arg):
        return Source("stdin", "stdin", arg)
    if _exists(arg):
        return Source("file", _shown(Path(arg)), arg, Path(arg))
    head, colon, tail = arg.partition(":")
    if colon and tail and _SUBSET.match(tail) and not tail.strip(":0123456789-."):
        if _exists(head) and Path(head).is_file():
            return Source("file", _shown(Path(head)), arg, Path(head), Subset.parse(tail))
        if head in ("-", "stdin"):
            return Source("stdin", "stdin", arg, subset=Subset.parse(tail))
        path = find_collection(head)
        if path is not None:
            return Source("collection", head, arg, path, Subset.parse(tail))
    path = find_collection(arg)
    if path is not None:
        return Source("collection", arg, arg, path)
    if _ARGUMENT.fullmatch(arg):
        stored = _stored_argument(arg)
        if stored is not None:
            return stored
    if _looks_like_name(arg):
        raise _unknown(arg)
    return Source("puzzle", ARGUMENT_ID, arg)


def _stored_argument(puzzle_id: str) -> Source | None:
    """The puzzle `compare` stored as `puzzle_id` (`argument`, `argument:N`) in the newest run of
    ./sudokubench.sqlite that holds it, read without writing; None when there is none (no such
    file, not a results database, no run with that id)."""
    if not Path(ARGUMENT_DB).is_file():
        return None
    try:
        uri = f"{Path(ARGUMENT_DB).resolve().as_uri()}?mode=ro"
        with sqlite3.connect(uri, uri=True) as db:
            row = db.execute(
                "SELECT puzzle, box FROM puzzles WHERE puzzle_id = ? ORDER BY run_id DESC LIMIT 1",
                (puzzle_id,),
            ).fetchone()
    except sqlite3.Error:
        return None
    if row is None or not isinstance(row[0], str):
        return None
    box = row[1] if isinstance(row[1], str) else ""
    return Source("stored", puzzle_id, f"{row[0]}\n{box}", Path(ARGUMENT_DB))
