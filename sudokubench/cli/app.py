"""The Typer app, `main()`, and the helpers every command module shares.

Each feature module in `sudokubench.cli` does `from sudokubench.cli.app import app` and
registers its commands with `@app.command()`. Reuse these instead of writing them again:

- Options as `Annotated` types, from `cli/options.py` (the one vocabulary, re-exported here):
  `PuzzleArg` (PUZZLE|FILE|-), `BoxOpt` (`--box RxC`), `BackendOpt` (`-b/--backends`),
  `TimeoutOpt`, `JsonOpt`; every command's help ends with `examples(...)`.
- `read_input(source, box)`: the PUZZLE|FILE|- argument as a stream of `PuzzleRecord`s, read by
  `sudokubench.catalog.resolve_input`: `-` is stdin, an existing path a puzzle file (any
  layout `formats.read_puzzles` reads), a shipped collection's name (`top95`, `top95:1-20`),
  or else one puzzle written on the command line (a line, a block, tokens, JSON, or an
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
code 2 (Typer/Click usage errors included, no boxes), and so a fault of the environment that a
command did not word itself (`sqlite3` errors: a full disk, a locked database; a `ValueError`
or `OverflowError` from a value no check caught), with the notes the harness added (the run it
marked interrupted); `typer.Exit` codes pass through. An internal bug still shows its
traceback, and exits 3: exit 1 means a wrong answer or a disagreement, and nothing else.
A reader of stdout that goes away (`sudokubench show top95 | head -1`) ends the command
quietly with exit 0 (`_reader_gone`).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import select
import sqlite3
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperGroup

from sudokubench.backend import Backend, SolveResult, Status
from sudokubench.catalog import ARGUMENT_ID, resolve_input
from sudokubench.cli.options import (
    BackendOpt,
    BoxOpt,
    JsonOpt,
    PuzzleArg,
    TimeoutOpt,
    examples,
)
from sudokubench.errors import InputError
from sudokubench.formats import PuzzleRecord
from sudokubench.grid import SYMBOLS, Grid, Shape
from sudokubench.output import escape_controls
from sudokubench.solvers import UnknownBackendError, backend_names, get_backend

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

# -- the group and its commands' help --------------------------------------------------------


class _Argument(TyperArgument):
    """An argument whose help shows its metavar alone (Typer adds `<list[str]>` after it)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.metavar else super().display_type_rich(ctx)


class ReaderGone(Exception):
    """The reader of stdout went away (`sudokubench ... | head -1`): not an OSError, so that
    Click, which answers a broken pipe with exit 1, lets `main` end quietly with 0."""


