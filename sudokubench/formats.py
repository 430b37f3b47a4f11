"""Text <-> Grid. (First cut: line form, numeric tokens, annotated lines, .solutions.txt, .gz.)

API (stable; extended in place):

- `parse_grid(text, shape=None) -> Grid`
- `format_line(grid)`, `format_pretty(grid)`
- `read_puzzles(source, shape=None) -> Iterator[PuzzleRecord]`; `PuzzleRecord(id, puzzle,
  expected_count, expected_solution)`, id `file:line`.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sudokubench.grid import SYMBOLS, Grid, GridFormatError, Shape

BLANKS = ".0_-*"


@dataclass(frozen=True)
class PuzzleRecord:
    """One puzzle read from a file, with the answers the file states (if any)."""

    id: str
    puzzle: Grid
    expected_count: int | None = None
    expected_solution: Grid | None = None


def parse_grid(text: str, shape: Shape | None = None) -> Grid:
    """Read one grid from a line of symbols or whitespace-separated numbers."""
    text = text.strip()
    tokens = text.split()
    if len(tokens) > 1 and all(t.isdigit() for t in tokens):
        values = [int(t) for t in tokens]
    else:
        values = []
        for col, ch in enumerate(text.replace(" ", ""), 1):
            if ch in BLANKS:
                values.append(0)
            elif ch.upper() in SYMBOLS:
                values.append(SYMBOLS.index(ch.upper()) + 1)
            else:
                raise GridFormatError(f"column {col}: unexpected character {ch!r}")
    try:
        shape = shape or Shape.for_cells(len(values))
    except ValueError as exc:
        raise GridFormatError(str(exc)) from None
    if len(values) != shape.cells:
        raise GridFormatError(f"expected {shape.cells} cells, got {len(values)}")
    for k, d in enumerate(values):
        if d > shape.n:
            raise GridFormatError(f"{shape.cell_name(k)}: {d} is more than {shape.n}")
    return Grid(shape, tuple(values))


def format_line(grid: Grid) -> str:
    """The compact line form."""
    return str(grid)


def format_pretty(grid: Grid) -> str:
    """The grid with box separators, `.` for blanks."""
    shape = grid.shape
    n, br, bc = shape.n, shape.box_rows, shape.box_cols
    width = 1
    sep = "+".join("-" * (bc * (width + 1) + 1) for _ in range(br)).strip("-")
    bar = "+".join(["-" * (bc * 2 + 1)] * (n // bc))
    lines = []
    for r in range(n):
        if r and r % br == 0:
            lines.append(bar)
        chunks = []
        for start in range(0, n, bc):
            chunks.append(
                " "
                + " ".join(shape.symbol(grid.value(r, c)) for c in range(start, start + bc))
                + " "
            )
        lines.append("|".join(chunks))
    del sep
    return "\n".join(lines)


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path), encoding="utf-8")
    return open(path, encoding="utf-8")


def read_puzzles(source: str | Path, shape: Shape | None = None) -> Iterator[PuzzleRecord]:
    """Stream the puzzles of a file, one per line, with expected answers when the file has them."""
    path = Path(source)
    name = path.name
    solutions_path = path.with_name(
        name.removesuffix(".gz").removesuffix(".txt") + ".solutions.txt"
    )
    if not solutions_path.exists():
        solutions_path = solutions_path.with_name(solutions_path.name + ".gz")
    solutions = (
        _open_text(solutions_path) if solutions_path.exists() and solutions_path != path else None
    )
    try:
        with _open_text(path) as handle:
            for line_no, line in enumerate(handle, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                solution_line = solutions.readline().strip() if solutions else ""
                parts = line.split(":")
                where = f"{name}:{line_no}"
                try:
                    puzzle = parse_grid(parts[0], shape)
                    count = int(parts[1]) if len(parts) > 1 and parts[1] else None
                    sol_text = parts[2] if len(parts) > 2 else solution_line
                    solution = parse_grid(sol_text, puzzle.shape) if sol_text else None
                except ValueError as exc:
                    raise GridFormatError(f"{where}: {exc}") from None
                yield PuzzleRecord(where, puzzle, count, solution)
    finally:
        if solutions:
            solutions.close()


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
