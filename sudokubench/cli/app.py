"""The Typer app, `main()`, and the helpers every command module shares.

Each feature module in `sudokubench.cli` does `from sudokubench.cli.app import app` and
registers its commands with `@app.command()`. Reuse these instead of writing them again:

- Options as `Annotated` types: `PuzzleArg` (PUZZLE|FILE|-), `BoxOpt` (`--box RxC`),
  `BackendOpt` (`--backend`, default `DEFAULT_BACKEND`), `TimeoutOpt`, `JsonOpt`.
- `read_input(source, box)`: the PUZZLE|FILE|- argument as a stream of `PuzzleRecord`s: an
  existing path is a puzzle file (any layout `formats.read_puzzles` reads), `-` is stdin, and
  anything else is one puzzle written on the command line (a line, a block, tokens, JSON, or an
  annotated `puzzle:count:solution` line).
- `resolve_backend(name)` / `resolve_backends(spec)`: names (`all`, `a,b`) -> available
  backends; an unknown or unavailable one is bad usage (exit 2, with the install hint).
- `run_backend(backend, puzzle, limit=, timeout=)` -> `(SolveResult, seconds)`: the wall time
  around the call, measured here so every command reports time the same way.
- `result_json(result, time_s, **extra)`: the stable `--json` keys (`status`, `count`,
  `exhaustive`, `solutions` as line strings, `backend`, `time_s`) plus extras such as `id`;
  `emit_json(obj)` prints one object a line.
- `UsageFailure(message)`: raise it anywhere for one line on stderr and exit code 2;
  `fail(message, code)` prints the line and returns a `typer.Exit` to raise for other codes.

`main()` turns every bad input and bad usage into `sudokubench: error: ...` on stderr and exit
code 2 (Typer/Click usage errors included, no boxes); `typer.Exit` codes pass through; an
internal bug still shows its traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from sudokubench.backend import Backend, SolveResult
from sudokubench.errors import InputError
from sudokubench.formats import PuzzleRecord, parse_grid, parse_record, read_puzzles
from sudokubench.grid import Grid, GridFormatError, Shape
from sudokubench.solvers import backend_names, get_backend

__all__ = [
    "ARGUMENT_ID",
    "INPUT_ERRORS",
    "BackendOpt",
    "BoxOpt",
    "JsonOpt",
    "PuzzleArg",
    "TimeoutOpt",
    "UsageFailure",
    "app",
    "emit_json",
    "fail",
    "main",
    "read_input",
    "resolve_backend",
    "resolve_backends",
    "result_json",
    "run_backend",
]

app = typer.Typer(
    name="sudokubench",
    help="Compare Sudoku solvers: cross-checked answers and counts, fair timings.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


#: The id of a puzzle given on the command line rather than in a file.
ARGUMENT_ID = "argument"


class UsageFailure(Exception):
    """Bad usage or unreadable input found by a command: one line on stderr, exit code 2."""


#: Errors that mean "bad input": one line, exit code 2.
INPUT_ERRORS = (
    InputError,
    UsageFailure,
    OSError,
    UnicodeDecodeError,
)


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """Click's exception class `name`, from Typer's bundled copy and/or Click itself."""
    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


_USAGE_ERRORS = _click_classes("UsageError")
_CLICK_ERRORS = _click_classes("ClickException")
_EXITS = (typer.Exit, *_click_classes("Exit"))
_ABORTS = (typer.Abort, *_click_classes("Abort"))

# -- shared options -------------------------------------------------------------------------

PuzzleArg = Annotated[
    str,
    typer.Argument(
        metavar="PUZZLE|FILE|-",
        help="A puzzle (line, block or tokens), a puzzle file, or - for stdin.",
        show_default=False,
    ),
]
BoxOpt = Annotated[
    str | None,
    typer.Option("--box", metavar="RxC", help="Box shape, e.g. 2x3; default: from the cell count."),
]
BackendOpt = Annotated[
    str,
    typer.Option("--backend", "-b", help="Backend name (see `sudokubench backends`)."),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option("--timeout", "-t", min=0, help="Seconds per puzzle and backend; default: none."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object a line (stable keys).")]

# -- helpers --------------------------------------------------------------------------------


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print `sudokubench: error: MESSAGE` on stderr; return the Exit to raise."""
    print(f"sudokubench: error: {message}", file=sys.stderr)
    return typer.Exit(code)