class _Group(TyperGroup):
    """The app's group: each command's whole summary in the list (Click cuts it at 45
    columns with "..."), its arguments' help without Typer's type placeholders, and its
    parameters' values of plain types checked without pydantic (`cli/coerce.py`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from sudokubench.cli.coerce import install, install_help

        install_help(self)
        for command in self.commands.values():
            install(command.params)
            install_help(command)
            for param in command.params:
                if isinstance(param, TyperArgument):
                    param.__class__ = _Argument  # (Typer makes them; only their help changes)

    def invoke(self, ctx: Any) -> Any:
        """The command; a reader of stdout gone raised past Click, which would exit 1."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise ReaderGone from exc

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [
            (name, command.get_short_help_str(limit=10_000))
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    name="sudokubench",
    cls=_Group,
    help="Compare Sudoku solvers: cross-checked answers and counts, fair timings.",
    epilog=examples("sudokubench solve top95:1", "sudokubench compare -b fast,dlx top95:..5 -q"),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


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
    """Click's exception class `name`, from Typer's bundled copy and/or Click itself. Click's
    own is looked up only once something imported Click (no instance of its classes exists
    before): a Typer that bundles its copy leaves Click unimported (about 15 ms of CPU)."""
    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        if module == "click.exceptions" and module not in sys.modules and found:
            continue
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def _usage_errors() -> tuple[type[BaseException], ...]:
    return _click_classes("UsageError")


def _click_errors() -> tuple[type[BaseException], ...]:
    return _click_classes("ClickException")


def _exits() -> tuple[type[BaseException], ...]:
    return (typer.Exit, *_click_classes("Exit"))


def _aborts() -> tuple[type[BaseException], ...]:
    return (typer.Abort, *_click_classes("Abort"))


def _print_version(value: bool) -> None:
    if value:
        from sudokubench import __version__

        print(f"sudokubench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Compare Sudoku solvers: cross-checked answers and counts, fair timings."""


# -- helpers --------------------------------------------------------------------------------


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print `sudokubench: error: MESSAGE` on stderr; return the Exit to raise."""
    print(f"sudokubench: error: {message}", file=sys.stderr)
    return typer.Exit(code)


def parse_box(box: str | None) -> Shape | None:
    """The `--box RxC` option as a Shape (None when not given); UsageFailure saying the rule."""
    if not box:
        return None
    m = re.fullmatch(r"\s*(\d{1,4})\s*[xX*]\s*(\d{1,4})\s*", box)
    if m is None:
        raise UsageFailure(f"--box {box!r}: expected RxC (a box's rows x columns), e.g. 3x3, 2x3")
    r, c = int(m.group(1)), int(m.group(2))
    if not 2 <= r <= c or r * c > len(SYMBOLS):
        hint = f"; write {c}x{r}" if 2 <= c < r and r * c <= len(SYMBOLS) else ""
        raise UsageFailure(
            f"--box {r}x{c}: --box RxC needs 2 <= R <= C and N = R*C <= {len(SYMBOLS)} "
            f"(an NxN grid of R-row, C-column boxes{hint})"
        )
    return Shape(r, c)


def read_input(
    source: str, box: str | None = None, *, progress: str | None = None, quiet: bool = False
) -> Iterator[PuzzleRecord]:
    """PUZZLE|FILE|- as records: `-` (stdin), a file, a shipped collection by name (both with an
    optional subset, `top95:1-20`) or a puzzle on the command line (see `resolve_input`).

    `progress` names the command in a progress bar with an ETA, shown on a terminal while a
    file or collection is read (`cli/progress.py`) unless `quiet` (`-q`); stdin and a single
    puzzle get none."""
    shape = parse_box(box)
    found = resolve_input(source)
    if progress is None or quiet or found.kind not in ("file", "collection"):
        yield from found.records(shape)
        return
    if found.path is not None and not found.path.is_file():  # a FIFO is read once: no count
        from sudokubench.cli.progress import counted

        yield from counted(found.records(shape), progress)
        return
    from sudokubench.cli.progress import counted

    yield from counted(
        found.records(shape), progress, total=lambda: sum(1 for _ in found.records(shape))
    )


def _get_backend(name: str) -> Backend:
    """`get_backend`, with any error of a plug-in's own code (import, construction) as one line."""
    try:
        return get_backend(name)
    except UnknownBackendError:
        raise
    except Exception as exc:
        raise UsageFailure(f"backend {name}: {type(exc).__name__}: {exc}") from exc


def _available(backend: Backend, name: str) -> bool:
    """`backend.available()`, with an exception raised by a plug-in's check as one line."""
    try:
        return bool(backend.available())
    except Exception as exc:
        raise UsageFailure(
            f"backend {name}: available() raised {type(exc).__name__}: {exc}"
        ) from exc


def resolve_backend(name: str) -> Backend:
    """The named backend, or UsageFailure if it is unknown or cannot run here (or names
    several: the commands that take one backend say which take several)."""
    if "," in name or name.strip() == "all":
        raise UsageFailure(
            f"-b {name}: this command runs one backend; count and compare take several"
        )
    backend = _get_backend(name)
    if not _available(backend, name):
        reason = backend.unavailable_reason() or "not available here"
        raise UsageFailure(f"backend {name}: {reason}")
    if name.startswith("lib:"):  # a crash in a library's C code must not end the command
        from sudokubench.solvers.lib import LibBackend

        if isinstance(backend, LibBackend):
            return backend.contained_copy()
    return backend


def resolve_backends(spec: str) -> list[Backend]:
    """`all` (every available registered backend) or one name or a comma-separated list."""
    if spec.strip() == "all":
        found = [(name, _get_backend(name)) for name in backend_names()]
        return [b for name, b in found if _available(b, name)]
    names = [name.strip() for name in spec.split(",") if name.strip()]
    if not names:
        raise UsageFailure("no backend named")
    return [resolve_backend(name) for name in names]


def run_backend(
    backend: Backend, puzzle: Grid, *, limit: int = 1, timeout: float | None = None
) -> tuple[SolveResult, float]:
    """Solve and time one puzzle: (result, wall seconds around the call). A plug-in that raises
    gives an ERROR result naming the exception, as it would inside `compare`."""
    start = time.perf_counter()
    try:
        result = backend.solve(puzzle, limit=limit, timeout=timeout)
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        result = SolveResult(backend.name, Status.ERROR, message=message)
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
    from sudokubench.output import finite_json

    print(json.dumps(finite_json(obj), allow_nan=False), flush=True)


# -- entry point ----------------------------------------------------------------------------


#: Faults no command worded itself: one line and exit 2 all the same, never exit 1 (which
#: says an answer is wrong). (`InputError`s are `ValueError`s too, and worded.)
_FAULTS = (sqlite3.Error, ValueError, OverflowError, RecursionError)
#: The exit code of an internal bug (3, as errors; never 1).
EXIT_BUG = 3


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        line = f"{exc.filename}: {exc.strerror.lower()}"
    elif isinstance(exc, _click_errors()):
        line = exc.format_message()  # type: ignore[attr-defined]
    elif isinstance(exc, sqlite3.Error):
        line = f"the results database: {exc}"
    elif isinstance(exc, _FAULTS) and not isinstance(exc, INPUT_ERRORS):
        line = f"{type(exc).__name__}: {exc}"
    else:
        line = str(exc)
    notes = getattr(exc, "__notes__", None) or ()
    return escape_controls("; ".join([" ".join(line.splitlines()), *(str(n) for n in notes)]))


def _stdout_gone() -> bool:
    """Whether the reader of stdout is gone (a pipe's write end then polls as an error);
    True where it cannot be told."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # (errors only)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return True


def _reader_gone() -> int:
    """`sudokubench ... | head -1`: the reader of stdout is gone, which is how such a pipe
    ends, not a fault: the output left goes nowhere (stdout pointed at /dev/null, as Python's
    documentation advises in its "Note on SIGPIPE", so the flush at exit finds no broken
    pipe and prints nothing) and the exit code is 0."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 0


def main(argv: list[str] | None = None) -> None:
    """Run the command line; never a traceback for bad input or usage."""
    try:
        code = app(args=argv, prog_name="sudokubench", standalone_mode=False)
        sys.stdout.flush()  # (a reader gone shows here, not in the flush at exit)
    except _exits() as exc:
        code = exc.exit_code  # type: ignore[union-attr]
    except _usage_errors() as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            print(exc.format_message())  # type: ignore[attr-defined]
        else:
            print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = 2
    except (*_aborts(), KeyboardInterrupt):
        code = 130
    except (BrokenPipeError, ReaderGone) as exc:
        if not _stdout_gone():  # another pipe broke: a fault, not the end of a `| head`
            traceback.print_exception(exc)
            print(f"sudokubench: error: internal error: {_error_line(exc)}", file=sys.stderr)
            code = EXIT_BUG
        else:
            code = _reader_gone()
    except INPUT_ERRORS as exc:
        print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = 2
    except _click_errors() as exc:
        print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = exc.exit_code  # type: ignore[attr-defined]
    except _FAULTS as exc:
        print(f"sudokubench: error: {_error_line(exc)}", file=sys.stderr)
        code = 2
    except Exception as exc:  # a bug: its traceback, and an exit code that blames no solver
        traceback.print_exc()
        print(f"sudokubench: error: internal error: {_error_line(exc)}", file=sys.stderr)
        code = EXIT_BUG
    sys.exit(code if isinstance(code, int) else 0)
