"""The catalog: shipped collections by name, and the one reader of every command's PUZZLE argument.

A **collection** is a puzzle file shipped in `puzzles/` (in the repository) or
`sudokubench/puzzles/` (in a wheel): `top95`, `hardest`, `17clue`, ... — its file name without
`.txt` / `.txt.gz`. `puzzles/SOURCES.md` (shipped beside them) gives each one's provenance.

A **subset** follows a colon and counts puzzles (not lines) from 1, in file order:

- `top95:1-20` is puzzles 1 to 20, `top95:90-` puzzle 90 to the end;
- `17clue:1000` is the first 1,000 (the same as `17clue:1-1000`).

A subset is a prefix or a range, never a random sample: it is the same puzzles on every machine
and run, it streams (the rest of the file is not read), and each puzzle keeps its id
`file:line`, so a result can be traced to its line. For a spread-out sample, take a range of a
shuffled file.

`resolve_input(arg)` reads any PUZZLE|FILE|- argument as a `Source`: `-` (stdin), an existing
file (with an optional subset, `puzzles/top95.txt:1-5`), a collection name (with an optional
subset), or a puzzle written out (a line, a block, tokens, JSON, or `puzzle:count:solution`).
A path wins over a collection of the same name. This module imports only `grid` and `formats`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sudokubench.formats import PuzzleRecord, parse_grid, parse_record, puzzles_dir, read_puzzles
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

#: File extensions that mark an argument as a file name, not a puzzle (`foo.txt`).
_FILE_SUFFIXES = (".txt", ".gz", ".csv", ".sdk", ".ss", ".sdm", ".json", ".text")
_SUBSET = re.compile(r"(\d+)(?:-(\d*))?")
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
        """`20` (the first 20), `1-20`, `90-` (from 90 on); GridFormatError otherwise."""
        m = _SUBSET.fullmatch(text.strip())
        if m is None or len(text) > 20:
            raise GridFormatError(
                f"subset {text!r}: expected N (the first N puzzles), A-B or A- (puzzles A to B)"
            )
        if m.group(2) is None:
            first, last = 1, int(m.group(1))
        else:
            first, last = int(m.group(1)), int(m.group(2)) if m.group(2) else None
        if first < 1 or (last is not None and last < first):
            raise GridFormatError(f"subset {text!r}: puzzles are numbered from 1, A-B needs A <= B")
        if max(first, last or 0) > MAX_PUZZLE_NUMBER:
            raise GridFormatError(
                f"subset {text!r}: puzzles are numbered up to {MAX_PUZZLE_NUMBER:,} at most"
            )
        return Subset(first, last)

    def take(self, records: Iterator[PuzzleRecord]) -> Iterator[PuzzleRecord]:
        """The records of this subset, reading no further than its last puzzle."""
        return itertools.islice(records, self.first - 1, self.last)

    def __str__(self) -> str:
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
    `puzzle`; `label` names it in reports (a collection's name, a file's name)."""

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
        records = read_puzzles("-" if self.kind == "stdin" else self.path, shape)  # type: ignore[arg-type]
        yield from (self.subset.take(records) if self.subset else records)


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


def resolve_input(arg: str) -> Source:
    """Read a PUZZLE|FILE|- argument (see the module docstring); GridFormatError when it names
    no file or collection, or its subset is malformed. A puzzle is parsed only when read."""
    if arg == "-":
        return Source("stdin", "stdin", arg)
    if _exists(arg):
        return Source("file", Path(arg).name, arg, Path(arg))
    head, colon, tail = arg.partition(":")
    if colon and tail and _SUBSET.match(tail) and not tail.strip(":0123456789-"):
        if _exists(head) and Path(head).is_file():
            return Source("file", Path(head).name, arg, Path(head), Subset.parse(tail))
        path = find_collection(head)
        if path is not None:
            return Source("collection", head, arg, path, Subset.parse(tail))
    path = find_collection(arg)
    if path is not None:
        return Source("collection", arg, arg, path)
    if _looks_like_name(arg):
        known = ", ".join(collection_names())
        shown = arg if len(arg) <= 80 else arg[:77] + "..."
        raise GridFormatError(
            f"{shown}: no such file, and no shipped collection of that name (collections: {known})"
        )
    return Source("puzzle", ARGUMENT_ID, arg)