def parse_box(box: str | None) -> Shape | None:
    """The `--box RxC` option as a Shape (None when not given)."""
    return Shape.parse(box) if box else None


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and (
        os.sep in text or re.search(r"\.[A-Za-z][A-Za-z0-9]{0,4}$", text) is not None
    )


def read_input(source: str, box: str | None = None) -> Iterator[PuzzleRecord]:
    """PUZZLE|FILE|- as records: an existing path, `-` (stdin) or a puzzle on the command line."""
    shape = parse_box(box)
    if source == "-":
        yield from read_puzzles("-", shape)
        return
    try:
        is_path = Path(source).exists()
    except (OSError, ValueError):  # a puzzle too long or odd to be a file name
        is_path = False
    if is_path:
        yield from read_puzzles(source, shape)
        return
    try:
        if "\n" in source.strip():
            record = PuzzleRecord(ARGUMENT_ID, parse_grid(source, shape))
        else:
            record = parse_record(source, shape, where=ARGUMENT_ID)
    except GridFormatError:
        if _looks_like_path(source):
            raise UsageFailure(f"{source}: no such file") from None
        raise
    yield record


def resolve_backend(name: str) -> Backend:
    """The named backend, or UsageFailure if it is unknown or cannot run here."""
    backend = get_backend(name)
    if not backend.available():
        reason = backend.unavailable_reason() or "not available here"
        raise UsageFailure(f"backend {name}: {reason}")
    return backend


def resolve_backends(spec: str) -> list[Backend]:
    """`all` (every available registered backend) or one name or a comma-separated list."""
    if spec.strip() == "all":
        found = [get_backend(name) for name in backend_names()]
        return [b for b in found if b.available()]
    names = [name.strip() for name in spec.split(",") if name.strip()]
    if not names:
        raise UsageFailure("no backend named")
    return [resolve_backend(name) for name in names]


def run_backend(
    backend: Backend, puzzle: Grid, *, limit: int = 1, timeout: float | None = None
) -> tuple[SolveResult, float]:
    """Solve and time one puzzle: (result, wall seconds around the call)."""
    start = time.perf_counter()
    result = backend.solve(puzzle, limit=limit, timeout=timeout)
    return result, time.perf_counter() - start


def result_json(result: SolveResult, time_s: float, **extra: Any) -> dict[str, Any]:
    """The stable `--json` keys of one result, then `extra` (e.g. `id`)."""
    return {
        "status": result.status.value,
        "count": result.count,
        "exhaustive": result.exhaustive,
        "solutions": [str(s) for s in result.solutions],
        "backend": result.backend,
        "time_s": round(time_s, 6),
        **extra,
    }


def emit_json(obj: object) -> None:
    """Print one JSON object on its own line."""
    print(json.dumps(obj), flush=True)


# -- entry point ----------------------------------------------------------------------------


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror.lower()}"
    if isinstance(exc, _CLICK_ERRORS):
        return exc.format_message()  # type: ignore[attr-defined]
    return str(exc)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; never a traceback for bad input or usage."""
    try:
        code = app(args=argv, prog_name="sudokubench", standalone_mode=False)
    except _EXITS as exc:
        code = exc.exit_code  # type: ignore[union-attr]
    except _USAGE_ERRORS as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            print(exc.format_message())  # type: ignore[attr-defined]
        else:
            print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = 2
    except (*_ABORTS, KeyboardInterrupt):
        code = 130
    except BrokenPipeError:
        sys.stderr.close()  # `sudokubench ... | head`: stop quietly
        code = 1
    except INPUT_ERRORS as exc:
        print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = 2
    except _CLICK_ERRORS as exc:
        print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = exc.exit_code  # type: ignore[attr-defined]
    sys.exit(code if isinstance(code, int) else 0)
