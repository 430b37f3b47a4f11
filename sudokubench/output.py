"""Grid -> text: the notations sudokubench writes (`FORMATS` by name). `formats.py` re-exports
them next to the readers."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from sudokubench.grid import Grid
from sudokubench.shape import Shape

__all__ = [
    "FORMATS",
    "csv_cell",
    "csv_row",
    "escape_controls",
    "finite_json",
    "format_candidates",
    "format_json",
    "format_line",
    "format_pretty",
    "format_tokens",
    "grid_to_json",
]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """`text` with its control characters (ESC, BEL, CR, newline, ...) written as `\\xNN`:
    outside text (a backend's name or message, a file name) shown on a terminal or in a
    document never moves the cursor, clears the screen, sets a title or starts a new line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


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


def finite_json(value: Any) -> Any:
    """`value` with every NaN or infinite float (at any depth) replaced by None: strict JSON,
    which `json.dumps(..., allow_nan=False)` then writes."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def csv_cell(value: Any) -> Any:
    """A CSV cell of outside text that no spreadsheet runs as a formula and no terminal reads
    as a command: control characters written as `\\xNN` (`escape_controls`), then text that
    starts with `=`, `+`, `-` or `@` gets a leading `'` (OWASP's rule; a tab or carriage
    return, its other signs, are escaped by then); numbers are kept."""
    if isinstance(value, str):
        value = escape_controls(value)
        if value[:1] in ("=", "+", "-", "@"):
            return "'" + value
    return value


def csv_row(row: dict[str, Any], outside: frozenset[str]) -> dict[str, Any]:
    """A CSV row whose `outside` columns (text from outside: file and collection names,
    backend names, versions and messages) are guarded by `csv_cell`; every other column is
    the tool's own (a verdict `>=1` or `=1`, a count, a time) and reads back as stored."""
    return {k: csv_cell(v) if k in outside else v for k, v in row.items()}
